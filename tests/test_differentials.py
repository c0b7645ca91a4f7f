"""Parser differentials fail closed (issue 32, item 1): what hooklint reads of a file a renderer
reads is what the renderer reads, or the source is HL007 and the renderer is never started.

kustomize reads a kustomization with sigs.k8s.io/yaml (go-yaml v2: the first document only, tags
and plain scalars typed as Go types them) and encoding/json; PyYAML disagreed on a second ``---``
document, an unknown ``!tag``, ``2024-01-01`` (a date), ``!!binary``, a merge key written after a
field (go-yaml v2 overwrites the field) and a ``null`` list entry (``""`` for Go). Each hid the
entries of a kustomization from hooklint, which then copied the whole repository and started
kustomize on it: a base written as ``../`` forty times and an absolute path was built from a
folder outside the repository, an ``http://127.0.0.1`` resource fetched when the renderer had no
network namespace of its own. The attacker's inputs below are written from scratch.

Every test here failed before the fix. The oracle is the outside: a sentinel folder outside the
repository holds a secret (its text must appear nowhere, and hooklint opens nothing there: an audit
hook), a loopback listener counts connections (none), and kustomize is not started on a
kustomization naming something outside."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.cli import app as cli_app
from hooklint.sources import bounded
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize, render_kustomize
from hooklint.sources.repository import kustomize_spec as spec
from hooklint.sources.repository.kustomize_spec import KUSTOMIZATION_FIELDS, canonical
from hooklint.sources.render.rendered import RenderError

needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")
SECRET = "d1fferential-Secret-7c41"
OUTSIDE_SECRET = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: taken\nstringData:\n  token: {SECRET}\n"
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: info\n"
PATCH = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: debug\n"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


class Opened:
    """Every path this process opens or lists while ``active`` (an audit hook)."""

    active = False
    paths: list[str] = []

    @classmethod
    def hook(cls, event: str, args: tuple) -> None:
        if cls.active and event in ("open", "os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes)):
            cls.paths.append(os.fsdecode(args[0]))


sys.addaudithook(Opened.hook)


class Listener:
    """A TCP listener on 127.0.0.1 recording every connection, until closed (at most 120 s)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        for _ in range(600):
            if self.stop.is_set():
                break
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            conn.settimeout(1)
            try:
                self.connections.append(conn.recv(200) or b"(connected)")
            except OSError:
                self.connections.append(b"(connected)")
            conn.close()
        self.sock.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


@pytest.fixture
def listener():
    started = Listener()
    yield started
    started.close()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """``T/repo`` (a git repository, the current folder, its renders without a network namespace:
    a machine without user namespaces) and ``T/outside``: a kustomization whose Secret holds
    :data:`SECRET`, and the same Secret as a lone file."""
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    monkeypatch.setenv("HOOKLINT_NO_NETNS", "1")
    write(tmp_path / "outside", {"kustomization.yaml": "resources:\n- secret.yaml\n", "secret.yaml": OUTSIDE_SECRET,
                                 "patch.yaml": OUTSIDE_SECRET, "env": f"token={SECRET}\n"})  # fmt: skip
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write(root, {"app/cm.yaml": CM, "app/patch.yaml": PATCH, "app/level.env": "level=info\n"})
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def runs(monkeypatch):
    """The argv of every kustomize build started."""
    calls: list = []
    real = bounded.run

    def run(argv, *args, **kwargs):
        if "kustomize" in " ".join(argv) and "version" not in argv:
            calls.append(list(argv))
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(bounded, "run", run)
    return calls


def climb_to(target: Path) -> str:
    """``target`` written as the attacker wrote it: ``../`` forty times, then the absolute path."""
    return "../" * 40 + str(target).lstrip("/")


def render(folder: str = "app") -> tuple[object | None, RenderError | None, list[str]]:
    """Render ``folder`` of the current repository: (rendering, error, the paths hooklint opened or
    listed outside the repository)."""
    Opened.paths, Opened.active = [], True
    rendering = error = None
    try:
        rendering = render_kustomize(folder, ".")
    except RenderError as exc:
        error = exc
    finally:
        Opened.active = False
    outside = os.path.realpath("..") + os.sep + "outside"
    return rendering, error, [p for p in Opened.paths if os.path.realpath(p).startswith(outside)]


def texts_of(rendering, error) -> str:
    return "\n".join([d.text for d in rendering.documents] if rendering is not None else []) + (
        error.message if error is not None else "")


# --- the brief's inputs, one by one ---------------------------------------------------------------


def _hostile(outside: Path) -> dict[str, str]:
    base = climb_to(outside)
    return {
        "a second document": f"resources:\n- cm.yaml\n- {base}\n---\nkind: Kustomization\n",
        "a second document PyYAML cannot parse": f"resources:\n- {base}\n--- [\n",
        "an unknown tag on the entry": f"resources:\n- cm.yaml\n- !base {base}\n",
        "an unknown tag on the field": f"!fields\nresources: !list\n- {base}\n",
        "a date beside it": f"resources:\n- {base}\n- 2024-01-01\n",
        "a !!binary entry": f"resources:\n- !!binary {base64.b64encode(base.encode()).decode()}\n",
        "a !!binary key": f"!!binary {base64.b64encode(b'resources').decode()}:\n- {base}\n",
        "a merge key after the field": f"resources:\n- cm.yaml\n<<: {{resources: [{base}]}}\n",
        "a null entry beside it": f"resources:\n- {base}\n- ~\n",
        "a UTF-16 file": None,  # written below
    }


@needs_kustomize
@pytest.mark.parametrize("case", list(_hostile(Path("/x"))))
def test_a_kustomization_pyyaml_misreads_never_builds_a_base_outside(repo, runs, case):
    """Before: PyYAML failed on (or misread) the kustomization, hooklint copied the whole repository
    without checking an entry, and kustomize built ``T/outside`` (the Secret, or its error,
    appeared in the output)."""
    outside = repo.parent / "outside"
    text = _hostile(outside)[case]
    if text is None:
        (repo / "app").mkdir(exist_ok=True)
        (repo / "app" / "kustomization.yaml").write_bytes(f"resources:\n- {climb_to(outside)}\n".encode("utf-16"))
    else:
        write(repo, {"app/kustomization.yaml": text})
    (repo / "app" / "2024-01-01").write_text(CM.replace("settings", "dated"))
    rendering, error, opened = render()
    assert error is not None and rendering is None, case
    assert "outside the repository" in error.message, error.message
    assert (error.path, error.needs_network) == (os.path.join("app", "kustomization.yaml"), False)
    assert runs == [] and opened == [] and SECRET not in texts_of(rendering, error)


@needs_kustomize
@pytest.mark.parametrize("wrap", ["!fetch {url}", "!!binary {b64}", "!!str {url}"])
def test_a_tagged_url_is_never_fetched(repo, runs, listener, wrap):
    """Before: ``- !fetch http://127.0.0.1:PORT/x.yaml`` made PyYAML fail; kustomize, started on
    the whole repository without a network namespace, fetched it."""
    url = f"http://127.0.0.1:{listener.port}/x.yaml"
    entry = wrap.format(url=url, b64=base64.b64encode(url.encode()).decode())
    write(repo, {"app/kustomization.yaml": f"resources:\n- cm.yaml\n- {entry}\n"})
    rendering, error, opened = render()
    listener.close()
    assert listener.connections == []
    assert error is None and rendering is not None
    assert [(o.message, o.line, o.column) for o in rendering.omitted] == [(
        f"resources entry {url!r} is remote and needs the network; hooklint never uses the network: vendor the base "
        "into the repository", 3, 3)]  # fmt: skip
    assert [d.origin for d in rendering.documents] == [os.path.join("app", "cm.yaml")]


@needs_kustomize
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be-bom", "utf-32", "utf-8-sig"])
def test_a_remote_entry_is_left_out_whatever_the_encoding_go_yaml_reads(repo, listener, encoding):
    """go-yaml reads UTF-16 and UTF-32 with a BOM. Before, hooklint read a UTF-16 kustomization as
    UTF-8 (a walk that gave up, then a copy it could not edit), so kustomize fetched the remote
    resource it should have been built without."""
    url = f"http://127.0.0.1:{listener.port}/x.yaml"
    text = f"resources:\n- cm.yaml\n- {url}\n"
    data = ("\ufeff" + text).encode("utf-16-be") if encoding == "utf-16-be-bom" else text.encode(encoding)
    (repo / "app" / "kustomization.yaml").write_bytes(data)
    rendering, error, _ = render()
    listener.close()
    assert listener.connections == []
    if encoding == "utf-32":  # go-yaml has no UTF-32: its BOM reads as UTF-16's, then NULs
        assert error is not None and error.message == (
            "app/kustomization.yaml: the kustomization is UTF-32, which kustomize's YAML reader (go-yaml) does not "
            "read; save it as UTF-8")  # fmt: skip
        return
    assert error is None and rendering is not None
    assert [o.message for o in rendering.omitted] == [
        f"resources entry {url!r} is remote and needs the network; hooklint never uses the network: vendor the base "
        "into the repository"]  # fmt: skip
    assert [d.origin for d in rendering.documents] == [os.path.join("app", "cm.yaml")]


@needs_kustomize
@pytest.mark.parametrize("text, message, line", [
    ("resources:\n- cm.yaml\n- !!int x\n", "invalid Kustomization: yaml: cannot decode !!str `x` as a !!int", 3),
    ("resources:\n- cm.yaml\n- 5\n",
     "invalid Kustomization: json: cannot unmarshal number into Go struct field Kustomization.resources of type "
     "string", 1),
    ("", "the kustomization is empty, which kustomize refuses", 1),
    ("- cm.yaml\n", "the kustomization's first document is not a mapping (kustomize reads only that document, and "
     "cannot decode it)", 1),
    ("resources:\n- cm.yaml\n<<: [cm.yaml]\n", "invalid Kustomization: yaml: map merge requires map or sequence of maps as the value",
     3),
    ("resources:\n- !!binary '*'\n", "invalid Kustomization: yaml: !!binary value contains invalid base64 data (or "
     "bytes that are not UTF-8)", 2),
    ("resources:\n- cm.yaml\n  bad: [\n",
     "invalid Kustomization: yaml: line 3: mapping values are not allowed in this context", 3),
])  # fmt: skip
def test_what_kustomize_refuses_is_hl007_and_kustomize_never_starts(repo, runs, text, message, line):
    write(repo, {"app/kustomization.yaml": text})
    rendering, error, _ = render()
    kustomization = os.path.join("app", "kustomization.yaml")
    assert error is not None and (error.message, error.path, error.line) == (f"{kustomization}: {message}",
                                                                             kustomization, line)  # fmt: skip
    assert runs == []


@needs_kustomize
def test_a_plugin_file_pyyaml_cannot_read_is_read_as_kustomize_reads_it(repo, runs, listener):
    """Before: a transformer's file PyYAML could not read (an unknown tag) was skipped, so the URL of
    the builtin it configures was never looked at, and kustomize fetched it. Now its value is read
    as Go reads it: the entry is left out (issue 33), nothing is fetched."""
    url = f"http://127.0.0.1:{listener.port}/p.yaml"
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\ntransformers:\n- t.yaml\n",
                 "app/t.yaml": f"apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\n  x: !odd 1\n"
                               f"path: {url}\ntarget:\n  kind: ConfigMap\n"})  # fmt: skip
    rendering, error, _ = render()
    listener.close()
    assert listener.connections == []
    assert error is None and rendering is not None
    assert [o.message.split(" with ")[0] for o in rendering.omitted] == [
        "transformers entry 't.yaml' configures PatchTransformer"]


@needs_kustomize
def test_a_plugin_file_hooklint_cannot_read_as_go_does_is_hl007(repo, runs):
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\ntransformers:\n- t.yaml\n",
                 "app/t.yaml": "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\nx: !!int z\n"})
    rendering, error, _ = render()
    assert runs == [] and error is not None
    assert error.message == (
        "transformers entry 't.yaml': hooklint cannot read app/t.yaml as kustomize reads it (yaml: cannot decode "
        "!!str `z` as a !!int), so it cannot tell whether it runs a plugin or fetches a URL: kustomize is not run")


@needs_kustomize
def test_a_function_annotation_a_merge_key_hides_from_go_yaml_v2_is_still_refused(repo, runs):
    """kustomize reads plugin files with go-yaml v3, where the explicit ``annotations`` win over the
    merge key written after them; go-yaml v2 (and hooklint's value) lets the merge key win. The
    function annotation anywhere in the file makes it a function, whichever reader resolves it."""
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\ntransformers:\n- t.yaml\n",
                 "app/t.yaml": "apiVersion: example.com/v1\nkind: Run\nmetadata:\n  name: r\n  annotations:\n"
                               "    config.kubernetes.io/function: 'exec: {path: ./x.sh}'\n  <<: {annotations: {}}\n"})  # fmt: skip
    rendering, error, _ = render()
    assert runs == [] and error is not None
    assert error.message.startswith("transformers entry 't.yaml' is a function KRM function (Run)")


# --- every field that names a path or URL ---------------------------------------------------------

#: Each kustomization field (and struct field below it) kustomize v5.5.0 reads a path or URL from
#: (``api/types/kustomization.go``, ``patch.go``, ``replacementfield.go``, ``kv.go``, ``helmchartargs.go``),
#: as a kustomization naming ``{v}`` there; ``{ok}`` is a harmless entry of the same field.
PATH_FIELDS: dict[str, str] = {
    "resources": "resources:\n- cm.yaml\n- {v}\n",
    "bases": "resources:\n- cm.yaml\nbases:\n- {v}\n",
    "components": "resources:\n- cm.yaml\ncomponents:\n- {v}\n",
    "crds": "resources:\n- cm.yaml\ncrds:\n- {v}\n",
    "configurations": "resources:\n- cm.yaml\nconfigurations:\n- {v}\n",
    "generators": "resources:\n- cm.yaml\ngenerators:\n- {v}\n",
    "transformers": "resources:\n- cm.yaml\ntransformers:\n- {v}\n",
    "validators": "resources:\n- cm.yaml\nvalidators:\n- {v}\n",
    "patchesStrategicMerge": "resources:\n- cm.yaml\npatchesStrategicMerge:\n- {v}\n",
    "patches.path": "resources:\n- cm.yaml\npatches:\n- path: {v}\n",
    "patchesJson6902.path": "resources:\n- cm.yaml\npatchesJson6902:\n- path: {v}\n  target: {kind: ConfigMap, "
                            "name: settings, version: v1}\n",
    "replacements.path": "resources:\n- cm.yaml\nreplacements:\n- path: {v}\n",
    "openapi.path": "resources:\n- cm.yaml\nopenapi:\n  path: {v}\n",
    "configMapGenerator.files": "resources:\n- cm.yaml\nconfigMapGenerator:\n- name: g\n  files:\n  - {v}\n",
    "configMapGenerator.envs": "resources:\n- cm.yaml\nconfigMapGenerator:\n- name: g\n  envs:\n  - {v}\n",
    "configMapGenerator.env": "resources:\n- cm.yaml\nconfigMapGenerator:\n- name: g\n  env: {v}\n",
    "secretGenerator.files": "resources:\n- cm.yaml\nsecretGenerator:\n- name: g\n  files:\n  - k={v}\n",
    "secretGenerator.envs": "resources:\n- cm.yaml\nsecretGenerator:\n- name: g\n  envs:\n  - {v}\n",
    "secretGenerator.env": "resources:\n- cm.yaml\nsecretGenerator:\n- name: g\n  env: {v}\n",
    "helmGlobals.chartHome": "resources:\n- cm.yaml\nhelmGlobals:\n  chartHome: {v}\nhelmCharts:\n- name: c\n",
    "helmGlobals.configHome": "resources:\n- cm.yaml\nhelmGlobals:\n  configHome: {v}\nhelmCharts:\n- name: c\n",
    "helmCharts.valuesFile": "resources:\n- cm.yaml\nhelmCharts:\n- name: c\n  valuesFile: {v}\n",
    "helmCharts.additionalValuesFiles": "resources:\n- cm.yaml\nhelmCharts:\n- name: c\n  additionalValuesFiles:\n"
                                        "  - {v}\n",
    "helmCharts.repo": "resources:\n- cm.yaml\nhelmCharts:\n- name: c\n  repo: {v}\n",
    "helmChartInflationGenerator.chartHome": "resources:\n- cm.yaml\nhelmChartInflationGenerator:\n- chartName: c\n"
                                             "  chartHome: {v}\n",
    "helmChartInflationGenerator.chartRepoUrl": "resources:\n- cm.yaml\nhelmChartInflationGenerator:\n- chartName: c\n"
                                                "  chartRepoUrl: {v}\n",
    "helmChartInflationGenerator.values": "resources:\n- cm.yaml\nhelmChartInflationGenerator:\n- chartName: c\n"
                                          "  values: {v}\n",
    "helmChartInflationGenerator.valuesLocal": "resources:\n- cm.yaml\nhelmChartInflationGenerator:\n- chartName: c\n"
                                               "  valuesLocal:\n    f: {v}\n",
    "helmChartInflationGenerator.helmBin": "resources:\n- cm.yaml\nhelmChartInflationGenerator:\n- chartName: c\n"
                                           "  helmBin: {v}\n",
    "helmChartInflationGenerator.helmHome": "resources:\n- cm.yaml\nhelmChartInflationGenerator:\n- chartName: c\n"
                                            "  helmHome: {v}\n",
}  # fmt: skip

#: The fields of the kustomization that name no file, folder or URL (kustomize v5.5.0).
NOT_PATHS = {"apiVersion", "kind", "metadata", "namePrefix", "nameSuffix", "namespace", "commonLabels", "labels",
             "commonAnnotations", "images", "imageTags", "replicas", "vars", "sortOptions", "generatorOptions",
             "buildMetadata"}  # fmt: skip


def test_every_field_of_the_kustomization_is_judged_for_paths():
    """A field hooklint learns of (``KUSTOMIZATION_FIELDS``, kustomize's ``Kustomization`` struct)
    is either typed and checked as naming paths, or listed here as naming none."""
    assert set(KUSTOMIZATION_FIELDS) == set(spec.PATH_FIELD_TYPES) | NOT_PATHS
    assert not set(spec.PATH_FIELD_TYPES) & NOT_PATHS


def test_every_field_naming_a_path_is_decoded_as_go_decodes_it():
    """The table of fields :func:`go_decode` types is the table above (a field kustomize gains, or
    one left out of either, fails here), and every one is a field of the kustomization."""
    declared = set()
    for field, shape in spec.PATH_FIELD_TYPES.items():
        assert field in KUSTOMIZATION_FIELDS
        if isinstance(shape, str):
            declared.add(field if shape != "map[string]string" else f"{field}.path")
        else:
            declared.update(f"{field}.{sub}" for sub in (shape[0] if isinstance(shape, list) else shape))
    assert declared == set(PATH_FIELDS)


#: How the value reaches kustomize past PyYAML: each wraps ``{v}`` as written in PATH_FIELDS.
WRAPPERS = {
    "plain": lambda text: text,
    "an unknown tag": lambda text: text.replace("{v}", "!x {v}"),
    "a second document": lambda text: text + "--- [\n",
    "!!binary": lambda text: text.replace("{v}", "!!binary {b64}"),
    "a merge key": lambda text: _merged(text),
    "a null beside it": lambda text: text.replace("- {v}\n", "- {v}\n- ~\n") if "- {v}" in text else text,
}


def _merged(text: str) -> str:
    """``text`` with the field holding ``{v}`` moved under a merge key written after a harmless
    copy of it (go-yaml v2 lets the merge key's value win; PyYAML and the YAML spec keep the copy)."""
    prefix = "resources:\n- cm.yaml\n"
    rest = text[len(prefix):]
    if rest.startswith("- "):  # the field is resources itself
        return prefix + "<<:\n" + "".join("  " + line for line in (prefix + rest).splitlines(keepends=True))
    return prefix + rest.replace("{v}", "cm.yaml") + "<<:\n" + "".join("  " + line for line in rest.splitlines(keepends=True))


@needs_kustomize
@pytest.mark.parametrize("wrapper", list(WRAPPERS))
@pytest.mark.parametrize("field", list(PATH_FIELDS))
def test_no_path_field_lets_an_outside_path_or_a_url_through(repo, runs, listener, field, wrapper):
    """For every field that names a path or URL, written plain or past PyYAML (a tag, a second
    document, ``!!binary``, a merge key, a null entry): an entry naming a folder or file outside the
    repository, or a loopback URL, is HL007 before kustomize starts, or left out of the copy
    kustomize builds (HL009); nothing outside is read, nothing is fetched."""
    outside = repo.parent / "outside"
    url = f"http://127.0.0.1:{listener.port}/x.yaml"
    file_name = "env" if field.endswith((".env", ".envs")) else "secret.yaml" if "Generator.files" in field else "patch.yaml"
    for value in (climb_to(outside), climb_to(outside / file_name), url):
        text = WRAPPERS[wrapper](PATH_FIELDS[field]).replace("{b64}", base64.b64encode(value.encode()).decode())
        write(repo, {"app/kustomization.yaml": text.replace("{v}", value)})
        runs.clear()
        rendering, error, opened = render()
        assert opened == [] and SECRET not in texts_of(rendering, error), (field, wrapper, value)
        if value != url:
            assert error is not None or rendering.omitted, (field, wrapper, value)  # type: ignore[union-attr]
            if error is not None:
                assert runs == [], (field, wrapper, value, error.message)
    listener.close()
    assert listener.connections == [], (field, wrapper)


# --- the reader itself, against go-yaml v2 ----------------------------------------------------------


@pytest.mark.parametrize("text, value", [
    ("resources:\n- a\n---\nresources: [b]\n", {"resources": ["a"]}),
    ("resources: [!x a, 2024-01-01, !!binary Yg==, !!str 5, 'y', y, ~]\n",
     {"resources": ["a", "2024-01-01", "b", "5", "y", True, None]}),
    ("resources: [a]\n<<: {resources: [b]}\n", {"resources": ["b"]}),
    ("<<: {resources: [b]}\nresources: [a]\n", {"resources": ["a"]}),
    ("<<: [{resources: [b]}, {resources: [c], crds: [d]}]\n", {"resources": ["b"], "crds": ["d"]}),
    ("\ufeffresources: [a]\n", {"resources": ["a"]}),
    ("a: !!float 1\nb: 0o17\nc: 1e3\n", {"a": 1.0, "b": 15, "c": 1000.0}),
])  # fmt: skip
def test_the_value_is_go_yaml_v2s(text, value):
    """go-yaml v2 (``decode.go``: merge keys written in order, the list of a merge key last first;
    ``resolve.go``), as ``sigs.k8s.io/yaml`` hands it to kustomize. Pinned against Helm's Go
    reader below when the Helm SDK is installed."""
    assert spec.read_kustomization(text).value == value


def test_null_entries_decode_as_go_decodes_them():
    config = canonical(spec.read_kustomization("resources: [~, a]\npatches: [~, {path: ~}]\nopenapi: {path: ~}\n").value)
    assert spec.go_decode(config) == {"resources": ["", "a"], "patches": [{}, {"path": ""}], "openapi": {"path": ""}}
    with pytest.raises(spec.Unreadable):
        spec.go_decode({"patches": ["a.yaml"]})


GO_CASES = [
    "resources: [!x a, 2024-01-01, !!binary Yg==, !!str 5, 'y', y, ~, 1_000, 0x1F, .5, 1e3, 0o17, -0b11]\n",
    "a: 1\n<<: {a: 2, b: 3}\nc: 4\n<<: [{c: 5, d: 6}, {d: 7, e: 8}]\n",
    "k: !!timestamp 2001-12-14\nl: 2001-12-14 21:59:43.10\nm: !!float 7\nn: '2024-01-01'\n",
    "x: &a {p: 1}\ny: *a\nz:\n  <<: *a\n  p: 2\n",
    "resources:\n- a\n---\n- not read\n",
    "a: &x 1\nb: *x\nc: &x [2]\nd: *x\n",
]


_GO_CHILD = r"""
import json, sys
try:
    import helm_python as helm
    helm.values_from_yaml("a: 1\n")
except Exception as exc:  # no SDK, or no library for this machine
    print(json.dumps({"unavailable": f"{type(exc).__name__}: {exc}"}), flush=True)
    sys.exit(0)
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    try:
        print(json.dumps({"value": helm.values_from_yaml(json.loads(line))}), flush=True)
    except Exception as exc:
        print(json.dumps({"error": str(exc)}), flush=True)
"""


class GoYaml:
    """go-yaml v2 as ``sigs.k8s.io/yaml`` hands it to Go programs (kustomize, Helm, Argo CD),
    through Helm's Go library (``helm_python.values_from_yaml``: ``yaml.Unmarshal`` into a map) in a
    child process, so that the Go runtime never enters the test process."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _GO_CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)  # fmt: skip
        assert self.proc.stdout is not None
        self.unavailable = json.loads(self.proc.stdout.readline() or '{"unavailable": "no answer"}').get("unavailable")

    def read(self, text: str) -> object:
        """What Go reads from ``text``; ValueError with Go's message where it fails."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(text) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if "error" in answer:
            raise ValueError(answer["error"])
        return answer["value"]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(10)


@pytest.fixture(scope="module")
def go_yaml():
    oracle = GoYaml()
    if oracle.unavailable:
        oracle.close()
        pytest.skip(f"Helm's Go library does not load here: {oracle.unavailable}")
    yield oracle
    oracle.close()


@pytest.mark.parametrize("text", GO_CASES)
def test_the_reader_agrees_with_go(text, go_yaml):
    """The same text through Helm's Go library (``sigs.k8s.io/yaml``: go-yaml v2 then JSON, the
    reader kustomize decodes kustomizations with), when the Helm SDK is installed."""
    assert spec.read_kustomization(text).value == go_yaml.read(text)


# --- manifests: merge keys as Argo CD's go-yaml v2 reads them ---------------------------------------

DIGEST = "sha256:" + "a" * 64
MERGED_HOOK = f"""apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 600
  template:
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      serviceAccountName: migrate
      containers:
      - name: migrate
        image: ghcr.io/acme/migrate@{DIGEST}
        <<: {{image: "docker.io/evil/miner:latest"}}
"""


def test_a_merge_key_after_a_field_sets_it_as_argo_cd_reads_it():
    """Argo CD reads manifests with sigs.k8s.io/yaml: go-yaml v2 writes a merge key's mapping where
    it stands, over the image written before it. Before, hooklint kept the explicit image (the YAML
    spec's rule, PyYAML's) and checked a pinned image the cluster never ran: no finding."""
    from hooklint.pipeline import lint_text

    findings = lint_text(MERGED_HOOK)
    assert [(f.rule_id, f.span.line, f.span.column) for f in findings if f.rule_id == "HL102"] == [("HL102", 18, 21)]


def test_a_merge_of_anything_but_mappings_fails_the_document_as_in_go():
    from hooklint.yamlio import YamlSyntaxError, parse_documents

    with pytest.raises(YamlSyntaxError, match="map merge requires map or sequence of maps as the value"):
        parse_documents("a: 1\n<<: [{b: 2}, 3]\n")


@pytest.mark.parametrize("text", GO_CASES[1:4])
def test_the_manifest_reader_agrees_with_go_on_merge_keys(text, go_yaml):
    from hooklint.yamlio import parse_documents

    assert parse_documents(text)[0].value == go_yaml.read(text)


# --- property: the readers against go-yaml v2 itself ------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = ["a", "y", "n", "yes", "off", "~", "null", "2024-01-01", "2001-12-14t21:59:43.10-05:00", "1_000", "0x1F",
          "0o17", "017", "1e3", ".5", "-.inf", ".NaN", "+12", "0b101", "-0b101", "1:20", "=", "<<", "../x", "http://h/x"]
_TAGS = ["", "!x ", "!!str ", "!!int ", "!!float ", "!!bool ", "!!null ", "!!timestamp ", "!!binary ", "! ", "!!map "]


@st.composite
def _scalars(draw):
    word = draw(st.sampled_from(_WORDS))
    tag = draw(st.sampled_from(_TAGS))
    if tag == "!!binary ":
        word = base64.b64encode(word.encode()).decode()
    style = draw(st.sampled_from(["plain", "single", "double"]))
    if style == "single" or (style == "plain" and word in ("<<", "=")):
        return f"{tag}'{word}'"
    return f'{tag}"{word}"' if style == "double" else f"{tag}{word}"


def _flow(draw, depth: int) -> str:
    kind = draw(st.sampled_from(["scalar", "scalar", "list", "map", "alias"] if depth < 3 else ["scalar"]))
    if kind == "scalar":
        return draw(_scalars())
    if kind == "alias":
        return "*anchor"
    if kind == "list":
        return "[" + ", ".join(_flow(draw, depth + 1) for _ in range(draw(st.integers(0, 3)))) + "]"
    keys = draw(st.lists(st.sampled_from(["resources", "a", "b", "<<", "y", "1", "'1'"]), max_size=3))
    return "{" + ", ".join(f"{k}: {_flow(draw, depth + 1) if k != '<<' else '*anchor'}" for k in keys) + "}"


@st.composite
def _documents(draw):
    lines = ["anchor: &anchor {resources: [a], b: 2}"]
    for key in draw(st.lists(st.sampled_from(["resources", "a", "b", "<<", "c", "y", "2024-01-01", "!x d"]),
                             min_size=1, max_size=5)):  # fmt: skip
        value = draw(st.sampled_from(["*anchor", "[*anchor, {c: 3}]"])) if key == "<<" else _flow(draw, 0)
        lines.append(f"{key}: {value}")
    text = "\n".join(lines) + "\n"
    return text + draw(st.sampled_from(["", "---\nresources: [z]\n", "--- [\n"]))


def _json_keys_collide(text: str) -> bool:
    """Whether a mapping of ``text`` (as PyYAML reads it, merge keys applied) holds two keys that
    are one JSON key (``1`` and ``'1'``); False for a text PyYAML refuses."""
    import yaml

    def collide(value) -> bool:
        if isinstance(value, dict):
            keys = [str(k).lower() if isinstance(k, bool) else str(k) for k in value]
            return len(set(keys)) < len(keys) or any(collide(v) for v in value.values())
        return isinstance(value, list) and any(collide(v) for v in value)

    def same_text(node, seen: set) -> bool:  # two keys written alike (`1` and `'1'`), merged keys included
        if id(node) in seen:
            return False
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys = [k.value for k, _ in node.value if isinstance(k, yaml.ScalarNode) and k.value != "<<"]
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == "<<":
                    for merged in (v.value if isinstance(v, yaml.SequenceNode) else [v]):
                        if isinstance(merged, yaml.MappingNode):
                            keys += [mk.value for mk, _ in merged.value if isinstance(mk, yaml.ScalarNode)]
            return len(set(keys)) < len(keys) or any(same_text(v, seen) for _, v in node.value)
        return isinstance(node, yaml.SequenceNode) and any(same_text(v, seen) for v in node.value)

    try:  # composed, not constructed: a tag PyYAML cannot construct (`!x a`) hides no collision
        if any(same_text(doc, set()) for doc in yaml.compose_all(text, Loader=yaml.SafeLoader)):
            return True
    except yaml.YAMLError:
        pass
    try:
        return any(collide(doc) for doc in yaml.safe_load_all(text))
    except Exception:  # noqa: BLE001 - PyYAML's constructors raise KeyError and others (`!!bool y`)
        return False


def test_json_key_collisions_are_found_by_their_keys():
    assert not _json_keys_collide("resources: !!bool y\n")  # PyYAML's bool constructor raises KeyError('y')
    assert _json_keys_collide("anchor: &anchor {resources: [a], b: 2}\na: {1: x, '1': y}\n")
    assert _json_keys_collide("m: {<<: {'1': a}, 1: b}\n")
    assert not _json_keys_collide("a: {1: x, '2': y}\nb: [1, '1']\n")
    # a tag PyYAML cannot construct used to hide the collision (the suite's flaky example)
    assert _json_keys_collide("anchor: &anchor {resources: [a], b: 2}\nresources: {1: a, '1': *anchor, 1: !x a}\n")


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(_documents())
def test_the_kustomization_and_manifest_readers_agree_with_go_yaml_v2(go_yaml, text):
    """Whenever go-yaml v2 (through Helm's Go library: sigs.k8s.io/yaml, the reader of kustomize
    and of Argo CD) reads a text, hooklint's kustomization reader reads the same value or refuses
    the file; its manifest reader reads the same first document."""
    from hooklint.yamlio import DocumentTooComplex, YamlSyntaxError, parse_documents

    try:
        go = go_yaml.read(text)
    except ValueError:  # Go refuses it: kustomize fails, nothing is read
        return
    if _json_keys_collide(text) or any(go_yaml.read(text) != go for _ in range(3)):
        # keys that become one JSON key ({1: x, '1': y}): which one sigs.k8s.io/yaml keeps follows Go's
        # map order, different on each read, so Go itself gives no one answer to agree with (reading
        # it again can agree by chance: 3 reads of a 50/50 choice agree 1 time in 4, so such texts are
        # also found by their keys)
        return
    try:
        ours = spec.read_kustomization(text).value
    except spec.Unreadable:
        ours = None  # refused: HL007, kustomize never starts
    assert ours is None or ours == go, text
    try:
        first = parse_documents(text.split("\n---\n")[0] + "\n")[0].value
    except (YamlSyntaxError, DocumentTooComplex):
        return
    if not any(tag in text for tag in ("!!int ", "!!float ", "!!bool ", "!!null ")):
        assert first == go, text


# --- Helm: Chart.yaml as Helm reads it ---------------------------------------------------------------

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
SEED_JOB = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: seed\n  annotations:\n    argocd.argoproj.io/hook: "
            "PreSync\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: s\n"
            "        image: docker.io/evil/seed:latest\n")  # fmt: skip


def lint_json(*paths: str) -> tuple[int, list[dict]]:
    result = CliRunner().invoke(cli_app, ["lint", *paths, "-f", "json"])
    return result.exit_code, json.loads(result.output)["findings"]


@needs_helm
def test_a_chart_dependency_a_merge_key_sets_is_checked_as_helm_reads_it(repo):
    """go-yaml v2 lets a merge key written after ``dependencies: []`` set them: Helm reads a
    ``file://`` dependency outside the repository that PyYAML (the explicit key wins) never showed
    hooklint. Before: no dependency seen, Helm's own "missing in charts/" error."""
    write(repo.parent, {"common/Chart.yaml": "apiVersion: v2\nname: common\nversion: 0.3.0\n",
                        "common/templates/seed.yaml": SEED_JOB})  # fmt: skip
    write(repo, {"shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.2.0\ndependencies: []\n<<: {dependencies: "
                 "[{name: common, version: 0.3.0, repository: 'file://../../common'}]}\n",
                 "shop/templates/cm.yaml": CM})  # fmt: skip
    code, findings = lint_json("shop")
    assert code == 1
    assert [(f["rule_id"], f["path"], f["message"]) for f in findings] == [(
        "HL007", "shop/Chart.yaml", "Rendering failed: chart dependency common: file://../../common resolves outside "
        "the repository; hooklint reads nothing outside it (and Argo CD's checkout of the repository does not hold "
        "it). Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is checked until "
        "it renders.")]  # fmt: skip


@needs_helm
def test_a_chart_yaml_helm_reads_is_read_whatever_follows_its_first_document(repo):
    """Helm reads the first document of ``Chart.yaml``; before, PyYAML refused the file (HL007)."""
    write(repo, {"shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.2.0\n---\nnotes: later\n",
                 "shop/templates/seed.yaml": SEED_JOB})  # fmt: skip
    code, findings = lint_json("shop")
    assert "HL007" not in {f["rule_id"] for f in findings}
    assert "HL102" in {f["rule_id"] for f in findings}


@needs_helm
def test_a_chart_yaml_hooklint_cannot_read_as_helm_does_is_hl007(repo):
    write(repo, {"shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.2.0\ndependencies: !!int x\n",
                 "shop/templates/seed.yaml": SEED_JOB})  # fmt: skip
    code, findings = lint_json("shop")
    assert [(f["rule_id"], f["line"], f["message"]) for f in findings] == [(
        "HL007", 4, "Rendering failed: shop/Chart.yaml is not YAML hooklint reads as Helm does: yaml: cannot decode "
        "!!str `[redacted]` as a !!int. Argo CD's repo server fails the same way, so the application cannot sync; nothing of it "
        "is checked until it renders.")]  # fmt: skip


@needs_helm
def test_a_template_helm_outputs_is_linted_whatever_a_merge_key_does_to_its_hook(repo):
    """Helm's ``SortManifests`` reads each document's head with sigs.k8s.io/yaml: a merge key after
    ``annotations`` replaces them, so the unknown hook type written there is gone and Helm outputs
    the Job (Argo CD applies it). Before, hooklint read the head with PyYAML (the explicit
    annotations win), took the Job for a hook Helm skips, and never linted it."""
    job = SEED_JOB.replace("    argocd.argoproj.io/hook: PreSync\n", "    helm.sh/hook: not-a-hook\n  <<: {annotations: "
                           "{argocd.argoproj.io/hook: PreSync}}\n")  # fmt: skip
    write(repo, {"shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.2.0\n", "shop/templates/seed.yaml": job})
    code, findings = lint_json("shop")
    assert code == 1
    assert ("HL102", "shop/templates/seed.yaml") in {(f["rule_id"], f["path"]) for f in findings}


FOLD_JOB = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: mig\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n"
            "    argocd.argoproj.io/sync-options: Validate=false\n    helm.sh/hook: bogus\n  annotation\u017f: null\n"
            "spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n"
            "        image: registry.k8s.io/busybox:1.0\n        securityContext:\n          privileged: true\n")  # fmt: skip


@needs_helm
def test_a_template_helm_outputs_is_linted_whatever_a_folded_annotations_key_does_to_its_hook(repo):
    """Attack 21, B1: Helm's ``SortManifests`` decodes the head with encoding/json, keys sorted and
    matched in any case (Go's folding): ``annotation\u017f: null`` sorts after ``annotations`` and
    sets them to nil, so the unknown hook type is gone and Helm outputs the Job, which Argo CD
    (exact keys) runs as a PreSync hook. Before, hooklint read ``annotations`` by exact key, dropped
    the Job as Helm's unknown hook and passed the chart (exit 0)."""
    write(repo, {"shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.2.0\n", "shop/templates/job.yaml": FOLD_JOB})
    code, findings = lint_json("shop")
    assert code == 1
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in findings if f["rule_id"] == "HL105"] == [
        ("HL105", "shop/templates/job.yaml", 18, 11)]


_BUILT_PT = "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: local.yaml\n"
_BUILT_GEN = "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata:\n  name: gen\nfiles:\n- k=local.txt\n"


def _built_cases(url: str) -> dict[str, tuple[dict[str, str], str]]:
    """A ``transformers`` / ``generators`` folder whose own build rewrites the builtin plugin
    configuration it outputs to name ``url``: (files, the HL009 message's start)."""
    json_patch = (f"patches:\n- target:\n    kind: PatchTransformer\n  patch: |-\n    - op: replace\n"
                  f"      path: /path\n      value: {url}\n")  # fmt: skip
    return {
        "transformer, JSON patch": (
            {"app/kustomization.yaml": "resources:\n- cm.yaml\ntransformers:\n- tdir\n",
             "app/tdir/kustomization.yaml": "resources:\n- pt.yaml\n" + json_patch, "app/tdir/pt.yaml": _BUILT_PT,
             "app/tdir/local.yaml": PATCH},
            "transformers entry 'tdir' is a kustomization whose patches (app/tdir/kustomization.yaml)"),
        "generator, JSON patch": (
            {"app/kustomization.yaml": "resources:\n- cm.yaml\ngenerators:\n- gdir\n",
             "app/gdir/kustomization.yaml": "resources:\n- g.yaml\npatches:\n- target:\n    kind: ConfigMapGenerator\n"
                                            f"  patch: |-\n    - op: replace\n      path: /files/0\n      value: {url}\n",
             "app/gdir/g.yaml": _BUILT_GEN, "app/gdir/local.txt": "hi\n"},
            "generators entry 'gdir' is a kustomization whose patches (app/gdir/kustomization.yaml)"),
        "transformer, strategic merge patch of a base": (
            {"app/kustomization.yaml": "resources:\n- cm.yaml\ntransformers:\n- tdir\n",
             "app/tdir/kustomization.yaml": "resources:\n- base\n",
             "app/tdir/base/kustomization.yaml": "resources:\n- pt.yaml\npatchesStrategicMerge:\n- |-\n"
                                                 "  apiVersion: builtin\n  kind: PatchTransformer\n  metadata:\n"
                                                 f"    name: p\n  path: {url}\n",
             "app/tdir/base/pt.yaml": _BUILT_PT, "app/tdir/base/local.yaml": PATCH},
            "transformers entry 'tdir' is a kustomization whose patchesStrategicMerge "
            "(app/tdir/base/kustomization.yaml)"),
    }


@needs_kustomize
@pytest.mark.parametrize("case", ["transformer, JSON patch", "generator, JSON patch",
                                  "transformer, strategic merge patch of a base"])  # fmt: skip
def test_a_plugin_folder_whose_build_rewrites_its_configuration_is_left_out(repo, listener, case):
    """Before: a ``transformers`` (``generators``) entry naming a kustomization folder was checked
    as its files are written (``path: local.yaml``), but kustomize builds the folder first and
    configures the plugins from what it outputs (v5.5.0 ``api/internal/target/kusttarget.go``
    ``configureExternalTransformers``); the folder's own patch made the path a URL, which
    ``api/loader/fileloader.go`` ``Load`` fetched (exit 0 without a network namespace; a false HL007
    with one). Now the entry is HL009 and left out: nothing is fetched."""
    files, start = _built_cases(f"http://127.0.0.1:{listener.port}/viapatch")[case]
    write(repo, files)
    result = CliRunner().invoke(cli_app, ["lint", "app"])
    listener.close()
    assert listener.connections == []
    field = start.split()[0]
    assert result.output.splitlines()[0] == (
        f"app/kustomization.yaml:4:3: warning HL009 source-not-rendered: {start} may rewrite the plugin "
        "configurations it builds, so the paths and URLs kustomize then reads (and may fetch) are not known before "
        "it runs; write the plugin configurations with their final paths, without patches, replacements or "
        "transformers. Argo CD renders it, fetching any URL the built configurations name. hooklint left it out, so "
        "the objects it adds, possibly hooks, were not checked; the rest of the application was.")
    assert field in ("transformers", "generators") and result.exit_code == 1


@needs_kustomize
def test_a_plugin_folder_without_a_patch_of_its_own_is_rendered(repo, listener):
    """A ``transformers`` folder whose kustomization only lists its plugin configurations is read
    as written and rendered: its PatchTransformer patches the ConfigMap, no HL009."""
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\ntransformers:\n- tdir\n",
                 "app/tdir/kustomization.yaml": "resources:\n- pt.yaml\n",
                 "app/tdir/pt.yaml": _BUILT_PT, "app/local.yaml": PATCH})  # read from app/ (kustomize's root)
    rendering, error, _ = render()
    listener.close()
    assert listener.connections == [] and error is None and rendering is not None
    assert rendering.omitted == []
    assert [d.text for d in rendering.documents] == [
        "apiVersion: v1\ndata:\n  level: debug\nkind: ConfigMap\nmetadata:\n  name: settings\n"]


@needs_kustomize
def test_a_plugin_folder_building_on_a_base_outside_it_is_checked_in_that_base(repo, listener):
    """Before: only the files under a ``transformers`` folder were read as plugin configurations;
    a base it builds on outside it (kustomize allows a base anywhere in the repository) held a
    PatchTransformer whose ``path`` was a URL, and kustomize fetched it. Now every folder the
    build reads is checked: the entry is HL009 and left out, nothing is fetched."""
    url = f"http://127.0.0.1:{listener.port}/x"
    write(repo, {"app/kustomization.yaml": "resources:\n- cm.yaml\ntransformers:\n- tdir\n",
                 "app/tdir/kustomization.yaml": "resources:\n- ../../other\n",
                 "other/kustomization.yaml": "resources:\n- pt.yaml\n",
                 "other/pt.yaml": _BUILT_PT.replace("local.yaml", url)})
    result = CliRunner().invoke(cli_app, ["lint", "app"])
    listener.close()
    assert listener.connections == []
    assert result.output.splitlines()[0] == (
        f"app/kustomization.yaml:4:3: warning HL009 source-not-rendered: transformers entry 'tdir' configures "
        f"PatchTransformer with '{url}', which kustomize fetches: it needs the network; hooklint never uses the "
        "network: vendor the file into the repository. Argo CD fetches it when it renders the application. hooklint "
        "left it out, so the objects it adds, possibly hooks, were not checked; the rest of the application was.")
    assert result.exit_code == 1
