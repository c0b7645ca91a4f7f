"""A Git source of another repository fetched at its revision, with nothing of it run.

Argo CD's repo server clones the repository and checks out the revision (``util/git/client.go``:
``Fetch``, ``Checkout``; a ``targetRevision`` that is a semver constraint picks the highest tag,
``versions.MaxVersion``). hooklint does the least that gives the same tree:

- ``git ls-remote`` names the commit (``HEAD`` for no revision, a branch or tag, a constraint over
  the tags, or a full commit id as given), then ``git fetch --depth 1`` of that commit into a new
  bare repository in the cache: no checkout, so no hook, filter, smudge, LFS or submodule runs;
- git runs with an environment and configuration built from nothing (no system or global
  configuration, ``HOME`` empty, no credential helper, no askpass, no proxy, redirects refused), the
  one protocol the remote needs allowed (``https``; ``http`` when the host is listed as
  ``http://``; ``file`` for a folder listed with ``--fetch-host file:///...``), and the host's
  address resolved and checked by hooklint and pinned with ``http.curloptResolve``;
- the tree is then written from ``git ls-tree -r -l`` and ``git cat-file --batch`` (sizes and the
  number of files checked against the budget first): regular files byte for byte, submodules left
  out, symbolic links placed as a checkout places them (their target as written) once every regular
  file is; a link that is absolute or whose target, followed on disk, leaves the fetched tree
  refuses the whole tree, as Argo CD refuses a repository with one (``reposerver/repository/repository.go``
  ``checkOutOfBoundsSymlinks``, ``util/io/path`` ``CheckOutOfBoundsSymlinks``): the source stays
  HL009, naming the link.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import tempfile
import urllib.parse

from hooklint.sources.fetch.archive import real_folders
from hooklint.sources.fetch.request import FetchPolicy, Fetched, RemoteSource, read_ref, ref_key, write_ref
from hooklint.sources.fetch.net import Budget, FetchError, check_address
from hooklint.sources.fetch.semver import ResolveError, max_version
from hooklint.sources.sandbox import find_program

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_MODES = {b"100644": 0o644, b"100664": 0o644, b"100755": 0o755}


def fetch_git(source: RemoteSource, policy: FetchPolicy) -> Fetched:
    """``source`` (kind ``git``) at its revision, its ``path`` inside the fetched tree. Raises
    :class:`FetchError`: a remote not listed, a revision not found, a path outside the tree, a limit."""
    budget = policy.budget()
    url, protocol, pin = _remote(source.repo_url, policy)
    revision = source.revision or "HEAD"
    pinned = bool(_COMMIT.match(revision))
    key = ref_key("git", url, revision)
    known = read_ref(policy, key, pinned)
    commit = str(known.get("commit", "")) if known else ""
    tree = os.path.join(policy.cache, "trees", f"git-{commit}") if _COMMIT.match(commit) else ""
    cached = bool(tree) and os.path.isdir(tree)
    if not cached:
        with tempfile.TemporaryDirectory(prefix=".git-", dir=_trees(policy), ignore_cleanup_errors=True) as bare:
            _run(["init", "--quiet", "--bare", bare], bare, protocol, pin, budget)
            commit = revision if pinned else _resolve(url, revision, bare, protocol, pin, budget)
            _run(["fetch", "--quiet", "--depth=1", "--no-tags", "--no-recurse-submodules", "--end-of-options", url, commit],
                 bare, protocol, pin, budget, watch=True)  # fmt: skip
            tree = os.path.join(policy.cache, "trees", f"git-{commit}")
            if not os.path.isdir(tree):
                from hooklint.files import remove_tree  # noqa: PLC0415

                scratch = tempfile.mkdtemp(dir=_trees(policy), prefix=".tree-")
                try:
                    _write_tree(bare, commit, scratch, protocol, pin, budget)
                except BaseException:  # a refused tree (a link out, a limit) is not left in the cache
                    remove_tree(scratch)
                    raise
                try:
                    os.rename(scratch, tree)
                except OSError:
                    remove_tree(scratch)
        write_ref(policy, key, {"commit": commit})
    folder = os.path.normpath(os.path.join(tree, source.path.lstrip("/")))  # as written: Path never trims it
    real = os.path.realpath(folder)
    if not (real == os.path.realpath(tree) or real.startswith(os.path.realpath(tree) + os.sep)):
        raise FetchError(f"{source.repo_url}: path {source.path!r} leaves the repository")
    if not os.path.isdir(real):
        from hooklint.sources.repository.submodules import submodules_of  # noqa: PLC0415

        sub = submodules_of(tree).holding(folder)  # its .gitmodules: the tree was written without submodules
        if sub is not None:
            raise FetchError(f"{source.repo_url}: path {source.path!r} is in {sub.described()} of that repository, "
                             "which Argo CD's repo server checks out (`git submodule update --init --recursive`) and "
                             "hooklint never fetches")  # fmt: skip
        raise FetchError(f"{source.repo_url}: path {source.path!r} is not a folder at {commit[:12]}")
    return Fetched(folder, tree, _shown(url), commit[:12], commit, cached)


def _trees(policy: FetchPolicy) -> str:
    trees = os.path.join(policy.cache, "trees")
    os.makedirs(trees, 0o700, exist_ok=True)
    return trees


def _shown(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


def _remote(repo_url: str, policy: FetchPolicy) -> tuple[str, str, str]:
    """``(url, protocol, http.curloptResolve value or "")`` for ``repo_url``, or FetchError when it
    is not admitted (nothing is contacted then)."""
    parts = urllib.parse.urlsplit(repo_url)
    scheme = parts.scheme.lower()
    if scheme == "file":
        if any(c in repo_url for c in "%?#"):  # Git decodes %2e%2e to .. after the check; ? and # are path to it
            raise FetchError(f"{repo_url}: a file:// remote holding '%', '?' or '#' is not fetched: Git reads "
                             "percent-escapes (%2e%2e is ..) and '?'/'#' as part of the path, so it could leave the "
                             "--fetch-host folder; write the path plainly")  # fmt: skip
        if parts.netloc or not policy.hosts.file_allowed(parts.path):
            raise FetchError(f"{repo_url}: this file:// remote is not admitted by a --fetch-host file:// entry")
        return repo_url, "file", ""
    if scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(f"{_shown(repo_url)}: only https:// (and listed http://) Git remotes are fetched, not "
                         f"{scheme + '://' if scheme else 'ssh'} ones")  # fmt: skip
    if parts.username or parts.password:
        raise FetchError(f"{_shown(repo_url)}: a Git URL holding credentials is not fetched")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise FetchError(f"{_shown(repo_url)}: not a valid port") from None
    host = parts.hostname.lower()
    entry = policy.hosts.entry_for(scheme, host, port)
    if entry is None:
        raise FetchError(f"{_shown(repo_url)}: {scheme}://{host}:{port} is not in fetch-hosts: not contacted")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise FetchError(f"cannot resolve {host} ({exc.strerror})") from None
    refusal: FetchError | None = None
    for *_, sockaddr in infos:
        try:
            check_address(str(sockaddr[0]), entry, host)
        except FetchError as exc:
            refusal = refusal or exc
            continue
        address = str(sockaddr[0])
        return repo_url, scheme, f"{host}:{port}:{'[' + address + ']' if ':' in address else address}"
    raise refusal or FetchError(f"cannot resolve {host}")


def _run(args: list[str], cwd: str, protocol: str, pin: str, budget: Budget, data: bytes | None = None,
         watch: bool = False) -> bytes:  # fmt: skip
    """Run ``git ARGS`` in ``cwd`` as the module docstring says; its output. FetchError on failure.
    With ``watch`` (a fetch into the bare repository ``cwd``), what git has written there is measured
    while it runs and git is stopped past the budget's bytes (:func:`_watched`)."""
    git = find_program("git", None)
    if git is None:
        raise FetchError("git is not installed (none in PATH)")
    with tempfile.TemporaryDirectory(prefix="hooklint-git-home-") as home:
        env = {"PATH": os.path.dirname(git), "HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_CONFIG_GLOBAL": os.devnull, "GIT_ATTR_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
               "GIT_ASKPASS": "", "SSH_ASKPASS": "", "GIT_ALLOW_PROTOCOL": protocol, "GIT_NO_REPLACE_OBJECTS": "1",
               "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}  # fmt: skip
        options = ["-c", "protocol.allow=never", "-c", f"protocol.{protocol}.allow=always", "-c", "core.hooksPath=" + os.devnull,
                   "-c", "core.fsmonitor=false", "-c", f"core.attributesFile={os.devnull}", "-c", "credential.helper=",
                   "-c", "http.followRedirects=false", "-c", "http.proxy=", "-c", "core.askPass=",
                   "-c", "submodule.recurse=false", "-c", "fetch.recurseSubmodules=false", "-c", "init.templateDir="]  # fmt: skip
        if pin:
            options += ["-c", f"http.curloptResolve={pin}"]
        try:
            if watch:
                done = _watched([git, *options, *args], cwd, env, budget)
            else:
                done = subprocess.run([git, *options, *args], cwd=cwd, env=env, input=data, capture_output=True,
                                      timeout=budget.left())  # fmt: skip
        except subprocess.TimeoutExpired:
            raise FetchError(f"git {args[0]} took longer than fetch-timeout ({budget.timeout:g} s)") from None
        except OSError as exc:
            raise FetchError(f"git {args[0]} cannot run ({exc.strerror})") from None
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        raise FetchError(f"git {args[0]} failed: {lines[-1] if lines else 'exit ' + str(done.returncode)}")
    return done.stdout


def _size(folder: str) -> int:
    """Bytes of the regular files under ``folder`` (links not followed)."""
    total = 0
    from hooklint.files import walk_tree  # noqa: PLC0415 - os.walk recurses per level (3.11)
    for top, _, names in walk_tree(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(top, name)).st_size
            except OSError:
                pass
    return total


def _watched(command: list[str], bare: str, env: dict[str, str], budget: Budget) -> subprocess.CompletedProcess:
    """Run the fetch ``command`` into ``bare``, measuring the repository every 50 ms: past the
    budget's bytes (git cannot be told a limit for a fetch) or its time, git is killed and
    FetchError (or TimeoutExpired) raised. What git writes is charged to the budget."""
    import time

    before = _size(bare)
    # a process group of its own: git's helpers (fetch-pack, index-pack) are stopped with it, so
    # nothing writes into the repository while it is removed
    with subprocess.Popen(command, cwd=bare, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, start_new_session=True) as process:  # fmt: skip
        try:
            while process.poll() is None:
                if before + budget.max_bytes - budget.used_bytes < _size(bare):
                    raise FetchError(f"git fetch: more than fetch-max-bytes ({budget.max_bytes} bytes)")
                if time.monotonic() - budget.started > budget.timeout:
                    raise subprocess.TimeoutExpired(command, budget.timeout)
                time.sleep(0.05)
            stdout, stderr = process.communicate()
        except BaseException:
            import signal

            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                process.kill()
            process.wait()
            for _ in range(100):  # its helpers gone too: nothing of the group is left writing
                try:
                    os.killpg(process.pid, 0)
                except OSError:
                    break
                time.sleep(0.01)
            raise
    try:
        budget.take(_size(bare) - before)  # past the limit when git was quicker than the watch
    except FetchError:
        raise FetchError(f"git fetch: more than fetch-max-bytes ({budget.max_bytes} bytes)") from None
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _resolve(url: str, revision: str, bare: str, protocol: str, pin: str, budget: Budget) -> str:
    """The commit ``revision`` names on the remote (``git ls-remote``): HEAD, a branch, a tag (peeled)
    or the highest tag a semver constraint admits."""
    listing = _run(["ls-remote", "--end-of-options", url], bare, protocol, pin, budget).decode("utf-8", "replace")
    refs: dict[str, str] = {}
    for line in listing.splitlines():
        oid, _, name = line.partition("\t")
        if _COMMIT.match(oid):
            refs[name] = oid
    tags = [n[len("refs/tags/"):] for n in refs if n.startswith("refs/tags/") and not n.endswith("^{}")]
    wanted = revision
    if revision not in ("HEAD",) and f"refs/heads/{revision}" not in refs and f"refs/tags/{revision}" not in refs:
        try:
            wanted = max_version(revision, tags)
        except ResolveError:
            raise FetchError(f"{_shown(url)}: no branch, tag or commit {revision!r}") from None
    for name in (wanted, f"refs/tags/{wanted}^{{}}", f"refs/tags/{wanted}", f"refs/heads/{wanted}"):
        if name in refs:
            return refs[name]
    raise FetchError(f"{_shown(url)}: no branch, tag or commit {revision!r}")


def _write_tree(bare: str, commit: str, folder: str, protocol: str, pin: str, budget: Budget) -> None:
    """Write the tree of ``commit`` into ``folder`` (see the module docstring)."""
    listing = _run(["ls-tree", "-r", "-l", "-z", "--full-tree", "--end-of-options", commit], bare, protocol, pin, budget)
    files: list[tuple[bytes, bytes, int]] = []
    links: list[tuple[bytes, bytes]] = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) != 4 or any(p in (b"", b".", b"..") or p.lower() == b".git" for p in path.split(b"/")):
            continue
        git_mode, kind, oid, listed_size = fields
        if kind != b"blob":
            continue  # a submodule: not fetched
        budget.file()
        if listed_size.isdigit():
            budget.take(int(listed_size))
        if git_mode == b"120000":
            links.append((path, oid))
        elif git_mode in _MODES:
            files.append((path, oid, _MODES[git_mode]))
    wanted = b"".join(oid + b"\n" for _, oid, _ in files) + b"".join(oid + b"\n" for _, oid in links)
    output = _run(["cat-file", "--batch"], bare, protocol, pin, budget, data=wanted) if wanted else b""
    contents: list[bytes] = []
    at = 0
    for _ in range(len(files) + len(links)):
        end = output.index(b"\n", at)
        header = output[at:end].split()
        if len(header) != 3 or not header[2].isdigit():
            raise FetchError("git cat-file: unexpected answer")
        size = int(header[2])
        contents.append(output[end + 1 : end + 1 + size])
        at = end + 1 + size + 1
    for (path, _, mode), data in zip(files, contents):
        target = _place(folder, path)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    _place_links(folder, [(path, data) for (path, _), data in zip(links, contents[len(files):])])


def _place_links(folder: str, links: list[tuple[bytes, bytes]]) -> None:
    """Make the symbolic links ``links`` (``(path, target as written)``) of the tree written in
    ``folder``, then check each as Argo CD checks a repository's (module docstring): an absolute
    target, or one that leaves ``folder`` once every link on its way is followed (``os.path.realpath``:
    ``l -> .`` then ``l/..`` is caught), refuses the tree (FetchError naming the link). A link that
    leads nowhere inside the tree is kept, as a checkout keeps it: renderers find nothing there."""
    real = os.path.realpath(folder)
    placed = []
    for path, data in links:
        shown = path.decode("utf-8", "replace")
        if not data or b"\0" in data or data.startswith(b"/"):
            raise FetchError(f"{shown} is a symbolic link to an absolute path, which leaves the fetched tree: refused "
                             "(Argo CD refuses a repository with out-of-bounds symlinks)")  # fmt: skip
        link = _place(folder, path)
        os.symlink(os.fsdecode(data), link)
        placed.append((shown, link, data.decode("utf-8", "replace")))
    for shown, link, target in placed:
        resolved = os.path.realpath(link)
        if resolved != real and not resolved.startswith(real + os.sep):
            raise FetchError(f"{shown} is a symbolic link to {target}, which leaves the fetched tree: refused (Argo "
                             "CD refuses a repository with out-of-bounds symlinks)")  # fmt: skip


def _place(folder: str, path: bytes) -> str:
    """``folder/path`` with its folders made as real folders (:func:`~hooklint.sources.fetch.archive.real_folders`:
    never through a link; FetchError when one clashes with a file)."""
    parts = [os.fsdecode(part) for part in path.split(b"/")]
    return os.path.join(real_folders(folder, parts[:-1]), parts[-1])
