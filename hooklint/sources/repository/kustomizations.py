"""What a kustomization says about the repository's files, read as kustomize reads it: whether it is
a Component, the folders it builds on, the files it reads as patches and generator inputs, and
every path a build of it reads (so files it never reads are not taken for applied manifests), and
which ``kustomize.components`` entries of an Application Argo CD keeps under
``ignoreMissingComponents`` (:func:`component_exists`).

Each kustomization is read once per version of the file, as kustomize reads it
(:func:`hooklint.sources.repository.kustomize_spec.read_kustomization`: the first document, typed as
go-yaml v2 types it), and never when it lies outside the repository.
"""

from __future__ import annotations

import functools
import os

from hooklint.config import DEFAULT_MAX_FILE_SIZE
from hooklint.files import read_bytes
from hooklint.loader import within
from hooklint.reasons import Skip, SkipKind
from hooklint.sources.repository import facts
from hooklint.sources.repository.tree import KUSTOMIZE, inside_repository, source_type


#: Kustomization fields whose files are patches, generator inputs or configuration, never
#: manifests applied as written (``resources``, ``bases`` and ``components`` are left out: their
#: files are manifests or kustomizations).
_INPUT_FIELDS = ("patches", "patchesStrategicMerge", "patchesJson6902", "replacements", "configMapGenerator",
                 "secretGenerator", "crds", "configurations", "openapi", "transformers", "generators", "validators")


def _read_kustomization(kustomization: str) -> dict:
    """The mapping ``kustomization`` holds; empty when it cannot be read or parsed, or is no mapping."""
    return _load_kustomization(kustomization) or {}


def _load_kustomization(kustomization: str) -> dict | None:
    """The mapping ``kustomization`` holds (empty for an empty file), or None when it cannot be read
    or parsed, or holds something else. Parsed once per version of the file: discovery asks of
    each kustomization whether it is a Component, what it builds on and what it reads (answered
    once per run: :func:`hooklint.sources.repository.facts.memo`)."""
    known = facts.memo("kustomizations")
    if kustomization in known:
        return known[kustomization]
    try:
        info = facts.stat(kustomization)
    except OSError:
        found = None
    else:
        # its render is HL007 when it leads out of the repository; never read it here
        found = (_parse_kustomization(os.path.abspath(kustomization), info.st_mtime_ns, info.st_size)
                 if inside_repository(kustomization, kustomization) else None)
    known[kustomization] = found
    return found


@functools.lru_cache(maxsize=4096)
def _parse_kustomization(path: str, mtime_ns: int, size: int) -> dict | None:
    """:func:`_load_kustomization` for the file at ``path`` as of ``mtime_ns`` and ``size`` (the
    cache key: a file changed since is parsed again). The mapping is shared: callers only read it."""
    import yaml  # noqa: PLC0415 - only when a run has kustomizations

    from hooklint.loader import FileRejected, decode_manifest  # noqa: PLC0415
    from hooklint.sources.repository.kustomize_spec import Unreadable, canonical, read_kustomization  # noqa: PLC0415

    try:  # as kustomize reads it: the first document, typed as go-yaml v2 types it
        config = read_kustomization(decode_manifest(read_bytes(path, DEFAULT_MAX_FILE_SIZE))).value
    except (OSError, FileRejected, Unreadable, yaml.YAMLError):
        return None  # its render says what is wrong (HL007)
    return canonical(config)  # the keys kustomize reads, in any case (Resources: is resources:)


def is_component(kustomization: str) -> bool:
    """Whether ``kustomization`` is a kustomize Component (``kind: Component``, apiVersion
    ``kustomize.config.k8s.io/v1alpha1``): a set of resources and patches that kustomize applies
    only inside a kustomization that lists its folder under ``components`` (or an Argo CD
    Application under ``spec.source.kustomize.components``). Its patches usually target objects of
    that kustomization, so it rarely builds on its own, and Argo CD's directory walk never takes it
    for an application by itself."""
    return _read_kustomization(kustomization).get("kind") == "Component"


def kustomization_references(kustomization: str) -> list[tuple[str, str]]:
    """The local folders ``kustomization`` builds on, as ``(field, absolute folder)`` for each
    ``resources``, ``bases`` and ``components`` entry that names an existing folder, in order.
    Remote entries, files and missing paths are left out (the render reports them)."""
    config = _read_kustomization(kustomization)
    folder = os.path.dirname(os.path.abspath(kustomization))
    found = []
    for field_name in ("resources", "bases", "components"):
        entries = config.get(field_name)
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, str) and entry and "\n" not in entry and "://" not in entry:
                target = os.path.normpath(os.path.join(folder, entry))
                if inside_repository(target, kustomization) and facts.is_dir(target):
                    found.append((field_name, target))
    return found


def kustomization_inputs(kustomization: str) -> dict[str, str]:
    """The files ``kustomization`` reads other than as resources, as ``{absolute path: field}``
    (a patch file, a generator's ``files``/``envs``, a transformer configuration). A kustomization
    that cannot be read or parsed reads none."""
    config = _read_kustomization(kustomization)
    folder = os.path.dirname(os.path.abspath(kustomization))
    found: dict[str, str] = {}

    def add(entry: object, field_name: str) -> None:
        if isinstance(entry, str) and entry and "\n" not in entry and "://" not in entry:
            found.setdefault(os.path.normpath(os.path.join(folder, entry.partition("=")[2] or entry)), field_name)

    for field_name in _INPUT_FIELDS:
        value = config.get(field_name)
        items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
        for item in items:
            if isinstance(item, str):
                add(item, field_name)
            elif isinstance(item, dict):
                add(item.get("path"), field_name)
                for key in ("files", "envs"):
                    sources = item.get(key)
                    for source in sources if isinstance(sources, list) else []:  # kustomize refuses others
                        add(source, field_name)
                add(item.get("env"), field_name)
    return found


#: At most this many kustomizations are read following one application's bases and components.
MAX_KUSTOMIZATIONS_FOLLOWED = 1000


def kustomization_reads(kustomization: str) -> set[str] | None:
    """The absolute paths a build of ``kustomization`` reads from the repository: itself, the files
    and folders its ``resources``, ``bases`` and ``components`` name (folders followed through
    their kustomizations), and its patches, generator inputs and configurations. kustomize renders
    nothing else, so Argo CD applies nothing else from there. None when that cannot be told: a
    kustomization on the way that cannot be read or parsed (then any file may be read), one on a
    cycle (kustomize refuses it), or more than :data:`MAX_KUSTOMIZATIONS_FOLLOWED` of them on the
    way not answered before (attacker trial 48, F3: an overlay listing 1,000 kustomizations before
    its base was judged not to build the base). The answer of each kustomization on the way is kept
    for the run (trial 48, F7: 3,000 overlays of one chain of 998 walked it 3,000 times, 2 minutes
    for a pre-commit of an unrelated file)."""
    known = facts.memo("kustomization_reads")
    root = os.path.abspath(kustomization)
    if root not in known:
        graph = _kustomization_graph(root, known)
        if graph is None:
            known[root] = None
        else:
            _close(root, graph, known)
    answer = known[root]
    return None if answer is None else set(answer)  # the caller's own: the kept one stays as is


def _kustomization_graph(root: str, known: dict) -> dict[str, tuple[set[str], list[str]] | None] | None:
    """The kustomizations reachable from ``root`` whose answer ``known`` does not keep: each one's own
    reads and the kustomizations it builds on (None: it cannot be read or parsed); None past
    :data:`MAX_KUSTOMIZATIONS_FOLLOWED` of them."""
    graph: dict[str, tuple[set[str], list[str]] | None] = {}
    own = facts.memo("kustomization_own")  # kept for resolved_reads
    todo = [root]
    while todo:
        current = todo.pop()
        if current in graph or current in known:
            continue
        if len(graph) >= MAX_KUSTOMIZATIONS_FOLLOWED:
            return None
        config = _load_kustomization(current)
        if config is None:
            graph[current] = None
            continue
        reads, children = {current}, []
        folder = os.path.dirname(current)
        for field_name in ("resources", "bases", "components"):
            entries = config.get(field_name)
            for entry in entries if isinstance(entries, list) else []:
                if not isinstance(entry, str) or not entry or "\n" in entry or "://" in entry:
                    continue
                target = os.path.normpath(os.path.join(folder, entry))
                reads.add(target)
                if not inside_repository(target, current):
                    continue  # the render refuses it; never read outside the repository
                kind, found = source_type(target) if facts.is_dir(target) else (None, None)
                if kind == KUSTOMIZE and found is not None:
                    children.append(os.path.abspath(found))
        reads.update(kustomization_inputs(current))
        graph[current] = own[current] = (reads, children)
        todo.extend(children)
    return graph


def resolved_reads(kustomization: str) -> set[str] | None:
    """:func:`kustomization_reads` with each path resolved (``os.path.realpath``, links followed:
    how a file named is matched with what a kustomization builds), kept per run for each
    kustomization on the way, so that overlays sharing a chain resolve its paths once (attacker
    trial 48, F7). None when that cannot be told."""
    root = os.path.abspath(kustomization)
    if kustomization_reads(root) is None:  # every one on its way is then answered, and kept in "kustomization_own"
        return None
    known, own = facts.memo("kustomization_resolved"), facts.memo("kustomization_own")
    stack = [root]
    while stack:
        node = stack[-1]
        if node in known:
            stack.pop()
            continue
        reads, children = own[node]
        waiting = [c for c in children if c not in known]
        if waiting:
            stack.extend(waiting)
            continue
        known[node] = {facts.realpath(p) for p in reads}.union(*(known[c] for c in children))
        stack.pop()
    return known[root]


def _close(root: str, graph: dict[str, tuple[set[str], list[str]] | None], known: dict) -> None:
    """Keep in ``known`` the answer of ``root`` and of each kustomization of ``graph`` on its way:
    its own reads and those of every one it builds on, children first (no recursion: a chain may be
    a thousand deep); None for one that cannot be read, is on a cycle, or builds on such a one."""
    stack, on_stack = [root], {root}
    while stack:
        node = stack[-1]
        entry = graph.get(node)
        if node in known or entry is None:
            known.setdefault(node, None)
            stack.pop()
            on_stack.discard(node)
            continue
        reads, children = entry
        waiting = next((c for c in children if c not in known), None)
        if waiting is not None and waiting not in on_stack:
            stack.append(waiting)
            on_stack.add(waiting)
            continue
        if waiting is not None or any(known[c] is None for c in children):  # on a cycle, or past one that cannot be told
            known[node] = None
        else:
            known[node] = reads.union(*(known[c] for c in children))
        stack.pop()
        on_stack.discard(node)


def unread_reason(kustomization: str) -> Skip:
    """Why a file beside (or under) ``kustomization`` that its build never reads is not linted."""
    return Skip(f"{kustomization} does not list it (resources, patches, generators): kustomize never renders it, "
                "so Argo CD never applies it", SkipKind.UNLISTED)


def component_exists(root: str, app_dir: str, component: str) -> bool:
    """Whether Argo CD keeps ``component`` (an entry of ``kustomize.components``) of the application
    folder ``app_dir`` of the repository ``root`` under ``ignoreMissingComponents`` (argo-cd
    ``util/kustomize/kustomize.go`` ``Build``, v3.5.1): ``filepath.Join(appPath, component)`` made
    relative to the checkout must ``Stat`` in an ``os.Root`` of it, so the entry is read literally
    (a glob pattern is kept only when a file of that very name exists), and one that leaves the
    repository, by ``..`` or through a symbolic link, is skipped like a missing one."""
    target = os.path.normpath(app_dir + os.sep + component)  # filepath.Join: an absolute entry stays below
    if not within(target, root):
        return False
    real = facts.realpath(target)
    return within(real, facts.realpath(root)) and os.path.exists(real)
