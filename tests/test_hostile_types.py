"""Property tests: a kustomization or Application may hold any YAML value where Argo CD and
kustomize expect a list, a mapping or a string. Whatever it holds, hooklint reads it without an
internal error (no ``internal error`` finding, no crash of the whole run), and the exit code is
that of a lint (0 or 1).

kustomize itself is replaced by a stand-in that prints the application's ConfigMap: what is under
test is hooklint's reading before and after the renderer (discovery, the copy, ``apply_options``,
placement); kustomize's own refusal of a bad field is covered in test_kustomize.py.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hooklint.cli import app
from hooklint.sources.render import kustomize as kz
from hooklint.sources.repository.kustomize_spec import KUSTOMIZATION_FIELDS

runner = CliRunner()

SETTINGS = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
JOB = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n"
       "spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: x\n        image: nginx\n")  # fmt: skip

#: Values of every YAML type, and lists of them.
WRONG = st.sampled_from([1, -1, 1.5, "x", "", True, None, {"a": 1}, [1], [None], [{"a": 1}], [[1]], ["x=1"],
                         {"a": [1]}, [{"path": 1}], [{"files": 1}]])  # fmt: skip

#: (field, subfield or None) of a kustomization: every field, and every field of its struct levels.
KUSTOMIZATION_SLOTS = [(field, None) for field in KUSTOMIZATION_FIELDS] + [
    (field, sub) for field, shape in KUSTOMIZATION_FIELDS.items() if shape for sub in shape[1]]


@pytest.fixture
def fake_kustomize(monkeypatch):
    """kustomize stood in for: it prints the ConfigMap, and exits 0."""

    def run(argv, **_):
        return subprocess.CompletedProcess(argv, 0, stdout=CM, stderr="")

    monkeypatch.setattr(kz.bounded, "run", run)
    monkeypatch.setattr(kz, "find_kustomize", lambda repository=None: (["/bin/true"], kz.Renderer("kustomize", "v5.5.0")))


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    return root


def lint(*args: str):
    result = runner.invoke(app, ["lint", "-f", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "internal error" not in result.output
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


@SETTINGS
@given(slot=st.sampled_from(KUSTOMIZATION_SLOTS), value=WRONG)
@example(slot=("patches", None), value=1)  # internal error: 'int' object is not iterable (the render's walk)
@example(slot=("configMapGenerator", "files"), value=1)  # the whole run ended: discovery's kustomization_inputs
@example(slot=("buildMetadata", None), value=[{"a": 1}])  # unhashable type: 'dict' (the copy's buildMetadata)
def test_any_value_in_any_kustomization_field(repo, fake_kustomize, slot, value):
    field, sub = slot
    shape = KUSTOMIZATION_FIELDS[field]
    if sub is None:
        body = {field: value}
    else:
        body = {field: [{sub: value}] if shape[0] == "list" else {sub: value}}
    if field != "resources":
        body["resources"] = ["cm.yaml"]
    (repo / "k").mkdir(exist_ok=True)
    (repo / "k" / "cm.yaml").write_text(CM)
    (repo / "k" / "kustomization.yaml").write_text(json.dumps(body))
    lint(".")


#: (folder, option block, field) of an Application's source.
APPLICATION_SLOTS = [("k", "kustomize", f) for f in (
    "namePrefix", "nameSuffix", "images", "commonLabels", "commonAnnotations", "namespace", "patches", "components",
    "replicas", "version", "forceCommonLabels", "labelWithoutSelector", "kubeVersion", "apiVersions",
    "forceCommonAnnotations", "commonAnnotationsEnvsubst", "labelIncludeTemplates", "ignoreMissingComponents")] + [
    ("h", "helm", f) for f in (
    "valueFiles", "values", "valuesObject", "parameters", "fileParameters", "releaseName", "skipCrds",
    "ignoreMissingValueFiles", "version", "kubeVersion", "apiVersions", "namespace", "skipTests")] + [
    ("d", "directory", f) for f in ("recurse", "include", "exclude", "jsonnet")] + [
    (folder, None, f) for folder in ("k", "h", "d") for f in (
    "path", "repoURL", "targetRevision", "chart", "ref", "name", "kustomize", "helm", "directory", "plugin")]  # fmt: skip


def application_repo(repo: Path) -> None:
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", "https://github.com/acme/shop.git"], check=True)
    files = {"k/kustomization.yaml": "resources: [job.yaml]\n", "k/job.yaml": JOB, "d/job.yaml": JOB,
             "h/Chart.yaml": "apiVersion: v2\nname: h\nversion: 1.0.0\n", "h/templates/job.yaml": JOB}  # fmt: skip
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)


@SETTINGS
@given(slot=st.sampled_from(APPLICATION_SLOTS), value=WRONG, multi=st.booleans())
def test_any_value_in_any_application_source_field(tmp_path, monkeypatch, fake_kustomize, slot, value, multi):
    repo = tmp_path / "repo"
    if not repo.exists():
        repo.mkdir()
        monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
        application_repo(repo)
    monkeypatch.chdir(repo)
    folder, block, field = slot
    source = {"repoURL": "https://github.com/acme/shop.git", "path": folder, "targetRevision": "HEAD"}
    if block is None:
        source[field] = value
    else:
        source[block] = {field: value}
    spec = {"project": "p", "destination": {"server": "https://kubernetes.default.svc", "namespace": "x"}}
    spec.update({"sources": [source, {"repoURL": "https://github.com/acme/shop.git", "path": "d"}]} if multi
                else {"source": source})  # fmt: skip
    application = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
                   "metadata": {"name": "a", "namespace": "argocd"}, "spec": spec}  # fmt: skip
    (repo / "apps").mkdir(exist_ok=True)
    (repo / "apps" / "a.json").write_text(json.dumps(application))
    lint(".")


def test_an_application_written_as_json_is_read_as_argo_cd_reads_it(tmp_path, monkeypatch, fake_kustomize):
    """Argo CD applies JSON manifests as it applies YAML, so an Application in ``apps/a.json`` (or
    in flow-style YAML) points at the folder it renders. Before, the cheap text test before parsing
    looked only for a block-YAML ``kind: Application`` line: the Application's kustomize options
    were never applied, and its ``spec.source.kustomize.namePrefix: 1`` went unreported."""
    repo = tmp_path / "repo"
    repo.mkdir()
    application_repo(repo)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    spec = {"project": "p", "destination": {"server": "https://kubernetes.default.svc", "namespace": "x"},
            "source": {"repoURL": "https://github.com/acme/shop.git", "path": "k", "kustomize": {"namePrefix": 1}}}
    (repo / "apps").mkdir()
    for name, text in {"a.json": json.dumps({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
                                             "metadata": {"name": "json-app"}, "spec": spec}),
                       "b.yaml": "{apiVersion: argoproj.io/v1alpha1, kind: Application, metadata: {name: flow-app}, "
                                 "spec: " + json.dumps(spec) + "}\n"}.items():  # fmt: skip
        (repo / "apps" / name).write_text(text)
    report = lint("apps", "k")
    assert sorted((f["rule_id"], f["path"], f["line"], f["message"]) for f in report["findings"]) == [
        ("HL007", "k/kustomization.yaml", 1, f"Rendering failed: Application {name} ({where}:1): kustomize.namePrefix "
         "must be a string. Argo CD's repo server fails the same way, so the application cannot sync; nothing of it "
         "is checked until it renders.") for name, where in (("flow-app", "apps/b.yaml"), ("json-app", "apps/a.json"))]
