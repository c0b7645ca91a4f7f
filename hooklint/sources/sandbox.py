"""Where renderers are found and the environment they run in: never a program of the repository,
never the network, never a cluster.

Finding a program (:func:`find_program`): hooklint looks through ``PATH`` itself, as the shell
would, but only through absolute folders that exist and lie outside the repository being linted
(resolved with ``os.path.realpath``, so a symbolic link into the repository counts as inside). An
empty element (``PATH=:/usr/bin``, a common mistake), ``.`` and every relative element would make
the shell look in the current directory, usually the repository's checkout, and are skipped; so is
a program whose resolved file lies inside the repository. The program is then run by its absolute
path, and the ``PATH`` it sees (:func:`program_path`) holds the same folders only.

The child's environment (:func:`child_environment`) is built from nothing: ``PATH`` as above, a
temporary ``HOME`` (and XDG folders) under hooklint's temporary folder, ``KUBECONFIG`` naming a
kubeconfig written there whose only cluster is ``https://127.0.0.1:0`` (kubectl and some kubectl
builds, such as Google's ``kubectl-dispatcher``, ask a cluster for its version on every command,
``http://localhost:8080`` when no kubeconfig names one; port 0 cannot be listened on, so the
attempt ends in the kernel), git allowed no protocol, and no proxy variable at all: Go's HTTP
client never sends a request for a loopback address to a proxy, so a proxy pointing at a closed
local port protects nothing and would itself be a connection to a local port.

Where the kernel allows it (unprivileged user namespaces; :func:`network_isolation`), the renderer
also runs in a network namespace of its own (``unshare --net --map-root-user``): it has no network
interface but a loopback that is down, and cannot reach this machine's loopback either. hooklint
does not rely on it: remote entries are refused before anything runs, whatever the namespace.
"""

from __future__ import annotations

import functools
import os
import stat
import subprocess

from hooklint.loader import within

#: Written to the child's ``KUBECONFIG``: a cluster no request can reach (see the module docstring).
NO_CLUSTER_KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters:
- name: hooklint-no-cluster
  cluster:
    server: https://127.0.0.1:0
contexts:
- name: hooklint-no-cluster
  context:
    cluster: hooklint-no-cluster
current-context: hooklint-no-cluster
users: []
"""


#: Folders of untrusted content besides the one being rendered, as resolved paths: the work tree
#: of ``hooklint diff``, whose revisions are rendered from temporary checkouts elsewhere (a
#: ``PATH`` element inside the work tree must not be taken because the checkout is not there).
_UNTRUSTED: set[str] = set()


#: What :func:`program_dirs` and :func:`find_program` answered in this run, by their question
#: (``PATH``, the repository, the distrusted folders): every render asks them again, and each
#: answer costs a ``realpath`` of every ``PATH`` element (thousands of ``lstat`` calls per run).
_DIRS: dict[tuple, list[str]] = {}
_FOUND: dict[tuple, "str | None"] = {}
#: (name, PATH, repository) -> what :func:`refused_programs` found, for the run (every kustomization
#: that cannot render says it: each asked the file system of every PATH element again)
_REFUSED: dict[tuple, list[str]] = {}


def forget() -> None:
    """Forget the programs found: the start of a run (:func:`hooklint.sources.repository.facts.reset`),
    so a program installed or removed since is seen."""
    _DIRS.clear()
    _FOUND.clear()
    _REFUSED.clear()


def distrust(folder: str) -> None:
    """Never take a program from inside ``folder`` (by resolved path) for the rest of the run."""
    _UNTRUSTED.add(os.path.realpath(folder))
    forget()


def _untrusted(real: str, real_repository: str | None) -> bool:
    roots = [*_UNTRUSTED, *([real_repository] if real_repository else [])]
    return any(within(real, root) for root in roots)


def program_dirs(repository: str | None = None) -> list[str]:
    """The folders of ``PATH`` a program may be taken from, in order, without repeats: absolute
    ones that exist, none of which resolves (``os.path.realpath``) inside ``repository`` (a folder;
    None: no repository to avoid) or a folder :func:`distrust` named. Empty, ``.`` and relative
    elements are skipped."""
    question = (os.environ.get("PATH", os.defpath), repository)
    known = _DIRS.get(question)
    if known is not None:
        return list(known)
    real_repository = os.path.realpath(repository) if repository else None
    found: list[str] = []
    for element in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not element or not os.path.isabs(element) or element in found:
            continue
        real = os.path.realpath(element)
        if not os.path.isdir(real) or _untrusted(real, real_repository):
            continue
        found.append(element)
    _DIRS[question] = found
    return list(found)


def program_path(repository: str | None = None) -> str:
    """The ``PATH`` a renderer runs with: :func:`program_dirs` joined."""
    return os.pathsep.join(program_dirs(repository))


def find_program(name: str, repository: str | None = None) -> str | None:
    """The absolute path of the executable ``name`` in :func:`program_dirs` (first match), or
    None. A match whose resolved file lies inside ``repository`` is skipped, and so is anything
    but an executable regular file."""
    if not name or os.sep in name:
        return None
    question = (name, os.environ.get("PATH", os.defpath), repository)
    if question not in _FOUND:
        _FOUND[question] = _find_program(name, repository)
    return _FOUND[question]


def _find_program(name: str, repository: str | None) -> str | None:
    real_repository = os.path.realpath(repository) if repository else None
    for folder in program_dirs(repository):
        candidate = os.path.join(folder, name)
        real = os.path.realpath(candidate)
        if _untrusted(real, real_repository):
            continue
        try:
            info = os.stat(real)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and os.access(real, os.X_OK):
            return candidate
    return None


def refused_programs(name: str, repository: str | None) -> list[str]:
    """The ``name`` programs ``PATH`` would have given the shell that hooklint will not run (in an
    empty, ``.`` or relative element, or resolving inside ``repository``), as spelled in ``PATH``:
    for the message saying why no renderer was found."""
    question = (name, os.environ.get("PATH", os.defpath), repository)
    if question not in _REFUSED:
        _REFUSED[question] = _refused_programs(name, repository)
    return list(_REFUSED[question])


def _refused_programs(name: str, repository: str | None) -> list[str]:
    kept = set(program_dirs(repository))
    real_repository = os.path.realpath(repository) if repository else None
    found: list[str] = []
    for element in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(element or ".", name)
        if candidate in found or not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            continue
        inside = real_repository is not None and within(os.path.realpath(candidate), real_repository)
        if element not in kept or inside:
            found.append(candidate)
    return found


def child_environment(home: str, repository: str | None = None) -> dict[str, str]:
    """The whole environment of a renderer run with the temporary folder ``home`` (created if
    missing; the kubeconfig is written there): see the module docstring. No variable of hooklint's
    own environment passes but ``PATH`` (filtered) and the locale."""
    os.makedirs(home, exist_ok=True)
    kubeconfig = os.path.join(home, "kubeconfig")
    if not os.path.exists(kubeconfig):
        with open(kubeconfig, "w", encoding="utf-8") as handle:
            handle.write(NO_CLUSTER_KUBECONFIG)
    env = {
        "PATH": program_path(repository),
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
        "KUBECONFIG": kubeconfig,
        "KUSTOMIZE_PLUGIN_HOME": os.path.join(home, "kustomize-plugins"),
        "GIT_ALLOW_PROTOCOL": "",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    for name in ("LANG", "LC_ALL", "TZ"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def network_isolation(repository: str | None = None) -> tuple[str, ...]:
    """The argv prefix that runs a program in a network namespace of its own
    (``(<unshare>, "--net", "--map-root-user", "--")``, ``unshare`` found as any renderer is, never
    in ``repository``), or ``()`` when ``unshare`` is missing or the kernel refuses unprivileged
    user namespaces (checked once per process by running it).
    ``HOOKLINT_NO_NETNS=1`` turns it off (the tests of the environment alone)."""
    if os.environ.get("HOOKLINT_NO_NETNS"):
        return ()
    unshare = find_program("unshare", repository)
    return () if unshare is None else _isolation(unshare)


@functools.lru_cache(maxsize=4)
def _isolation(unshare: str) -> tuple[str, ...]:
    prefix = (unshare, "--net", "--map-root-user", "--")
    try:
        done = subprocess.run([*prefix, unshare, "--version"], capture_output=True, timeout=10,
                              env={"PATH": ""}, stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ()
    return prefix if done.returncode == 0 else ()
