"""Argo CD's directory source: which of an application folder's files the repo server renders.

``reposerver/repository/repository.go`` (``shared/docs/argocd-rendering.md`` §2, read at v3.5.1):

- ``getPotentiallyValidManifestFile`` skips a file carrying ``+argocd:skip-file-rendering``;
- ``getObjsFromYAMLOrJSON`` decodes a YAML file document by document (``splitYAMLOrJSON``) and
  stops at the first document it cannot decode: a syntax error, or a document that is not an
  object with a non-empty string ``kind`` (``Unstructured.UnmarshalJSON``: "Object 'Kind' is
  missing"); empty and ``null`` documents are passed over. When that happens before any object was
  decoded and the file lacks any of ``apiVersion:``, ``kind:``, ``metadata:``, the file is "an
  unrelated YAML file which we will ignore": skipped whole, later documents included. Otherwise the
  failure fails the application (HL001, HL003 report it). A ``.json`` file gets no such pass.

hooklint reads YAML with libyaml where Argo CD reads a file opening with ``{`` with Go's
``encoding/json`` and the rest with go-yaml, and stops at limits of its own (nesting, aliases,
nodes) far below Go's. So the pass fails closed: a file is skipped as unrelated YAML only when the
document that stops it is one hooklint read (an object without a ``kind``) or a syntax error in a
text without any sign of a ``kind`` key (the word ``kind`` in any spelling, a backslash escape or a
tag: ``LoadedFile.may_hold_object``); a document hooklint stopped reading at one of its own limits
(aliases, nodes) is never passed over. A document nested past hooklint's 100 levels is read without
what lies deeper (go-yaml and Go's JSON reader go 10,000 levels deep): its top-level keys decide. A file kept this way is reported (HL001, whose message says Argo CD may pass over it).

A file that is a Git LFS pointer (``version https://git-lfs.github.com/spec/v1``, ``oid
sha256:...``, ``size N``: the git-lfs pointer specification, ``docs/spec.md``) is no manifest hooklint
can check: Argo CD's repo server, when Git LFS is enabled for the repository (its ``enableLfs``, a
setting of the repository's credentials in Argo CD, never of the Application:
``pkg/apis/application/v1alpha1/repository_types.go``), runs ``git lfs checkout`` after the checkout
(``util/git/client.go`` ``Checkout``, v3.5.1) and applies the real file; without it, it passes over
the pointer as unrelated YAML. hooklint cannot tell which, and never fetches LFS objects, so the
pointer is HL009 (:func:`lfs_pointer`), not passed over.

Only a directory source reads files this way: kustomize renders every file its kustomization
lists, marker or not. A folder holding a kustomization or a ``Chart.yaml`` is not a directory
source: it is rendered (:mod:`hooklint.sources.render`).
"""

from __future__ import annotations

import re

from hooklint import argocd
from hooklint.findings import Span
from hooklint.loader import LoadedFile
from hooklint.reasons import Skip, SkipKind
from hooklint.yamlio import NOT_RENDERED, SYNTAX_ERROR, TOO_COMPLEX, TOO_MANY_ERRORS, LoadIssue, Map

SKIP_MARKER_REASON = Skip("+argocd:skip-file-rendering marker: Argo CD never renders it", SkipKind.SKIP_MARKER)
UNRELATED_YAML_REASON = Skip(
    "unrelated YAML: its first document is no Kubernetes object and the file lacks apiVersion:, kind: or metadata:",
    SkipKind.UNRELATED_YAML,
)
_UNREADABLE = (SYNTAX_ERROR, TOO_COMPLEX, TOO_MANY_ERRORS)
UNDEPLOYED_DATA_REASON = Skip(
    "JSON that is no Kubernetes object, in a folder no Application of this repository deploys: not a manifest "
    "Argo CD reads", SkipKind.UNDEPLOYED_DATA)  # fmt: skip


def mark_undeployed_data(files: list[LoadedFile]) -> None:
    """Set ``skip_reason`` on every ``.json`` file of ``files`` with no Kubernetes object before its
    first undecodable document (``renovate.json``, ``package.json``, a dashboard), for a folder no
    Application of the repository deploys while the repository's Applications are known: Argo CD
    reads no file of it, and JSON of this kind is data for other tools, not an object a sync would
    fail on (HL003 stays for such a file in a folder an Application deploys, where the repo server
    fails on it: a ``.json`` file gets no "unrelated YAML" pass)."""
    for loaded in files:
        if loaded.error is None and loaded.skip_reason is None and loaded.path.lower().endswith(".json") \
                and fails_before_any_object(loaded):
            loaded.skip_reason = UNDEPLOYED_DATA_REASON


def mark_unrendered(files: list[LoadedFile]) -> None:
    """Set ``skip_reason`` on every file of ``files`` that Argo CD does not render (see the module
    docstring)."""
    for loaded in files:
        if loaded.error is not None or loaded.skip_reason is not None:
            continue
        if loaded.has_skip_marker:
            loaded.skip_reason = SKIP_MARKER_REASON
        elif (pointer := lfs_pointer(loaded)) is not None:
            # its object id is the finding's field: new content is a new finding in a review, not an unchanged one
            loaded.issues.append((LoadIssue(NOT_RENDERED, Span.point(1, 1), _lfs_detail(loaded.path, *pointer),
                                            f"lfs[sha256:{pointer[0]}]"), 0))  # fmt: skip
            loaded.documents = []  # the pointer's text is no document Argo CD applies: only the HL009
        elif not loaded.looks_like_manifest and fails_before_any_object(loaded):
            if _surely_unrelated(loaded):
                loaded.skip_reason = UNRELATED_YAML_REASON
            else:
                loaded.maybe_unrelated = True


#: A Git LFS pointer as YAML reads it: one plain scalar, its lines folded into one (git-lfs
#: ``docs/spec.md``: ``version`` first, then the keys in order, ``ext-N-name`` before ``oid``;
#: ``hawser`` is the specification's first URL, which git-lfs still reads).
_LFS_POINTER = re.compile(r"version https://(?:git-lfs\.github\.com|hawser\.github\.com)/spec/v1"
                          r"(?: ext-[0-9]+-\S+ sha256:[0-9a-f]{64})* oid sha256:([0-9a-f]{64}) size ([0-9]+)")


def lfs_pointer(loaded: LoadedFile) -> tuple[str, int] | None:
    """``(oid, size in bytes)`` when ``loaded`` is a Git LFS pointer file (its one document the
    pointer's text), else None: also for a size git-lfs's ``strconv.ParseInt(value, 10, 64)``
    refuses (``lfs/pointer.go``; past int64, 5,000 digits: no ``int()`` of them either)."""
    if len(loaded.documents) != 1 or not isinstance(loaded.documents[0].value, str):
        return None
    match = _LFS_POINTER.fullmatch(loaded.documents[0].value.strip())
    size = argocd.atoi(match.group(2)) if match else None
    return (match.group(1), size) if match and size is not None else None


def _lfs_detail(path: str, oid: str, size: int) -> str:
    """What HL009 says of the Git LFS pointer ``path``."""
    return (f"{path} is a Git LFS pointer (oid sha256:{oid[:12]}, {size} bytes), not the file it stands for: if Git "
            "LFS is enabled for this repository in Argo CD (the repository's enableLfs), Argo CD's repo server runs "
            "`git lfs checkout` and applies the real file, which hooklint does not see (it never runs Git filters "
            "nor fetches LFS objects); without it, Argo CD passes over the pointer as unrelated YAML. To check it, "
            "fetch the LFS objects before linting (`git lfs pull`; actions/checkout's `lfs: true`), or keep "
            "manifests out of Git LFS")  # fmt: skip


def is_lfs_note(loaded: LoadedFile) -> bool:
    """Whether ``loaded`` carries the HL009 of a Git LFS pointer (:func:`mark_unrendered`)."""
    return any(issue.kind == NOT_RENDERED and issue.detail.startswith(f"{loaded.path} is a Git LFS pointer ")
               for issue, _ in loaded.issues)  # fmt: skip


def _surely_unrelated(loaded: LoadedFile) -> bool:
    """Whether Argo CD surely fails on the first document of ``loaded`` that stops it as hooklint
    does (see the module docstring): one hooklint read as no object, or a syntax error in a text
    with no sign of a ``kind`` key. A document hooklint stopped reading at its own limits
    (TOO_COMPLEX: aliases, nodes) is one Go may well read, and so is a file holding a byte order
    mark past its start (``LoadedFile.bom_inside``: Kubernetes' reader may read its documents
    otherwise; attacker trial 40, 4: a BOM after a leading ``---`` line, one document to Go, where
    hooklint read a first document without a ``kind`` and passed over a privileged hook)."""
    if loaded.bom_inside:
        return False
    first = _first_failure(loaded)
    if first is None or first[0] == "decoded":
        return True
    return first[0] == SYNTAX_ERROR and not loaded.may_hold_object


def _first_failure(loaded: LoadedFile) -> tuple[str, int] | None:
    """(``"decoded"`` or the issue kind, document index) of the first document Argo CD's reader
    stops at, or None."""
    read = {d.index for d in loaded.documents}
    failures = [(index, issue.kind) for issue, index in loaded.issues if issue.kind in _UNREADABLE and index not in read]
    failures.extend((d.index, "decoded") for d in loaded.documents if not _decodes(d.value))
    if not failures:
        return None
    index, kind = min(failures, key=lambda failure: failure[0])
    return kind, index


def fails_before_any_object(loaded: LoadedFile) -> bool:
    """Whether Argo CD's ``splitYAMLOrJSON`` meets a document it cannot decode (unreadable YAML, or
    no object with a non-empty string ``kind``) before it has decoded any object of ``loaded``."""
    read = {d.index for d in loaded.documents}  # a document read past a limit (nesting) is no failure
    failures = [index for issue, index in loaded.issues if issue.kind in _UNREADABLE and index not in read]
    failures.extend(d.index for d in loaded.documents if not _decodes(d.value))
    if not failures:
        return False
    first = min(failures)
    return not any(d.index < first and _decodes(d.value) for d in loaded.documents)


def _decodes(value: object) -> bool:
    """``Unstructured.UnmarshalJSON`` accepts the document: an object whose ``kind`` is a non-empty
    string (``apiVersion`` may be missing: that fails later, at the API server)."""
    if not isinstance(value, Map):
        return False
    kind = value.get("kind")
    return isinstance(kind, str) and kind != ""

