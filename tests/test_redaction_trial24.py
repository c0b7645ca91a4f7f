"""A secret value is never printed because hooklint could not read all of what a renderer reads
(attacker trial 24): where the values it looks for may be incomplete, a renderer's message is not
shown and a chart's rendering is not used (fail closed); and the files it reads give the values
they hold in more forms.

- B1: the walk of a values document stopped after 50,000 nodes, with the password after a long list;
- B2, B6: a values file or manifest libyaml refuses and Go reads (a byte order mark inside it) was read
  line by line, which misses a flow mapping (``db: {password: ...}``);
- B3, B4: the 5,001st input file, and one over 1 MiB, were never read;
- B5: only the ``values.yaml`` files of a packaged subchart were read, not its ``files/``;
- B7: a Secret's ``data`` that decodes to text with a carriage return, a tab or a no-break space was
  not registered decoded;
- B8: a properties line with a white-space separator, INI and TOML keys with spaces, ``.netrc`` and
  XML attributes.
"""

from __future__ import annotations

import base64
import io
import tarfile

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.render import redact
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize
from hooklint.sources.render.redact import SecretValues, secret_values

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")

SECRET = "Zq8vN3kLpW2xR7tY5uJ1"
CHART = "apiVersion: v2\nname: c\nversion: 1.0.0\n"
FAIL = "{{ fail .Values.db.password }}\n"
TAIL = (". Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is checked "
        "until it renders.")  # fmt: skip


def _withheld(why: str) -> str:
    return (f"the renderer's message is not shown, as it may quote a secret value hooklint could not look for "
            f"({why}); run the renderer yourself to read it")  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lint(*args: str) -> tuple[int, list[str]]:
    """The exit code and the first two lines (a finding, a blank line) of ``hooklint lint ARGS``,
    whose output must not hold the secret."""
    result = CliRunner().invoke(app, ["lint", *args])
    assert SECRET not in result.output
    return result.exit_code, result.output.splitlines()[:2]


@needs_helm
def test_a_password_after_a_long_list_is_found_and_hidden(repo):
    """B1: the walk stopped at 50,000 nodes, before ``db`` (its stack is last in, first out)."""
    filler = "filler:\n" + "".join(f"- {i}\n" for i in range(50_001))
    write(repo, {"c/Chart.yaml": CHART, "c/values.yaml": f"db: {{password: {SECRET}}}\n{filler}",
                 "c/templates/x.yaml": FAIL})  # fmt: skip
    assert _lint("c") == (1, [
        "c/templates/x.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at "
        f"(c/templates/x.yaml:1:3): [the value of `password`]{TAIL}", ""])  # fmt: skip


@needs_helm
def test_a_values_file_libyaml_refuses_withholds_the_renderers_message(repo):
    """B2: a byte order mark inside values.yaml: Go reads it, libyaml does not, and the lines missed
    the flow mapping; Helm rendered and ``fail`` printed the password."""
    write(repo, {"c/Chart.yaml": CHART, "c/templates/x.yaml": FAIL})
    (repo / "c/values.yaml").write_bytes(f"db: {{password: {SECRET}}}\n\ufeffx: y\n".encode())
    assert _lint("c") == (1, [
        "c/templates/x.yaml:1:3: error HL007 render-failed: Rendering failed: "
        f"{_withheld('c/values.yaml is not YAML hooklint reads')}{TAIL}", ""])  # fmt: skip


@needs_helm
def test_a_chart_whose_values_hooklint_cannot_read_is_not_rendered(repo):
    """B2 in a finding: a rendered annotation quoting the password (HL012) is not reported from a
    rendering whose values hooklint could not read: the chart is left unrendered (HL009)."""
    write(repo, {"c/Chart.yaml": CHART, "c/templates/x.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n"
        "    argocd.argoproj.io/sync-wave: {{ .Values.db.password | quote }}\n")})  # fmt: skip
    (repo / "c/values.yaml").write_bytes(f"db: {{password: {SECRET}}}\n\ufeffx: y\n".encode())
    assert _lint("c") == (1, [
        "c/Chart.yaml:1:1: warning HL009 source-not-rendered: hooklint could not look for the secret values of "
        "this chart (a values file is not YAML hooklint reads), so it does not use its rendering: a finding could "
        "quote one. Argo CD renders it. hooklint did not render c/, so none of its objects were checked, hooks "
        "included.", ""])  # fmt: skip


@needs_kustomize
def test_a_manifest_libyaml_refuses_withholds_kustomizes_message(repo):
    """B6: the Secret a replacement reads, with a byte order mark inside its file: kustomize printed
    its value in "options.index 5 is out of bounds for value ..."."""
    write(repo, {"k/kustomization.yaml": (
        "resources: [cm.yaml, sec.yaml]\nreplacements:\n- source: {kind: Secret, name: s, fieldPath: stringData.password, "
        "options: {delimiter: '#', index: 5}}\n  targets:\n  - select: {kind: ConfigMap, name: c}\n    fieldPaths: [data.a]\n"),
        "k/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n"})  # fmt: skip
    (repo / "k/sec.yaml").write_bytes(
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData: {{password: {SECRET}}}\n\ufeffx: y\n".encode())
    assert _lint("k") == (1, [
        "k/kustomization.yaml:1:1: error HL007 render-failed: Rendering failed: "
        f"{_withheld('k/sec.yaml is not YAML hooklint reads')}{TAIL}", ""])  # fmt: skip


def test_inputs_past_the_bounds_leave_the_values_incomplete(tmp_path, monkeypatch):
    """B3, B4: the input files past :data:`MAX_FILES`, and a file over :data:`MAX_FILE_BYTES`, were
    never read, and nothing said so."""
    monkeypatch.setattr(redact, "MAX_FILES", 3)
    monkeypatch.setattr(redact, "MAX_FILE_BYTES", 64)
    names = [f"f{i}.txt" for i in range(4)]
    for name in names:
        (tmp_path / name).write_text("")
    assert secret_values([str(tmp_path / n) for n in names], str(tmp_path)).incomplete == ["more than 3 input files"]
    (tmp_path / "values.yaml").write_text(f"password: {SECRET}\n" + "#" * 64)
    assert secret_values([str(tmp_path / "values.yaml")], str(tmp_path)).incomplete == [
        "values.yaml is larger than 64 bytes"]
    (tmp_path / "small.yaml").write_text(f"password: {SECRET}\n")
    found = secret_values([str(tmp_path / "small.yaml")], str(tmp_path))
    assert (found.incomplete, found.kept()) == ([], {SECRET: "password"})


def test_a_generators_file_too_large_to_read_leaves_the_values_incomplete(tmp_path, monkeypatch):
    """B4 through a ``secretGenerator``'s ``files`` and ``envs``, and a Helm ``fileParameters`` file:
    kustomize and Helm read them whole."""
    monkeypatch.setattr(redact, "MAX_FILE_BYTES", 64)
    (tmp_path / "kustomization.yaml").write_text("secretGenerator:\n- name: s\n  files: [big.key]\n  envs: [big.env]\n")
    (tmp_path / "big.key").write_text("k" * 65)
    (tmp_path / "big.env").write_text("#" * 65)
    assert secret_values([str(tmp_path / "kustomization.yaml")], str(tmp_path)).incomplete == [
        "big.key is larger than 64 bytes", "big.env is larger than 64 bytes"]
    assert redact.file_parameter_secrets([("db.password", "big.key")], str(tmp_path), str(tmp_path)).incomplete == [
        "big.key is larger than 64 bytes"]


def _archive(files: dict[str, str]) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    return data.getvalue()


def test_every_file_of_a_packaged_subchart_is_read(tmp_path):
    """B5: ``.Files.Get "files/db-password.txt"`` of a packaged subchart printed its content; its
    ``values.yaml`` alone was read. A template need not parse; a values file must."""
    (tmp_path / "s.tgz").write_bytes(_archive({
        "s/Chart.yaml": CHART, "s/files/db-password.txt": SECRET, "s/templates/x.yaml": "{{ fail (.Files.Get \"x\") }}\n",
        "s/values.yaml": "api:\n  token: Tk9sT4aWq2Lm8Nz1\n"}))  # fmt: skip
    found = secret_values([str(tmp_path / "s.tgz")], str(tmp_path))
    assert (found.incomplete, found.kept()) == ([], {SECRET: "db-password", "Tk9sT4aWq2Lm8Nz1": "token"})
    (tmp_path / "t.tgz").write_bytes(_archive({"t/values.yaml": "a: {b\n"}))
    assert secret_values([str(tmp_path / "t.tgz")], str(tmp_path)).incomplete == [
        "t.tgz/t/values.yaml is not YAML hooklint reads"]
    (tmp_path / "u.tgz").write_bytes(b"\x1f\x8b not an archive")
    assert secret_values([str(tmp_path / "u.tgz")], str(tmp_path)).incomplete == [
        "u.tgz is an archive hooklint does not read whole"]


@pytest.mark.parametrize("tail", ["\r", "\t", "\u00a0", "\r\n"])
def test_a_secrets_data_is_registered_decoded_with_white_space_around_it(tail):
    """B7: base64 of the value and a carriage return (or a tab, a no-break space) was not decoded,
    so a template that decodes it (``b64dec``) printed the value."""
    encoded = base64.b64encode((SECRET + tail).encode()).decode()
    found = SecretValues()
    found.add_encoded(encoded, "password")
    assert found.kept() == {encoded: "password", SECRET: "password"}


@pytest.mark.parametrize("line, key", [
    (f"db.password   {SECRET}", "db.password"),  # Java properties: white space separates
    (f"db.password\t{SECRET}", "db.password"),
    (f"db password = {SECRET}", "db password"),  # INI
    (f'"db password" = "{SECRET}"', "db password"),  # TOML
    (f"machine h login u password {SECRET}", "password"),  # .netrc
    (f'<add key="db.password" value="{SECRET}"/>', "db.password"),  # .NET appSettings
    (f"<connection password='{SECRET}' host=h/>", "password"),  # an XML attribute
])  # fmt: skip
def test_more_assignment_forms_are_read(line, key):
    """B8: these lines of a chart's ``files/`` were printed by ``fail (.Files.Get ...)``."""
    found = SecretValues()
    redact._plain_text("app.conf", f"# settings\n{line}\n", found)
    assert found.kept()[SECRET] == key


def test_a_long_line_of_spaces_is_read_in_linear_time():
    """The new forms are found without backtracking (an 80 kB line of spaces cost the cube of its
    length to one expression: attacker trial 10 item 8); a count, not a timing: nothing is found."""
    found = SecretValues()
    redact._plain_text("app.conf", " " * 80_000 + "\n" + "a" + " " * 80_000 + "b\n" + "key = '" * 10_000, found)
    assert found.kept() == {}
