"""The repository's tree: the walk for manifest files, what kind of source a folder is, and
containment (whether a path stays inside its repository, links followed).

Argo CD renders inside its checkout of the repository and refuses a repository whose links lead out
of it (``reposerver/repository/repository.go``, "illegal filepath in symlink"); hooklint decides the
same question once per folder (:class:`Containment`, :func:`inside_repository`) and never opens a file
outside. How Argo CD tells a folder's source type is ``GetAppSourceType`` (``util/app/discovery``;
``shared/docs/argocd-rendering.md`` §1): :func:`source_type`.
"""

from __future__ import annotations

import os
import re
from typing import Iterable

from hooklint.findings import InputError, Span
from hooklint.files import bounds, linted, top_outside_git, walk_tree
from hooklint.loader import LoadedFile, os_error_text, parse_text, read_file, within
from hooklint.reasons import Skip, SkipKind
from hooklint.sources.repository import facts
from hooklint.sources.repository.git import git_root
from hooklint.sources.repository.spelling import rewritten
from hooklint.yamlio import NOT_RENDERED, RENDER_FAILED, LoadIssue


def repository_root(folder: str, named: str | None = None) -> str:
    """The repository ``folder`` belongs to, absolute: the nearest folder above it holding ``.git``;
    without one (:func:`hooklint.files.top_outside_git`), the outermost of the current directory
    (but ``/``) and ``named`` (the path named on the command line that brought ``folder`` in,
    however spelled: ``..``, ``.``, absolute, with a trailing slash) that ``folder`` is inside, else
    ``folder`` itself. So ``hooklint lint ..`` run
    from a subfolder renders the bases of the folder it names, and ``hooklint lint shop`` run above
    ``shop`` keeps the current directory. Every file a renderer may read must be inside it (Argo CD
    renders inside its checkout of the repository)."""
    here = os.path.abspath(folder)
    known, root = facts.known_root(here)  # found by this run's discovery, else asked now
    if not known:
        root = git_root(here)
    if root is not None:
        return root
    return top_outside_git(here, [named] if named is not None else [])


def read_in_repository(path: str, root: str, max_size: int, documents: bool = True) -> LoadedFile:
    """Read and parse ``path`` (:func:`hooklint.loader.read_file`) when it resolves
    (``os.path.realpath``, every link followed) inside the repository ``root``; else an empty file
    with one HL007 at 1:1 naming where it leads, its target never opened (Argo CD's repo server
    refuses the repository: ``reposerver/repository/repository.go``, "illegal filepath in symlink").
    The one way a kustomization, ``Chart.yaml`` or Application file is read before it renders.
    ``documents=False``: no document parsed (:func:`hooklint.loader.parse_text`)."""
    target = escaping_target(path, root)
    if target is None:
        return read_file(path, max_size, documents)
    return outside_repository(path, target)


def escaping_target(path: str, root: str) -> str | None:
    """Where ``path`` leads (its real path) when that is outside the repository ``root``; None when
    it stays inside or does not exist (a dangling link: the loader says so)."""
    if not os.path.lexists(path):
        return None
    real = facts.realpath(path)
    return None if within(real, facts.realpath(root)) else real


def folder_link_out(path: str) -> str | None:
    """Where the symbolic link to a folder ``path`` leads (its real path) when that is outside its
    repository (:func:`repository_root` of its folder), else None. Argo CD's repo server refuses a
    repository holding one before it renders anything (``util/app/path/path.go``
    ``CheckOutOfBoundsSymlinks``, called in ``reposerver/repository/repository.go``: "repository
    contains out-of-bounds symlinks"), though its walk of a directory source never follows it: the
    walk lists it as a file, which is HL007 where it is loaded (attacker trial 25, B16), never read."""
    return escaping_target(path, repository_root(os.path.dirname(path) or "."))


def outside_repository(path: str, target: str) -> LoadedFile:
    """The stand-in for a file of the repository that is a symbolic link (or lies below one) to
    ``target`` outside it: no content, one HL007 at 1:1; ``target`` is never read."""
    loaded = parse_text(path, "")
    loaded.issues.append((LoadIssue(RENDER_FAILED, Span.point(1, 1), f"{path} is a symbolic link to {target}, "
                                    "outside the repository (illegal filepath in symlink)"), 0))  # fmt: skip
    return loaded


MANIFEST_SUFFIXES = (".yaml", ".yml", ".json", ".jsonnet")


#: Argo CD evaluates ``*.jsonnet`` files of a directory source (``findManifests``); hooklint does
#: not run jsonnet, so it lists them as not linted, with this reason, when an Application of the
#: repository names their folder (HL009 at its source entry); else each is HL009 at the file
#: (:func:`jsonnet_not_evaluated`).
JSONNET_REASON = Skip("jsonnet: Argo CD evaluates it, hooklint does not (lint its output with `jsonnet FILE | hooklint lint -`)",
                      SkipKind.JSONNET)


def jsonnet_not_evaluated(path: str, folder: str, application: str | None, max_size: int) -> LoadedFile:
    """The stand-in for the jsonnet file ``path`` of the directory source ``folder``: no document,
    one HL009 at 1:1, for when no HL009 at an Application's source entry says it for the run: no
    Application of the repository names ``folder``, or ``application`` (its label, ``Application
    a (apps/a.yaml:9)``) does but the run does not name its file (pre-commit passes only the
    changed files). Argo CD evaluates the ``*.jsonnet`` files of a directory source and applies
    the objects they make (argo-cd v3.5.1 ``reposerver/repository/repository.go``
    ``findManifests``: ``manifestFile`` matches ``^.*\\.(yaml|yml|json|jsonnet)$``, then
    ``strings.HasSuffix(name, ".jsonnet")`` evaluates it with the source's ``jsonnet`` options; a
    ``*.libsonnet`` file is only imported), and an Application of another repository, or one with
    ``directory.recurse`` above it, may name the folder. hooklint never runs jsonnet, so the file
    fails closed (a warning, exit 1) instead of passing as a note.

    The finding's field is :func:`jsonnet_digest` of the file: ``diff`` counts a file the change
    adds or edits as new, and another file never matches it as a rename (a rename of the same
    bytes does not either: the path is hashed too). ``path`` must not lead out of the repository
    (the caller checks; Argo CD fails such a repository: HL007)."""
    loaded = parse_text(path, "")
    who = (f"{application} reads {folder} as a directory source, and Argo CD evaluates its *.jsonnet files"
           if application is not None else
           f"no Application of this repository names {folder}, but Argo CD evaluates the *.jsonnet files of a "
           "directory source (an Application of another repository may name this folder, or one with "
           "directory.recurse a folder above it)")  # fmt: skip
    detail = (f"{path} is jsonnet: {who} and applies the objects they make. hooklint does not run jsonnet, so those "
              f"objects, possibly hooks, were not checked; lint its output with `jsonnet {path} | hooklint lint -`")
    loaded.issues.append((LoadIssue(NOT_RENDERED, Span.point(1, 1), detail, jsonnet_digest([path], max_size)), 0))
    return loaded


def jsonnet_digest(paths: list[str], max_size: int) -> str:
    """The field of an HL009 about the jsonnet files ``paths`` (inside the repository): ``sha256:``
    and the first 16 hex digits of the SHA-256 over each path and its bytes, in order (a file that
    cannot be read, over ``max_size`` or not regular, counts by its path alone). What hooklint did
    not check is what they make, so an edit is another finding: ``diff`` counts it new."""
    import hashlib  # noqa: PLC0415 - only for jsonnet files

    from hooklint.files import read_bytes  # noqa: PLC0415

    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.encode("utf-8", "surrogatepass") + b"\0")
        try:
            digest.update(read_bytes(path, max_size))
        except OSError:  # NotRegularFile, FileTooLarge
            digest.update(b"\0unread")
    return "sha256:" + digest.hexdigest()[:16]


def is_manifest_name(name: str) -> bool:
    return name.lower().endswith(MANIFEST_SUFFIXES)


def dangling_link(path: str) -> str | None:
    """Where ``path`` points (as written in the link) when it is a symbolic link whose destination
    is missing, else None. Argo CD's directory source skips such a file with a warning
    ("destination of symlink %q is missing": ``reposerver/repository/repository.go``
    ``getPotentiallyValidManifestFile``; its test "symlink to nowhere should be ignored"). A link
    loop is not dangling: ``filepath.EvalSymlinks`` fails with another error, which fails the sync."""
    try:
        os.stat(path)
    except FileNotFoundError:
        try:
            return os.readlink(path)
        except OSError:
            return None
    except (OSError, ValueError):
        return None
    return None


def dangling_reason(target: str) -> Skip:
    """Why a dangling symbolic link to ``target`` found in a folder walk is not linted."""
    return Skip(f"a symbolic link to {target}, which does not exist: Argo CD skips it (destination of symlink is missing)",
                SkipKind.DANGLING_LINK)


HELM_CHART_FILE = "Chart.yaml"
DIRECTORY, KUSTOMIZE, HELM = "directory", "kustomize", "helm"


KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


#: An Argo CD Application source that cannot be rendered at all (its path is missing).
UNRENDERABLE = "unrenderable"


#: A folder an Argo CD Application renders with a config management plugin (``spec.source.plugin``),
#: which hooklint never runs: its files are listed as not linted.
PLUGIN = "plugin"


#: An Argo CD Application of several sources (``spec.sources``), linted as one application.
MULTI = "multi-source"


#: A source Argo CD's repo server fetches from elsewhere (a chart repository, an OCI registry,
#: another Git repository: :class:`~hooklint.sources.spec.RemoteSource`), which hooklint
#: names and does not render (issue 33): HL009 at its entry in the Application.
REMOTE = "remote"


def type_of_names(names: Iterable[str]) -> tuple[str, str | None]:
    """How Argo CD types a folder whose non-folder entries are ``names``: ``(HELM, "Chart.yaml")``,
    ``(KUSTOMIZE, the kustomization kustomize reads)`` or ``(DIRECTORY, None)``.

    Argo CD's ``discovery.Discover`` (``util/app/discovery/discovery.go``, v3.5.1, lines 50-69)
    ``filepath.Walk`` walks the folder, in lexical (byte) order, and for each file whose base name
    ends with ``Chart.yaml`` (``strings.HasSuffix``: ``old-Chart.yaml`` counts) sets the folder's
    type to Helm, then for one named ``kustomization.yaml``, ``kustomization.yml`` or
    ``Kustomization`` (``kustomize.IsKustomization``, exact and case-sensitive) to Kustomize: the
    LAST such name wins. So ``Chart.yaml`` + ``kustomization.yaml`` is Kustomize ('C' < 'k'), and
    with ``old-Chart.yaml`` as well, Helm ('o' > 'k'). A Helm folder is templated with ``helm
    template`` of the folder, which reads ``Chart.yaml`` (missing: the render fails); a kustomize
    one is built from the first of :data:`KUSTOMIZATION_NAMES` present (``findKustomizeFile``)."""
    kind = DIRECTORY
    present = set()
    # only the names that type the folder, in Go's os.ReadDir order (by the bytes of the name): a
    # folder of many files sorts a few names, not all of them
    typing = [n for n in names if n.endswith(HELM_CHART_FILE) or n in KUSTOMIZATION_NAMES]
    for name in sorted(typing, key=os.fsencode) if len(typing) > 1 else typing:
        if name.endswith(HELM_CHART_FILE):
            kind = HELM
        if name in KUSTOMIZATION_NAMES:
            kind = KUSTOMIZE
            present.add(name)
    if kind == HELM:
        return HELM, HELM_CHART_FILE
    if kind == KUSTOMIZE:
        return KUSTOMIZE, next(n for n in KUSTOMIZATION_NAMES if n in present)
    return DIRECTORY, None


def source_type(folder: str) -> tuple[str, str | None]:
    """How Argo CD renders ``folder`` (``GetAppSourceType``, ``reposerver/repository/repository.go``
    v3.5.1 line 1938, then ``discovery.AppType``: only the folder's own files, ``apps["."]``, decide;
    its subfolders never do): ``(KUSTOMIZE, its kustomization)``, ``(HELM, its Chart.yaml)`` or
    ``(DIRECTORY, None)``, by :func:`type_of_names` over its entries that are not folders (links not
    followed, as ``filepath.Walk`` looks at each entry with ``lstat``). The ``Chart.yaml`` of a Helm folder may be
    missing (typed Helm by ``old-Chart.yaml``): its render then fails, as Argo CD's does."""
    key = facts.absolute(folder)
    typed = facts.folder_type(key)  # each folder typed once per run (chart_of asks every folder above a file)
    if typed is None:
        typed = type_of_names(facts.entry_names(key) or ())
        facts.note_folder_type(key, typed)
    kind, name = typed
    return kind, os.path.join(folder, name) if name is not None else None


def chart_of(path: str) -> str | None:
    """The Helm chart folder ``path`` lies in (the nearest folder above it that Argo CD types Helm:
    :func:`source_type`), or None; folders are looked at up to the top of where the run reads
    (:func:`_top_above`), never above it. A chart's templates are not manifests: they are linted as
    part of their chart."""
    start = os.path.dirname(facts.absolute(path))  # absolute, and so is each folder above it
    cwd = os.getcwd()
    top = _top_above(start)
    known = facts.memo("chart_of")  # each folder's chart once per run (current folder and top)
    key = (start, cwd, top)
    if key not in known:
        folder, found = start, None
        while True:
            if source_type(folder)[0] == HELM:
                found = folder
                break
            parent = os.path.dirname(folder)
            if parent == folder or folder == top:
                break
            folder = parent
        known[key] = found
    found = known[key]
    if found is None or os.path.isabs(path):
        return found
    return os.path.normpath(os.path.relpath(found))


def _top_above(folder: str) -> str:
    """The highest folder a look upward from ``folder`` (absolute) may reach, absolute: its Git work
    tree's top; else the current folder when it holds ``folder``; else the outermost path the
    run lints (:func:`hooklint.files.linted`; a file's folder) that holds it; else ``folder``. So
    :func:`repository_root` with every linted path as ``named``, and the README's "outside Git, the
    current folder when it holds what is linted, else that path's folder": a folder above it
    (``/tmp``, anybody's to write) is never listed. Before, ``hooklint lint /tmp/q/r/job.yaml``
    from another folder linted a ``/tmp/q/Chart.yaml`` in the Job's place and passed."""
    root = facts.git_root_of(folder)
    if root is not None:
        return facts.absolute(root)
    return top_outside_git(folder, linted())


#: The subfolders of a chart that Helm reads as the chart's (``templates/``, subcharts in ``charts/``,
#: ``crds/``), and ``.git``: never listed as folders of manifests (:func:`walk`'s ``chart_found``).
CHART_OWN_FOLDERS = frozenset({"templates", "charts", "crds", ".git"})


def walk(root: str, errors: list[InputError], notices: list[str] | None = None, hidden: bool = False,
         hidden_found: list[str] | None = None, chart_found: list[str] | None = None) -> list[str]:
    """Manifest files below ``root`` (``*.yaml``, ``*.yml``, ``*.json``), sorted. Hidden files are
    included: Argo CD's ``filepath.Walk`` in ``findManifests`` reads them. Hidden folders below
    ``root`` (``.git``, ``.github``, ``.venv``) are not walked: no application path points into
    them in practice, and tool folders hold YAML that no sync applies; name one to lint it. With
    ``hidden`` (a directory source with ``recurse``, whose walk Argo CD does not prune by name:
    ``getPotentiallyValidManifests``, v3.5.1) they are, but ``.git``.
    Symbolic links to folders are not followed, but one leading out of the repository is listed like
    a file (:func:`folder_link_out`); dangling links to files are listed like any file
    (:func:`group_applications` leaves them out). Unreadable folders are added to ``errors``. A folder Argo CD types Helm
    (:func:`type_of_names`: the last of its names ending in ``Chart.yaml`` or naming a kustomization
    ends in ``Chart.yaml``) is a Helm chart, which Argo CD renders with Helm: its ``Chart.yaml``
    stands for it (even when missing: the render says so), and its subfolders (templates) are not walked.
    ``hidden_found``, when given, receives each hidden folder left unwalked (``.git`` aside) that
    lies in a folder holding manifest files (not hidden ones) or below one: a recursive directory
    Application of that folder would apply what it holds (:func:`hidden_manifests`). ``chart_found``,
    when given, receives each subfolder of a Helm chart but the chart's own ``templates``,
    ``charts`` and ``crds`` (and ``.git``): a directory Application whose path is that folder
    applies its files (``chart/hooks``: :func:`directory_source_files`; attacker trial 9, F13)."""

    def onerror(exc: OSError) -> None:
        where = exc.filename or root
        errors.append(InputError(where, os_error_text(where, exc)))

    found: list[str] = []
    links: dict[str, bool] = {}
    in_tree: set[str] = set()  # folders holding manifest files, and those below them
    for folder, dirs, files in walk_tree(root, onerror=onerror, links=links):
        if hidden_found is not None and (os.path.dirname(folder) in in_tree
                                         or any(is_manifest_name(n) and not n.startswith(".") for n in files)):
            in_tree.add(folder)
        linked = [d for d in dirs if links.get(os.path.join(folder, d))]  # a file to filepath.Walk (lstat)
        # a link to a folder out of the repository is listed as a file: its HL007 says where it leads
        found.extend(os.path.join(folder, d) for d in linked if folder_link_out(os.path.join(folder, d)) is not None)
        facts.note_names(folder, tuple(files + linked))  # source_type asks again: no second listing
        facts.note_listing(folder, dirs, files, links)  # realpath and git_root ask no lstat/stat of what it saw
        if type_of_names(files + linked)[0] == HELM:
            if chart_found is not None:
                chart_found.extend(os.path.join(folder, d) for d in sorted(dirs) if d not in CHART_OWN_FOLDERS)
            dirs[:] = []
            found.append(os.path.join(folder, HELM_CHART_FILE))
            continue
        if hidden_found is not None and folder in in_tree and not hidden:
            hidden_found.extend(os.path.join(folder, d) for d in sorted(dirs) if d.startswith(".") and d != ".git")
        dirs[:] = sorted(d for d in dirs if (hidden and d != ".git") or not d.startswith("."))
        for name in files:
            # and a kustomization named `Kustomization`, which makes its folder a kustomize source
            # (attacker trial 48, F1: a folder holding only it was no application, `lint .` passed)
            if is_manifest_name(name) or name in KUSTOMIZATION_NAMES:
                path = os.path.join(folder, name)
                found.append(path)
                if path in links:
                    facts.note_walked(path, links[path])
    found.sort()
    return found


def directory_source_files(folder: str, recurse: bool) -> list[str]:
    """The manifest files (:func:`is_manifest_name`) a directory source of ``folder`` reads, sorted,
    spelled like ``folder``: its own, and with ``recurse`` those of every folder below it, hidden
    folders included (``.git`` aside), links to folders not followed (``filepath.Walk``).

    Unlike :func:`walk`, a folder holding a ``Chart.yaml`` is no boundary: Argo CD's
    ``getPotentiallyValidManifests`` (``reposerver/repository/repository.go``, v3.5.1) walks the
    source's folder whatever it holds, so a directory source on a chart folder (an explicit
    ``directory:``: ``ApplicationSource.ExplicitType`` returns Directory whenever ``Directory`` is
    set) applies its plain manifest files (``Chart.yaml`` and ``values.yaml`` are YAML like any
    other; ``templates/`` only with ``recurse``), and one on a folder inside a chart
    (``chart/apps``, no ``Chart.yaml`` of its own: ``discovery.AppType`` looks at that folder only)
    applies what that folder holds (attacker trial 8, F10 and F11)."""
    found: list[str] = []
    for below, dirs, names in walk_tree(folder):
        dirs[:] = sorted(d for d in dirs if d != ".git") if recurse else []
        found.extend(os.path.join(below, n) for n in names if is_manifest_name(n))
    return sorted(found)


#: The most files :func:`hidden_manifests` looks at in one hidden folder (a ``.venv`` holds
#: thousands); the rest are counted in one reason, never read.
MAX_HIDDEN_FILES = 2000


def looks_like_object(data: bytes) -> bool:
    """Whether a file's bytes may hold a Kubernetes object: they may spell both ``apiVersion`` and
    ``kind`` once parsed: each word written as a whole scalar anywhere (``? kind # ...`` or an
    alias of a value may be the key), or an escape or tag that may make them
    (:func:`~hooklint.sources.repository.spelling.rewritten`). A CI workflow or a tool's settings
    rarely do."""
    return (_API_VERSION_WORD.search(data) is not None and _KIND_WORD.search(data) is not None) or rewritten(data)


#: The words as one scalar (YAML and JSON delimit a scalar by space, quotes, ``:``, ``,`` or brackets).
_API_VERSION_WORD = re.compile(rb"\bapiVersion\b")
_KIND_WORD = re.compile(rb"\bkind\b")


def hidden_manifests(folder: str, max_size: int) -> tuple[list[str], int]:
    """The manifest files (:func:`is_manifest_name`) below the hidden ``folder`` (``.git`` aside,
    links to folders not followed) that resolve inside their repository and look like Kubernetes
    objects (:func:`looks_like_object`; a file over ``max_size`` bytes is kept unread), sorted,
    and how many more were not looked at past :data:`MAX_HIDDEN_FILES`. Argo CD's directory source
    with ``recurse`` reads hidden folders (``getPotentiallyValidManifests``, v3.5.1: only
    ``!recurse`` skips a folder); hooklint walks them only for such an Application of the
    repository, or when named, so what they hold is listed as not linted instead."""
    names: list[str] = []
    for below, dirs, files in walk_tree(folder):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        names.extend(os.path.join(below, n) for n in sorted(files) if is_manifest_name(n))
    names.sort()
    looked, rest = names[:MAX_HIDDEN_FILES], len(names) - min(len(names), MAX_HIDDEN_FILES)
    found = []
    for path in contained(looked):
        data = facts.read_regular(path, max_size)
        if data is None and facts.is_file(path) or data is not None and looks_like_object(data):
            found.append(path)
    return found, rest


def _boundary_of(folder: str, cwd: str) -> str:
    """The resolved folder discovery may read in, for files of ``folder`` (absolute): the git
    repository holding it, else the current folder ``cwd`` when it holds ``folder`` (but ``/``:
    :func:`hooklint.files.bounds`), else
    ``folder`` itself. A render reads nothing outside its repository either. Asked of the run's
    memos (:mod:`~hooklint.sources.repository.facts`), never remembered past the run: the result
    cache's run entry keeps what a run asked of the file system (:func:`hooklint.results.observing`)."""
    root = facts.git_root_of(folder)  # the folders above are asked once per run
    if root is not None:
        return facts.realpath(root)
    return facts.realpath(cwd if bounds(cwd) and within(folder, cwd) else folder)


def repository_boundary(folder: str) -> str:
    """The resolved folder discovery and rendering may read in for files of ``folder``
    (:func:`_boundary_of`: its git repository, else the current folder when it holds ``folder``,
    else ``folder``): what decides which links lead out, so the result cache keys on it."""
    return _boundary_of(os.path.abspath(folder), os.getcwd())


def inside_repository(path: str, of: str) -> bool:
    """Whether ``path`` resolves (``os.path.realpath``, links followed) inside the repository of the
    file ``of`` (:func:`_boundary_of`): discovery follows and reads nothing else, so a link
    pointing out of the repository never makes hooklint open a file there."""
    boundary = _boundary_of(os.path.dirname(os.path.abspath(of)), os.getcwd())
    return within(facts.realpath(path), boundary)


class Containment:
    """Whether the files of one application lead out of its repository ``root`` through a symbolic
    link. Each folder's real path is found once: ``os.path.realpath`` checks every component of a
    path (the bench's 5,000 files in 1,070 folders made 8,500 calls, ~0.1 s)."""

    def __init__(self, root: str):
        self.root = facts.realpath(root)
        self._folders: dict[str, tuple[str, bool]] = {}  # folder -> (its real path, whether inside the root)

    def escaping(self, path: str) -> str | None:
        """Where ``path`` leads when it is, or passes through, a symbolic link out of the root; else None."""
        walked = facts.walked_regular(path)  # listed by this run's walk, not a link: it exists
        if not walked and not os.path.exists(path):  # dangling: the loader says so
            return None
        if not walked and os.path.islink(path):
            real = facts.realpath(path)
        else:  # the real path of its folder, then its own name
            folder, name = os.path.split(path)
            known = self._folders.get(folder)
            if known is None:
                real_folder = facts.realpath(folder)
                known = self._folders[folder] = (real_folder, within(real_folder, self.root))
            real_folder, folder_inside = known
            if walked and folder_inside:  # a file listed by the walk, not a link, in a folder inside
                return None
            real = os.path.join(real_folder, name)
        return None if within(real, self.root) else real


def contained(files: list[str]) -> list[str]:
    """The files of ``files`` that resolve inside their repository (:func:`_boundary_of`), in
    order: the only ones discovery opens."""
    cwd = os.getcwd()
    by_boundary: dict[str, Containment] = {}
    by_folder: dict[str, Containment] = {}  # each folder's boundary found once
    kept = []
    for path in files:
        folder, name = os.path.split(path)
        containment = by_folder.get(folder) if name not in ("", ".", "..") else None
        if containment is None:
            boundary = _boundary_of(os.path.dirname(os.path.abspath(path)), cwd)
            containment = by_boundary.get(boundary)
            if containment is None:
                containment = by_boundary[boundary] = Containment(boundary)
            by_folder[folder] = containment
        if containment.escaping(path) is None:
            kept.append(path)
    return kept
