"""A chart's ``values.schema.json`` is code hooklint must not run: its references are loaded by
Helm (``http``, ``https`` and ``file`` URLs; the schema is compiled as
``file:///values.schema.json``), so a ``$ref`` made the Helm SDK fetch from the network (loopback
included) or read a file outside the repository, and quote it back in HL007. hooklint renders
such a chart without its schemas and says so (HL009 at the reference); a packaged subchart's
schema leaves the chart unrendered (HL009 at ``Chart.yaml``). The Helm child runs with an
environment built from nothing, in a network namespace of its own where the kernel allows."""

from __future__ import annotations

import http.server
import io
import json
import tarfile
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources import bounded, sandbox
from hooklint.sources.render import helm
from hooklint.sources.render.helm import find_helm

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
runner = CliRunner()
CHART = {
    "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
    "c/values.yaml": "x: hi\n",
    "c/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: {{ .Values.x }}\n",
}
SKIPPED = ("c/values.schema.json:3:19: warning HL009 source-not-rendered: values.schema.json refers to {ref!r}, which "
           "Helm loads (a URL, or a file of the repo server) to validate the values: hooklint never uses the network "
           "nor reads outside the repository. Argo CD's Helm loads it when it renders the chart. hooklint left it out, "
           "so the values were not validated against the chart's values.schema.json files (a value they refuse would "
           "fail Argo CD's sync); every object was checked.")  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    top = tmp_path / "repo"
    top.mkdir()
    (top / ".git").mkdir()
    for name, text in CHART.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text)
    monkeypatch.chdir(top)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")
    return top


@pytest.fixture
def server():
    """A loopback HTTP server that records every request and answers a schema refusing 'hi'."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the handler's name
            hits.append(self.path)
            body = json.dumps({"enum": ["FROM-THE-NETWORK"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    httpd.shutdown()


def _packaged_subchart(repo: Path, files: dict[str, str]) -> None:
    """``c/charts/sub-1.0.0.tgz``: the subchart ``sub`` (its Chart.yaml first), then ``files`` in order."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for name, text in {"sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\n", **files}.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    (repo / "c/charts").mkdir()
    (repo / "c/charts/sub-1.0.0.tgz").write_bytes(data.getvalue())


def _schema(ref_key: str, ref: str) -> str:
    return '{\n  "properties": {\n    "x": {"' + ref_key + '": ' + json.dumps(ref) + "}\n  }\n}\n"


@needs_helm
@pytest.mark.parametrize("where", ["url", "file outside", "relative outside"])
def test_a_values_schema_reference_is_never_loaded(repo, server, where):
    url, hits = server
    outside = repo.parent / "outside.json"
    outside.write_text(json.dumps({"enum": ["READ-FROM-OUTSIDE"]}))
    ref = {"url": f"{url}/s.json", "file outside": outside.as_uri(),
           "relative outside": "../" * 12 + str(outside).lstrip("/")}[where]  # fmt: skip
    (repo / "c/values.schema.json").write_text(_schema("$ref", ref))
    result = runner.invoke(app, ["lint", "c"])
    assert result.exit_code == 1, result.output
    assert hits == []
    assert "FROM-THE-NETWORK" not in result.output and "READ-FROM-OUTSIDE" not in result.output
    assert result.output.splitlines()[0] == SKIPPED.format(ref=ref)


@needs_helm
def test_a_values_schema_naming_an_unknown_meta_schema_is_not_loaded(repo, server):
    url, hits = server
    (repo / "c/values.schema.json").write_text(
        '{"$schema": "https://json-schema.org/draft-07/schema#",\n "properties": {"x": {"$schema": '
        + json.dumps(f"{url}/meta") + "}}}\n")  # fmt: skip
    result = runner.invoke(app, ["lint", "c", "-f", "json"])
    assert hits == []
    [finding] = json.loads(result.output)["findings"]
    assert (finding["rule_id"], finding["path"], finding["line"], finding["column"]) == (
        "HL009", "c/values.schema.json", 2, 34)


@needs_helm
def test_a_local_reference_still_validates_the_values(repo):
    """``#/definitions/x`` is resolved inside the schema: Helm validates as Argo CD's would, and
    the refused value is Helm's message (HL007: Argo CD fails the same way)."""
    (repo / "c/values.schema.json").write_text(
        '{"definitions": {"x": {"enum": ["nope"]}}, "properties": {"x": {"$ref": "#/definitions/x"}}}\n')
    result = runner.invoke(app, ["lint", "c"])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "c/Chart.yaml:1:1: error HL007 render-failed: Rendering failed: values don't meet the specifications of "
        "the schema(s) in the following chart(s): c: - at '/x': value must be 'nope'. Argo CD's repo server fails "
        "the same way, so the application cannot sync; nothing of it is checked until it renders.")  # fmt: skip


@needs_helm
def test_a_packaged_subcharts_schema_reference_leaves_the_chart_unrendered(repo, server):
    url, hits = server
    _packaged_subchart(repo, {"sub/values.schema.json": _schema("$ref", f"{url}/s.json")})
    result = runner.invoke(app, ["lint", "c"])
    assert hits == []
    assert result.output.splitlines()[0] == (
        f"c/Chart.yaml:1:1: warning HL009 source-not-rendered: c/charts/sub-1.0.0.tgz holds a "
        f"sub/values.schema.json that refers to '{url}/s.json', which Helm loads (a URL, or a file of the repo "
        "server) to validate the values: hooklint never uses the network nor reads outside the repository. Argo CD "
        "fetches it when it renders the application. hooklint did not render c/, so none of the chart's objects were "
        "checked, hooks included.")  # fmt: skip


@needs_helm
def test_the_helm_child_runs_with_an_environment_built_from_nothing_and_no_network(repo, monkeypatch):
    seen: list[tuple[list[str], dict[str, str]]] = []
    real = bounded.run

    def recorded(argv, **kwargs):
        seen.append((list(argv), dict(kwargs["env"])))
        return real(argv, **kwargs)

    monkeypatch.setenv("MY_SECRET_TOKEN", "s3cr3t")
    monkeypatch.setenv("HELM_REPOSITORY_CONFIG", "/etc/helm/repositories.yaml")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    monkeypatch.setattr(bounded, "run", recorded)
    result = runner.invoke(app, ["lint", "c"])
    assert result.exit_code == 0, result.output
    assert seen, "the chart was rendered"
    allowed = {"PATH", "HOME", "LANG", "LC_ALL", "TZ", "KUBECONFIG", "HELM_CACHE_HOME", "HELM_CONFIG_HOME",
               "HELM_DATA_HOME", "HELM_PLUGINS", "HELM_REGISTRY_CONFIG", "HELM_REPOSITORY_CONFIG", "HELM_C_LIB"}  # fmt: skip
    for argv, env in seen:
        assert set(env) <= allowed, sorted(set(env) - allowed)
        assert not env["HELM_REPOSITORY_CONFIG"].startswith("/etc/")
        isolation = sandbox.network_isolation(str(repo))
        assert tuple(argv[: len(isolation)]) == isolation


UNSEEN = ("c/values.schema.json:1:1: warning HL009 source-not-rendered: values.schema.json may refer to a URL or file "
          "hooklint cannot see ({why}), which Helm loads (a URL, or a file of the repo server) to validate the values: "
          "hooklint never uses the network nor reads outside the repository. Argo CD's Helm loads it when it renders "
          "the chart. hooklint left it out, so the values were not validated against the chart's values.schema.json "
          "files (a value they refuse would fail Argo CD's sync); every object was checked.")  # fmt: skip


@needs_helm
@pytest.mark.parametrize("padding, why", [
    ('"x": ' + "[" * 3000 + "]" * 3000, "nested too deeply"),
    ('"default": ' + "1" * 5000, "a number of too many digits"),
])  # fmt: skip
def test_a_schema_hooklint_cannot_read_through_is_not_loaded(repo, server, monkeypatch, padding, why):
    """Second trial: Python's JSON reader gave up on 3,000 levels of nesting or a 5,000-digit
    number, so the scan found no reference and Helm (whose Go reader reads both) fetched the
    ``$ref``. Such a schema now counts as a reference: hooklint fails closed. Without a network
    namespace (the kernel may refuse one), nothing reaches the loopback server either."""
    url, hits = server
    monkeypatch.setenv("HOOKLINT_NO_NETNS", "1")
    (repo / "c/values.schema.json").write_text('{"$ref": ' + json.dumps(f"{url}/s.json") + ", " + padding + "}\n")
    result = runner.invoke(app, ["lint", "c"])
    assert hits == []
    assert result.output.splitlines()[0] == UNSEEN.format(why=why)


@needs_helm
@pytest.mark.parametrize("meta, left_out", [
    ("http://json-schema.org/draft-05/schema#", True),  # santhosh-tekuri/jsonschema v6 knows 04, 06, 07, 2019-09, 2020-12
    ("https://json-schema.org/schema", False),
    ("http://json-schema.org/draft-07/schema#", False),
])  # fmt: skip
def test_only_the_meta_schemas_helms_library_knows_are_not_loaded(repo, server, meta, left_out):
    (repo / "c/values.schema.json").write_text(json.dumps({"$schema": meta, "properties": {"x": {"type": "string"}}}))
    result = runner.invoke(app, ["lint", "c", "-f", "json"])
    assert [f["rule_id"] for f in json.loads(result.output)["findings"]] == (["HL009"] if left_out else [])


@needs_helm
def test_an_archive_too_large_to_look_through_leaves_the_chart_unrendered(repo, server):
    """Second trial: 10,001 files before ``sub/values.schema.json`` ended the scan before it."""
    url, hits = server
    files = {f"sub/files/{i}.txt": "" for i in range(10_001)}
    _packaged_subchart(repo, files | {"sub/values.schema.json": _schema("$ref", f"{url}/s.json")})
    result = runner.invoke(app, ["lint", "c"])
    assert hits == []
    assert result.output.splitlines()[0].startswith(
        "c/Chart.yaml:1:1: warning HL009 source-not-rendered: c/charts/sub-1.0.0.tgz holds a values.schema.json that "
        "may refer to a URL or file hooklint cannot see (an archive too large to look through)")


# --- issue 32: what Helm reads of a schema that Python's JSON reader does not ------------------------


BOM = "\ufeff"


@needs_helm
@pytest.mark.parametrize("where", ["url", "file outside"])
def test_a_schema_opening_with_a_bom_is_scanned_as_helm_reads_it(repo, server, monkeypatch, where):
    """Before: Python's JSON reader refused the UTF-8 BOM, the scan found no reference, and Helm
    (whose chart loader strips the BOM) loaded the ``$ref``: fetched the loopback URL without a
    network namespace, or read the file outside the repository."""
    url, hits = server
    monkeypatch.setenv("HOOKLINT_NO_NETNS", "1")
    outside = repo.parent / "outside.json"
    outside.write_text(json.dumps({"enum": ["READ-FROM-OUTSIDE"]}))
    ref = {"url": f"{url}/s.json", "file outside": outside.as_uri()}[where]
    (repo / "c/values.schema.json").write_text(BOM + _schema("$ref", ref), encoding="utf-8")
    result = runner.invoke(app, ["lint", "c"])
    assert hits == []
    assert "FROM-THE-NETWORK" not in result.output and "READ-FROM-OUTSIDE" not in result.output
    assert result.output.splitlines()[0] == SKIPPED.format(ref=ref)


@needs_helm
def test_a_packaged_subcharts_schema_opening_with_a_bom_leaves_the_chart_unrendered(repo, server, monkeypatch):
    url, hits = server
    monkeypatch.setenv("HOOKLINT_NO_NETNS", "1")
    _packaged_subchart(repo, {"sub/values.schema.json": BOM + _schema("$ref", f"{url}/s.json")})
    result = runner.invoke(app, ["lint", "c"])
    assert hits == []
    assert result.output.splitlines()[0].startswith(
        f"c/Chart.yaml:1:1: warning HL009 source-not-rendered: c/charts/sub-1.0.0.tgz holds a "
        f"sub/values.schema.json that refers to '{url}/s.json', which Helm loads")


@needs_helm
@pytest.mark.parametrize("text, why", [
    (BOM + BOM + '{"$ref": "URL"}', "JSON Python's reader refuses: Unexpected UTF-8 BOM (decode using utf-8-sig): "
     "line 1 column 1 (char 0)"),
    ('{"properties": {"x": {"\\u0024ref": "file:///srv/s.json"}}} trailing', "JSON Python's reader refuses: Extra "
     "data: line 1 column 60 (char 59)"),
    ('{"a": 1,, "$ref": "URL"}', "JSON Python's reader refuses: Expecting property name enclosed in double quotes: "
     "line 1 column 9 (char 8)"),
])  # fmt: skip
def test_a_schema_pythons_reader_refuses_is_not_loaded_when_it_may_name_a_reference(repo, server, monkeypatch,
                                                                                     text, why):  # fmt: skip
    """The class: any schema text Python's ``json`` refuses while it may spell ``$ref`` counts as a
    reference hooklint cannot see (Go's reader differs from Python's; hooklint does not bet on
    which refuses what)."""
    url, hits = server
    monkeypatch.setenv("HOOKLINT_NO_NETNS", "1")
    (repo / "c/values.schema.json").write_text(text.replace("URL", f"{url}/s.json"), encoding="utf-8")
    result = runner.invoke(app, ["lint", "c"])
    assert hits == []
    assert result.output.splitlines()[0] == UNSEEN.format(why=why)


def test_invalid_json_that_cannot_name_a_reference_is_helms_to_refuse():
    assert helm._loads_in('{"properties": {"x": {"type": "string"},}}', "values.schema.json") == []


@needs_helm
def test_an_archive_go_reads_otherwise_leaves_the_chart_unrendered(repo, server):
    """Attacker trial 27, B2/B3: a PAX global header renames ``sub/values.schema.json`` for Python's
    tarfile only; Helm's loader (Go) reads the schema and would resolve its ``$ref``."""
    url, hits = server
    schema = _schema("$ref", f"{url}/s.json").encode()
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz", format=tarfile.USTAR_FORMAT) as tar:
        for name, text in {"sub/Chart.yaml": b"apiVersion: v2\nname: sub\nversion: 1.0.0\n", "sub/values.schema.json": schema}.items():
            if name.endswith(".json"):
                tar.fileobj.write(tarfile.TarInfo.create_pax_global_header({"path": "sub/README.md"}))
                tar.offset += 1024
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
    (repo / "c/charts").mkdir()
    (repo / "c/charts/sub-1.0.0.tgz").write_bytes(data.getvalue())
    result = runner.invoke(app, ["lint", "c"])
    assert hits == []
    assert result.output.splitlines()[0].startswith(
        "c/Chart.yaml:1:1: warning HL009 source-not-rendered: c/charts/sub-1.0.0.tgz holds a values.schema.json that "
        "may refer to a URL or file hooklint cannot see (an archive that is read otherwise by Go's archive/tar (Helm, "
        "Argo CD) than by Python's tarfile: its member 2 is 'sub/values.schema.json' (file, ")
