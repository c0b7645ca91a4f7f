"""Attacker trial 25, the breaks outside the renderers' messages: hooklint's own messages and the
configuration's errors never quote a secret value (B13 an inline kustomize plugin configuration,
B14 a configuration value), a folder link out of the repository is never passed silently (B16),
and the secret values a renderer's message may quote include those of a Helm parameter's name
(B10) and of a Secret's data in more encodings (B11)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.kustomize import find_kustomize

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")
needs_kustomize = pytest.mark.skipif(find_kustomize() is None, reason="neither kustomize nor kubectl is installed")

SECRET = "Zq9xW7vK2mPLr4"
TAIL = (". Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is checked "
        "until it renders.")  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    return tmp_path


def _lint(*args: str) -> tuple[int, list[str]]:
    """The exit code and the output lines of ``hooklint lint --no-cache ARGS``, which must not hold the secret."""
    result = CliRunner().invoke(app, ["lint", "--no-cache", *args])
    assert SECRET not in result.output
    return result.exit_code, result.output.splitlines()


# --- B13: an inline plugin configuration is named, never quoted ---------------------------------------------------

EXEC = ("apiVersion: x/v1\nkind: Evil\nmetadata:\n  name: e\n  annotations:\n    config.kubernetes.io/function: |\n"
        "      exec:\n        path: ./evil.sh\n" f"password: {SECRET}\n" f'spec: {{apiToken: "{SECRET}B"}}\n')  # fmt: skip


@needs_kustomize
@pytest.mark.parametrize("field", ["transformers", "generators", "validators"])
def test_an_inline_exec_function_is_named_by_its_kind_not_quoted(repo, field):
    inline = "".join(f"  {line}\n" for line in EXEC.splitlines())
    write(repo, {"k/kustomization.yaml": f"resources: [cm.yaml]\n{field}:\n- |-\n{inline}",
                 "k/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"})  # fmt: skip
    code, lines = _lint("k")
    assert code == 1
    assert lines[0] == (
        f"k/kustomization.yaml:3:3: error HL007 render-failed: Rendering failed: an inline {field} entry (apiVersion "
        f"x/v1, kind Evil) is an exec KRM function (Evil): hooklint never runs plugins from the repository{TAIL}")


@needs_kustomize
def test_a_one_line_inline_entry_is_not_quoted_either(repo):
    write(repo, {"k/kustomization.yaml": "resources: [cm.yaml]\ntransformers:\n"
                 f'- "{{apiVersion: x/v1, kind: E, password: {SECRET}, u: a?ref=x}}"\n',
                 "k/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"})  # fmt: skip
    code, lines = _lint("k")
    assert code == 1
    assert lines[0] == (
        "k/kustomization.yaml:3:3: warning HL009 source-not-rendered: an inline transformers entry (apiVersion x/v1, "
        "kind E) is remote and needs the network; hooklint never uses the network: vendor the file into the "
        "repository. Argo CD fetches it when it renders the application. hooklint left it out, so the objects it "
        "adds, possibly hooks, were not checked; the rest of the application was.")


@needs_kustomize
def test_an_inline_entry_whose_kind_is_not_a_kind_is_named_without_it(repo):
    evil = EXEC.replace("kind: Evil", f"kind: 'x {SECRET}'")
    inline = "".join(f"  {line}\n" for line in evil.splitlines())
    write(repo, {"k/kustomization.yaml": f"resources: [cm.yaml]\ntransformers:\n- |-\n{inline}",
                 "k/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"})  # fmt: skip
    code, lines = _lint("k")
    assert code == 1
    assert lines[0] == (
        "k/kustomization.yaml:3:3: error HL007 render-failed: Rendering failed: an inline transformers entry "
        f"(apiVersion x/v1) is an exec KRM function: hooklint never runs plugins from the repository{TAIL}")


# --- B14: a configuration error never echoes a mapping or list, nor a value under a key naming a secret ------------


@pytest.mark.parametrize(("config", "message"), [
    (f"argocd-version: {{apiKey: {SECRET}}}\n", 'argocd-version must look like "3.3" or "2.14.1", not a mapping'),
    (f"argocd-version: [{SECRET}]\n", 'argocd-version must look like "3.3" or "2.14.1", not a list'),
    (f"kube-version: {{apiKey: {SECRET}}}\n", 'kube-version must look like "1.30" or "v1.30.2", not a mapping'),
    (f"kube-version: [{SECRET}]\n", 'kube-version must look like "1.30" or "v1.30.2", not a list'),
    (f"fail-on: [{SECRET}]\n", "'fail-on' must be one of error, warning, note, never, not a list"),
    (f"select: [HL1, {{token: {SECRET}}}]\n", "'select' must be a list of non-empty strings, not a list whose entry 2 "
     "is a mapping"),
    (f"disable: [HL1, [{SECRET}]]\n", "'disable' must be a list of non-empty strings, not a list whose entry 2 is a list"),
    ("per-path-ignores:\n  'password/**': [HL101, 5]\n", "'per-path-ignores' entry 'password/**' must be a list of "
     "non-empty strings, not a list whose entry 2 is int [redacted]"),
])  # fmt: skip
@pytest.mark.parametrize("command", ["lint", "doctor"])
def test_a_configuration_error_names_a_wrong_value_by_its_type(repo, config, message, command):
    write(repo, {".hooklint.yaml": config})
    result = CliRunner().invoke(app, [command])
    assert result.exit_code == 2
    line = config.count("\n") if config.startswith("per-path") else 1
    assert result.output == f"hooklint: error: {repo / '.hooklint.yaml'}:{line}: {message}\n"


# --- B16: a link to a folder out of the repository is HL007, as a link to a file is ----------------------------------


@pytest.fixture
def outside(tmp_path_factory):
    folder = tmp_path_factory.mktemp("outside")
    (folder / "job.yaml").write_text("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n")
    return folder


def _link_out(path: str) -> str:
    return (f"{path}:1:1: error HL007 render-failed: Rendering failed: {path} is a symbolic link to {{}}, outside the "
            f"repository (illegal filepath in symlink){TAIL}")  # fmt: skip


@pytest.mark.parametrize(("link", "named"), [("a", "."), ("b/a", "."), ("b/a", "b"), ("b/.a", "b")])
def test_a_folder_link_out_of_the_repository_is_never_passed(repo, outside, link, named):
    write(repo, {"b/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"})
    (repo / link).symlink_to(outside, target_is_directory=True)
    (repo / "b/in").symlink_to(repo / "b", target_is_directory=True)  # a link inside the repository: fine
    result = CliRunner().invoke(app, ["lint", "--no-cache", "--show-skipped", named])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[:3] == [_link_out(link).format(outside), "", "1 error, 0 warnings, 0 notes in 2 files"]
    assert not any("job.yaml" in line for line in lines)


def test_a_folder_link_inside_the_repository_passes(repo):
    write(repo, {"b/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"})
    (repo / "b/in").symlink_to(repo / "b", target_is_directory=True)
    result = CliRunner().invoke(app, ["lint", "--no-cache", "."])
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == "0 errors, 0 warnings, 0 notes in 1 file"


# --- B10: a Helm parameter's name that assigns more values ---------------------------------------------------------

APP = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: app2, namespace: argocd}}
spec:
  project: p
  destination: {{server: https://kubernetes.default.svc, namespace: x}}
  source:
    repoURL: https://example.com/acme/deploy.git
    path: c
    helm:
      parameters:
      - name: "{name}"
        value: "1"
"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: {{ .Values.db.token | quote }}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: ghcr.io/acme/c@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef}]
"""


@needs_helm
@pytest.mark.parametrize("name", [f"x=1,db.token={SECRET},y", f"db.token={SECRET},y", f"x[0]=a,db.token={{{SECRET},b}},y",
                                  f"x=1,db.token=Zq9\\\\,xW7vK2mPLr4,y"])  # fmt: skip
def test_a_parameter_name_assigning_a_secret_keeps_it_out_of_a_renderers_message(repo, name):
    write(repo, {".hooklint.yaml": "repo-urls: [https://example.com/acme/deploy.git]\n",
                 "apps/app.yaml": APP.format(name=name), "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
                 "c/templates/a.yaml": '{{ fail (printf "boom %s" (toString .Values.db)) }}\n'})  # fmt: skip
    result = CliRunner().invoke(app, ["lint", "--no-cache", "."])
    assert result.exit_code == 1
    assert "Zq9" not in result.output
    shown = ("map[token:[[the value of `token`] b]]" if "{" in name else "map[token:[the value of `token`]]")
    assert result.output.splitlines()[0] == (
        "c/templates/a.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at (c/templates/a.yaml:1:3): "
        f"boom {shown}{TAIL}")


@needs_helm
def test_a_parameter_name_assigning_a_secret_keeps_it_out_of_a_finding(repo):
    write(repo, {".hooklint.yaml": "repo-urls: [https://example.com/acme/deploy.git]\n",
                 "apps/app.yaml": APP.format(name=f"x=1,db.token={SECRET},y"),
                 "c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n", "c/templates/j.yaml": JOB})  # fmt: skip
    code, lines = _lint(".")
    assert code == 1
    assert [line for line in lines if "HL012" in line] == [
        "c/templates/j.yaml:7:5: error HL012 invalid-sync-wave: argocd.argoproj.io/sync-wave '[the value of `token`]' "
        "on Job/j is not an integer Argo CD can read (Go strconv.Atoi: optional sign and digits, no spaces): Argo CD "
        'silently uses wave 0. Use a whole number such as "1" or "-2".']


# --- B11: a Secret's data that decodes to text with a byte order mark, as UTF-16, or with a stray byte -------------

WAVE_JOB = """\
---
apiVersion: batch/v1
kind: Job
metadata:
  name: j{n}
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "{wave}"
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: "reg.io/x@sha256:{digest}"}}]
"""
DECODED = [  # the bytes a Secret's data holds, what a message may quote of them
    (b"\xef\xbb\xbfBc4eFg6iJk8lMn", "Bc4eFg6iJk8lMn"),  # UTF-8 with a BOM
    (b"Cd5fGh7jKl9mNo\xff", "Cd5fGh7jKl9mNo"),  # a stray invalid byte
    ("De6gHi8kLm0nOp".encode("utf-16-le"), "De6gHi8kLm0nOp"),  # UTF-16 without a BOM
    ("\ufeffGh9jKl1mNo3pQr".encode("utf-16-be"), "Gh9jKl1mNo3pQr"),  # UTF-16 with a BOM
    ("\ufeffHi0kLm2nOp4qRs".encode("utf-16-le"), "Hi0kLm2nOp4qRs"),
    (b"Ef7hIj9lMn1oPq\x00", "Ef7hIj9lMn1oPq"),  # a NUL
    (b"\xffIj1lMn3oPq5rSt\x00\x01Jk2mNo4pQr6sTu\xfe", "Jk2mNo4pQr6sTu"),  # pieces between invalid bytes
]


def test_a_secrets_data_is_registered_as_what_it_decodes_to(repo):
    import base64  # noqa: PLC0415

    data = "".join(f"  k{n}: {base64.b64encode(raw).decode()}\n" for n, (raw, _) in enumerate(DECODED))
    jobs = "".join(WAVE_JOB.format(n=n, wave=wave, digest="0" * 64) for n, (_, wave) in enumerate(DECODED))
    jobs += WAVE_JOB.format(n=len(DECODED), wave="Ij1lMn3oPq5rSt", digest="0" * 64)
    write(repo, {"a/s.yaml": f"apiVersion: v1\nkind: Secret\nmetadata: {{name: s1}}\ndata:\n{data}{jobs}"})
    code, lines = _lint("a")
    assert code == 1
    waves = [line.split("sync-wave ")[1].split(" is not")[0] for line in lines if "HL012" in line]
    assert waves == [f"'[the value of `k{n}`]' on Job/j{n}" for n in range(len(DECODED))] + [
        f"'[the value of `k{len(DECODED) - 1}`]' on Job/j{len(DECODED)}"]


def test_bytes_that_are_no_text_leave_short_pieces_alone(repo):
    from hooklint.sources.render.redact import _decoded_texts  # noqa: PLC0415
    import base64  # noqa: PLC0415

    assert _decoded_texts(base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00").decode()) == []
    assert _decoded_texts(base64.b64encode(b"abc\xffdefghijk").decode()) == ["defghijk"]
    der = b"0\x82\x03\x120\x82\x01\xfa\xa0\x03\x02\x01\x02\x02\x14\x1bexample.com0\x1e\x17\r240101000000Z"
    assert _decoded_texts(base64.b64encode(der).decode()) == []
    assert _decoded_texts("not base64!") == []


def test_doctor_reads_no_file_through_a_link_out_of_the_repository(repo, outside):
    (outside / "app.yaml").write_text("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
                                      "metadata: {name: zz-outside, namespace: argocd}\n"
                                      "spec: {source: {repoURL: https://example.com/acme/deploy.git, path: x}}\n")  # fmt: skip
    write(repo, {".hooklint.yaml": "repo-urls: [https://example.com/acme/deploy.git]\n"})
    (repo / "app.yaml").symlink_to(outside / "app.yaml")
    (repo / "d").symlink_to(outside, target_is_directory=True)
    result = CliRunner().invoke(app, ["doctor", "."])
    assert result.exit_code == 0
    assert "zz-outside" not in result.output
    assert [line for line in result.output.splitlines() if line.startswith("Applications written")] == [
        "Applications written in these files: 0 mapped, 0 ignored (those an app of apps or an ApplicationSet makes: "
        "hooklint plan)"]
