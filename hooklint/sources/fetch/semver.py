"""Semantic versions and version constraints as Argo CD resolves a chart's ``targetRevision``.

Argo CD (``util/versions/tags.go`` ``MaxVersion``, ``reposerver/repository/repository.go``
``newHelmClientResolveRevision``, v3.5.1) reads versions and constraints with
``github.com/Masterminds/semver/v3`` v3.4.0 (``version.go``, ``constraints.go``); this module is a
port of the parts it uses:

- :func:`parse_version` is ``NewVersion`` with ``CoerceNewVersion`` (the default): ``v1.2``, ``1``,
  ``01.2.3`` are versions; a pre-release or build part must be well formed.
- :func:`parse_constraint` is ``NewConstraint``: ``||`` alternatives of comma- or space-separated
  comparisons (``=``, ``!=``, ``>``, ``<``, ``>=``, ``=>``, ``<=``, ``=<``, ``~``, ``~>``, ``^``), ``x``,
  ``X`` and ``*`` wildcards, hyphen ranges (``1.2 - 1.4.5``); a version with a pre-release matches
  only an alternative that names a pre-release itself.
- :func:`max_version` is ``MaxVersion``: an exact version is a pin returned as written; a
  constraint picks the highest tag that satisfies it; anything else must be one of the tags.
- :func:`index_get` is how Helm (``pkg/repo/index.go`` ``IndexFile.Get``) then picks the chart
  version of a repository index for a pinned ``--version``: the entry spelled exactly so, else the
  highest entry the version read as a constraint admits (``1.2`` admits ``1.2.7``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

_NUM = "0123456789"
_ALLOWED = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + _NUM)
_LOOSE = re.compile(r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
                    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$")  # fmt: skip
_CV = (r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
       r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?")  # fmt: skip
#: The operators (Masterminds' ``opsfound`` without its empty one: an operator is optional where it
#: stands, ``(?:OP\s*)?``). Masterminds' expressions are Go's (RE2, linear); as Python's, their empty
#: operator between ``\s*`` and ``\s*``, and ``\s*`` then ``\s+`` around a repeated group, cost the
#: square of a run of spaces and the power of its number of separators (``1  1  1 ... !`` of 60
#: characters ran for minutes). These take the same texts in linear time.
_OPS = r"=|!=|>|<|>=|=>|<=|=<|~|~>|\^"
_CONSTRAINT = re.compile(rf"^\s*(?:({_OPS})\s*)?({_CV})\s*$")
_RANGE = re.compile(rf"\s*({_CV})\s+-\s+({_CV})\s*")
_FIND = re.compile(rf"(?:({_OPS})\s*)?({_CV})")
_VALID = re.compile(rf"^\s*(?:(?:{_OPS})\s*)?{_CV}(?:\s*,\s*(?:(?:{_OPS})\s*)?{_CV}|\s+(?:(?:{_OPS})\s*)?{_CV})*\s*$")
#: The longest constraint read (``_RANGE`` still costs the square of a run of version characters).
MAX_CONSTRAINT = 256
_UINT64 = 1 << 64


@dataclass(frozen=True, slots=True)
class Version:
    """A version: ``major.minor.patch``, pre-release (``""`` when none) and the text it was read from."""

    major: int
    minor: int
    patch: int
    pre: str = ""
    original: str = ""

    def compare(self, other: "Version") -> int:
        """-1, 0 or 1 as ``Version.Compare``: build metadata is ignored, a pre-release sorts first."""
        for a, b in ((self.major, other.major), (self.minor, other.minor), (self.patch, other.patch)):
            if a != b:
                return -1 if a < b else 1
        if not self.pre and not other.pre:
            return 0
        if not self.pre:
            return 1
        if not other.pre:
            return -1
        return _compare_prerelease(self.pre, other.pre)


def _uint(text: str) -> int | None:
    """Go's ``strconv.ParseUint(text, 10, 64)`` (Masterminds semver ``NewVersion``): ASCII digits
    within uint64, else None (never ``int()`` of more digits than uint64 holds: Python refuses
    4,300)."""
    if not text or not text.isascii() or not text.isdigit() or len(text.lstrip("0")) > 20:
        return None
    value = int(text)
    return value if value < _UINT64 else None


def _valid_parts(text: str, prerelease: bool) -> bool:
    for part in text.split("."):
        if part == "" or not set(part) <= _ALLOWED:
            return False
        if prerelease and part.isdigit() and len(part) > 1 and part[0] == "0":
            return False
    return True


def parse_version(text: str) -> Version | None:
    """``text`` as a version (``NewVersion`` with leading zeros coerced), or None when it is none."""
    match = _LOOSE.match(text)
    if match is None or "\n" in text:
        return None
    numbers = [_uint(match.group(1)), _uint((match.group(2) or ".0")[1:]), _uint((match.group(3) or ".0")[1:])]
    if any(n is None for n in numbers):
        return None
    pre, meta = match.group(5) or "", match.group(8) or ""
    if (pre and not _valid_parts(pre, True)) or (meta and not _valid_parts(meta, False)):
        return None
    major, minor, patch = (int(n or 0) for n in numbers)
    return Version(major, minor, patch, pre, text)


def _compare_part(s: str, o: str) -> int:
    if s == o:
        return 0
    if s == "":
        return -1
    if o == "":
        return 1
    si, oi = _uint(s), _uint(o)
    if si is None and oi is None:
        return 1 if s > o else -1
    if oi is None:  # s a number, o a string
        return -1
    if si is None:
        return 1
    return 1 if si > oi else -1


def _compare_prerelease(v: str, o: str) -> int:
    sparts, oparts = v.split("."), o.split(".")
    for i in range(max(len(sparts), len(oparts))):
        d = _compare_part(sparts[i] if i < len(sparts) else "", oparts[i] if i < len(oparts) else "")
        if d:
            return d
    return 0


@dataclass(frozen=True, slots=True)
class _Comparison:
    op: str
    con: Version
    dirty: bool
    minor_dirty: bool
    patch_dirty: bool


def _is_x(text: str) -> bool:
    return text in ("x", "X", "*")


def _comparison(text: str) -> _Comparison | None:
    if not text:  # an empty alternative is * (>=0.0.0)
        return _Comparison("", Version(0, 0, 0, "", "0.0.0"), True, False, False)
    m = _CONSTRAINT.match(text)
    if m is None:
        return None
    op, major, minor, patch, pre = m.group(1) or "", m.group(3), m.group(4) or "", m.group(5) or "", m.group(6) or ""
    dirty = minor_dirty = patch_dirty = False
    if _is_x(major):
        version, dirty = f"0.0.0{pre}", True
    elif _is_x(minor[1:]) or minor == "":
        version, dirty, minor_dirty = f"{major}.0.0{pre}", True, True
    elif _is_x(patch[1:]) or patch == "":
        version, dirty, patch_dirty = f"{major}{minor}.0{pre}", True, True
    else:
        version = m.group(2)
    con = parse_version(version)
    if con is None:
        return None
    return _Comparison(op, con, dirty, minor_dirty, patch_dirty)


def _tilde(v: Version, c: _Comparison) -> bool:
    if v.compare(c.con) < 0:
        return False
    if (c.con.major, c.con.minor, c.con.patch) == (0, 0, 0) and not c.minor_dirty and not c.patch_dirty:
        return True
    return v.major == c.con.major and (v.minor == c.con.minor or c.minor_dirty)


def _caret(v: Version, c: _Comparison) -> bool:
    if v.compare(c.con) < 0:
        return False
    if c.con.major > 0 or c.minor_dirty:
        return v.major == c.con.major
    if v.major > 0:
        return False
    if c.con.minor > 0 or c.patch_dirty:
        return v.minor == c.con.minor
    if v.minor > 0:
        return False
    return v.patch == c.con.patch


def _not_equal(v: Version, c: _Comparison) -> bool:
    if c.dirty:
        if c.con.major != v.major:
            return True
        if c.con.minor != v.minor and not c.minor_dirty:
            return True
        if c.minor_dirty:
            return False
        if c.con.patch != v.patch and not c.patch_dirty:
            return True
        if c.patch_dirty:
            if v.pre or c.con.pre:
                return _compare_prerelease(v.pre, c.con.pre) != 0
            return False
    return v.compare(c.con) != 0


def _greater(v: Version, c: _Comparison) -> bool:
    if not c.dirty:
        return v.compare(c.con) == 1
    if v.major != c.con.major:
        return v.major > c.con.major
    if c.minor_dirty:
        return False
    if c.patch_dirty:
        return v.minor > c.con.minor
    return v.compare(c.con) == 1


def _less_equal(v: Version, c: _Comparison) -> bool:
    if not c.dirty:
        return v.compare(c.con) <= 0
    if v.major > c.con.major:
        return False
    return not (v.major == c.con.major and v.minor > c.con.minor and not c.minor_dirty)


_CHECKS: dict[str, Callable[[Version, _Comparison], bool]] = {
    "": lambda v, c: _tilde(v, c) if c.dirty else v.compare(c.con) == 0,
    "!=": _not_equal,
    ">": _greater,
    "<": lambda v, c: v.compare(c.con) < 0,
    ">=": lambda v, c: v.compare(c.con) >= 0,
    "<=": _less_equal,
    "~": _tilde,
    "^": _caret,
}
_CHECKS.update({"=": _CHECKS[""], "=>": _CHECKS[">="], "=<": _CHECKS["<="], "~>": _CHECKS["~"]})


@dataclass(frozen=True, slots=True)
class Constraint:
    """``||`` alternatives, each a list of comparisons that must all hold, and whether each names a
    pre-release (then it admits pre-releases)."""

    alternatives: tuple[tuple[_Comparison, ...], ...]
    with_pre: tuple[bool, ...]

    def check(self, v: Version) -> bool:
        """Whether ``v`` satisfies the constraint (``Constraints.Check``)."""
        for group, pre in zip(self.alternatives, self.with_pre):
            if v.pre and not pre:
                continue
            if all(_CHECKS[c.op](v, c) for c in group):
                return True
        return False


def parse_constraint(text: str) -> Constraint | None:
    """``text`` as a constraint (``NewConstraint``), or None when it is none (or longer than
    :data:`MAX_CONSTRAINT` characters: no chart's ``targetRevision`` is)."""
    if len(text) > MAX_CONSTRAINT:
        return None
    for m in list(_RANGE.finditer(text)):
        text = text.replace(m.group(0), f">= {m.group(1)}, <= {m.group(11)} ", 1)
    groups, pres = [], []
    for part in text.split("||"):
        if not _VALID.match(part):
            return None
        found = [m.group(0) for m in _FIND.finditer(part)] or [part]
        comparisons = [_comparison(s) for s in found]
        if any(c is None for c in comparisons):
            return None
        kept = tuple(c for c in comparisons if c is not None)
        groups.append(kept)
        pres.append(any(c.con.pre for c in kept))
    return Constraint(tuple(groups), tuple(pres))


class ResolveError(ValueError):
    """A ``targetRevision`` no version answers; the message is one line."""


def max_version(revision: str, tags: Iterable[str]) -> str:
    """The version ``revision`` names among ``tags`` (``MaxVersion`` with no tag prefix): ``revision``
    itself when it is a version (a pin: ``1.2`` stays ``1.2``); the highest tag satisfying it when it
    is a constraint (tags that are no version are skipped); else ``revision`` when it is one of the
    tags. Raises :class:`ResolveError`."""
    tags = list(tags)
    if parse_version(revision) is not None:
        return revision
    constraint = parse_constraint(revision)
    if constraint is None:
        if revision in tags:
            return revision
        raise ResolveError(f"{revision!r} is neither a version, a semver constraint nor one of the {len(tags)} versions")
    best: Version | None = None
    for tag in tags:
        v = parse_version(tag)
        if v is not None and constraint.check(v) and (best is None or v.compare(best) > 0):
            best = v
    if best is None:
        raise ResolveError(f"no version matching the constraint {revision!r} among {len(tags)} versions")
    return best.original


def index_get(version: str, versions: Iterable[str]) -> str | None:
    """The entry of ``versions`` (an index's versions of one chart) Helm pulls for ``--version
    VERSION`` (``IndexFile.Get``): the one spelled ``version``, else the highest that ``version``
    read as a constraint admits; None when none does."""
    versions = list(versions)
    if version in versions:
        return version
    constraint = parse_constraint(version)
    if constraint is None:
        return None
    admitted = [(v, text) for text in versions if (v := parse_version(text)) is not None and constraint.check(v)]
    if not admitted:
        return None
    best = admitted[0]
    for candidate in admitted[1:]:
        if candidate[0].compare(best[0]) > 0:
            best = candidate
    return best[1]
