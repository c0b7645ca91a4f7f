"""HL001, HL002, HL005: what the loader met while reading a file, worded as findings.

The loader (:mod:`hooklint.loader`, :mod:`hooklint.yamlio`) records problems as typed
:class:`~hooklint.yamlio.LoadIssue` values; these file checks turn them into hits. Kubernetes reads
manifests with go-yaml v2 (sigs.k8s.io/yaml): an unreadable document fails the application's
manifest generation in Argo CD's repo server, a repeated key keeps only its last value, and tags
other than YAML's standard ones are not decoded as written.
"""

from __future__ import annotations

from typing import Iterator

from hooklint.checks import Context, Hit, check
from hooklint.loader import LoadedFile
from hooklint.yamlio import DUPLICATE_KEY, MAX_ISSUES, SYNTAX_ERROR, TOO_COMPLEX, TOO_MANY_ERRORS, UNSAFE_TAG, shown

_MORE = (
    f"More than {MAX_ISSUES} problems like the ones above in this document; the others are not "
    "reported. Fix these first."
)


@check("HL001", scope="file")
def yaml_syntax_error(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """Documents libyaml cannot read, or that are too deep or alias-heavy to read safely."""
    for issue, index in file.issues:
        if issue.kind == SYNTAX_ERROR:
            message = (
                f"YAML syntax error: {issue.detail}. Argo CD cannot render this document, so the "
                "whole application fails to sync; fix the YAML."
            )
        elif issue.kind == TOO_COMPLEX:
            message = f"Document cannot be read safely: {issue.detail}. Simplify the document."
        elif issue.kind == TOO_MANY_ERRORS:
            message = (
                f"More than {issue.detail} documents of this file cannot be read; the rest of the "
                "file is not checked. Fix the YAML."
            )
        else:
            continue
        yield Hit(message, issue.span, issue.field_path, doc_index=index)


@check("HL002", scope="file")
def duplicate_key(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """A mapping key written twice: go-yaml v2 keeps the last value."""
    for issue, index in file.issues:
        if issue.kind != DUPLICATE_KEY:
            continue
        message = _MORE if issue.more else (
            f"Key '{shown(issue.detail)}' is repeated (first at line {issue.first_line}): the API "
            "server keeps only the last value, while a reviewer may read the first. Remove one of them."
        )
        yield Hit(message, issue.span, issue.field_path, doc_index=index)


@check("HL005", scope="file")
def unsafe_yaml_tag(file: LoadedFile, ctx: Context) -> Iterator[Hit]:
    """An explicit tag other than YAML's standard ones (``!!python/object``, ``!Ref``)."""
    for issue, index in file.issues:
        if issue.kind != UNSAFE_TAG:
            continue
        message = _MORE if issue.more else (
            f"YAML tag '{shown(issue.detail)}' is not a standard Kubernetes type; hooklint never "
            "constructs tagged objects and Kubernetes rejects or mis-decodes them. Remove the tag."
        )
        yield Hit(message, issue.span, issue.field_path, doc_index=index)
