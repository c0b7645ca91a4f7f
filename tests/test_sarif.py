"""SARIF 2.1.0 output: schema conformance (OASIS and GitHub's upload validator), exact results,
line-independent fingerprints, tool notifications, the serializer, and the composite action with
the code scanning workflow of docs/ci.md."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from hooklint import __version__
from hooklint.catalog import load_catalog, load_examples
from hooklint.config import Config, load_config, parse_config
from hooklint.pipeline import lint_paths, lint_text
from hooklint.findings import Finding, ObjectRef, RunResult, Span, artifact_uri, fingerprints, repository_root
from hooklint.reporters import sarif
from tests.manifests import HL102_BAD, HL102_MESSAGE, doc_blocks, lint_example_as_written

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SCHEMAS = SHARED / "schemas"
CORPUS = SHARED / "corpus" / "public"

pytestmark = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason="the SARIF schemas live in ../shared/schemas beside the clone"
)

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
"""


# --- helpers -----------------------------------------------------------------------------------


def _validator(name: str, cls):
    with open(SCHEMAS / name, encoding="utf-8") as handle:
        return cls(json.load(handle))


@pytest.fixture(scope="module")
def validators():
    """The OASIS schema, and the one github/codeql-action's upload-sarif checks against."""
    return [
        _validator("sarif-schema-2.1.0.json", jsonschema.Draft4Validator),
        _validator("github-codeql-action-sarif-schema-2.1.0.json", jsonschema.Draft202012Validator),
    ]


#: The ``tool.driver.rules`` arrays (as JSON) the schemas have passed whole: a document carrying one
#: of them again is checked with its rules array left empty (every bad example's document carries the
#: same 64 rules, most of a validation's time), the rest of it in full.
_RULES_VALIDATED: set[str] = set()


def assert_valid(doc: dict, validators) -> None:
    driver = doc["runs"][0]["tool"]["driver"]
    rules_key = json.dumps(driver.get("rules"), sort_keys=True)
    checked = doc
    if rules_key in _RULES_VALIDATED:
        checked = {**doc, "runs": [{**doc["runs"][0], "tool": {**doc["runs"][0]["tool"], "driver": {**driver, "rules": []}}}]}
    for validator in validators:
        errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(checked)]
        assert errors == []
    _RULES_VALIDATED.add(rules_key)
    run = doc["runs"][0]
    # What GitHub needs beyond the schema (shared/docs/sarif-github.md §2, §7).
    assert doc["$schema"] and doc["version"] == "2.1.0" and len(doc["runs"]) == 1
    assert isinstance(run["results"], list)
    rules = run["tool"]["driver"]["rules"]
    for rule in rules:
        assert rule["shortDescription"]["text"] and len(rule["shortDescription"]["text"]) <= 1024
        assert rule["fullDescription"]["text"] and len(rule["fullDescription"]["text"]) <= 1024
        assert rule["help"]["text"] and rule["help"]["markdown"]
        if "security-severity" in rule["properties"]:
            value = rule["properties"]["security-severity"]
            assert isinstance(value, str) and 0.0 < float(value) <= 10.0
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        assert len(result["locations"]) == 1
        region = result["locations"][0]["physicalLocation"]["region"]
        assert set(region) == {"startLine", "startColumn", "endLine", "endColumn"}
        assert "primaryLocationLineHash" not in result["partialFingerprints"]
        assert re.fullmatch(r"[0-9a-f]{64}", result["partialFingerprints"]["hooklint/v1"])


def only(*rule_ids: str) -> Config:
    """A configuration that runs only ``rule_ids`` (so exact results do not change as rules are
    added to the catalog)."""
    return Config(disable=[r for r in load_catalog().rules if r not in rule_ids])


def render_doc(result: RunResult, **kwargs) -> dict:
    return json.loads(sarif.render(result, load_catalog(), **kwargs))


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty repository (a folder with .git) as the current directory."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- schema conformance ------------------------------------------------------------------------


def _bad_examples():
    for rule in load_catalog().sorted():
        for example in load_examples(rule)["bad"]:
            yield pytest.param(rule.id, example, id=f"{rule.id}-{example['name']}")


@pytest.mark.parametrize(("rule_id", "example"), list(_bad_examples()))
def test_every_bad_example_gives_valid_sarif(rule_id, example, repo, validators, monkeypatch):
    config = parse_config(example.get("config"), "example") if example.get("config") else Config()
    if "path" in example or "files" in example:
        findings = lint_example_as_written(example, config, monkeypatch)
        path = findings[0].path if findings else ""
    else:
        path = f"examples/{rule_id}/{example['name']}.yaml"
        findings = lint_text(example["manifest"], config, path=path, context=example.get("context"))
    doc = render_doc(RunResult(findings=findings, files=1))
    assert_valid(doc, validators)
    run = doc["runs"][0]
    # One result per finding, in file order, at the finding's exact region and rule. (Whether the
    # example's findings are the expected ones is tests/test_rules.py's business.)
    ids = [r.id for r in load_catalog().sorted()]
    assert [(r["ruleId"], r["ruleIndex"], r["level"], r["locations"][0]["physicalLocation"]["region"])
            for r in run["results"]] == [
        (f.rule_id, ids.index(f.rule_id), f.severity,
         {"startLine": f.span.line, "startColumn": f.span.column, "endLine": f.span.end_line, "endColumn": f.span.end_column})
        for f in sorted(findings, key=lambda f: (f.sort_key(), f.field_path))
    ]  # fmt: skip
    assert run["results"], "a bad example gives at least one result"
    # A Helm "# Source:" comment names the template the document came from; that is the path.
    sources = set(re.findall(r"^#\s*Source:\s*(\S+)", example["manifest"], re.MULTILINE))
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uriBaseId"] == "%SRCROOT%" and location["uri"] in {path} | sources


def test_examples_folder_gives_valid_sarif(monkeypatch, validators):
    if not (REPO / "examples").is_dir():
        pytest.skip("no examples/ folder")
    monkeypatch.chdir(REPO)
    config_file = REPO / "examples" / ".hooklint.yaml"
    config = load_config(str(config_file)) if config_file.exists() else Config()
    result = lint_paths(["examples"], config, load_catalog())
    doc = render_doc(result)
    assert_valid(doc, validators)
    run = doc["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": REPO.as_uri() + "/"}}
    assert len(run["results"]) == len(result.findings)
    for r in run["results"]:
        location = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uriBaseId"] == "%SRCROOT%" and location["uri"].startswith("examples/")


def test_public_corpus_gives_valid_sarif(monkeypatch, validators, corpus_result):
    assert CORPUS.is_dir(), f"{CORPUS} is missing"
    monkeypatch.chdir(REPO)
    result = corpus_result  # lint_paths([str(CORPUS)], Config(), load_catalog()), once per session
    assert result.findings, "the corpus is expected to have findings"
    doc = render_doc(result)
    assert_valid(doc, validators)
    run = doc["runs"][0]
    assert len(run["results"]) == len(result.findings)
    assert run["invocations"][0]["executionSuccessful"] is (not result.errors)
    fps = [r["partialFingerprints"]["hooklint/v1"] for r in run["results"]]
    assert len(set(fps)) == len(fps)
    # The corpus is outside the repository: absolute file URIs, no base.
    first = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert set(first) == {"uri"} and first["uri"].startswith(CORPUS.resolve().as_uri() + "/")


# --- exact values ------------------------------------------------------------------------------


def test_known_finding_exact_result(repo, validators):
    write(repo / "deploy/hooks/presync-job.yaml", HL102_BAD)
    result = lint_paths(["deploy/hooks/presync-job.yaml"], only("HL102"), load_catalog())
    doc = render_doc(result)
    assert_valid(doc, validators)
    run = doc["runs"][0]
    index = [r.id for r in load_catalog().sorted()].index("HL102")
    assert run["tool"]["driver"]["rules"][index]["id"] == "HL102"
    identity = "\x1f".join(["HL102", "deploy/hooks/presync-job.yaml", "Job", "", "db-migrate",
                            "spec.template.spec.containers[0].image", "1"])  # fmt: skip
    fingerprint = hashlib.sha256(identity.encode()).hexdigest()
    assert fingerprint == "c0fbbb532fd000b9a1b7185a57a3e5e6a63867f6c88d064439b95cc69ed30897"
    assert run["results"] == [
        {
            "message": {"text": HL102_MESSAGE},
            "level": "warning",
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": "deploy/hooks/presync-job.yaml", "uriBaseId": "%SRCROOT%"},
                "region": {"endColumn": 45, "endLine": 12, "startColumn": 18, "startLine": 12},
            }}],
            "partialFingerprints": {"hooklint/v1": fingerprint},
            "ruleId": "HL102",
            "ruleIndex": index,
        }
    ]  # fmt: skip
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": repo.resolve().as_uri() + "/"}}
    assert run["automationDetails"] == {"id": "hooklint/"}
    assert run["invocations"] == [{"executionSuccessful": True}]
    assert run["columnKind"] == "unicodeCodePoints"


def test_run_and_driver_shape(repo):
    doc = render_doc(RunResult())
    assert list(doc) == ["$schema", "version", "runs"]
    assert doc["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    driver = doc["runs"][0]["tool"]["driver"]
    assert {k: driver[k] for k in ("name", "version", "semanticVersion", "informationUri")} == {
        "name": "hooklint",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": "https://github.com/hooklint/hooklint",
    }
    catalog = load_catalog()
    assert [r["id"] for r in driver["rules"]] == sorted(catalog.rules)
    assert set(driver) == {"name", "version", "semanticVersion", "informationUri", "rules"}


def test_rule_descriptor_hl102():
    catalog = load_catalog()
    rule = catalog.rules["HL102"]
    doc = render_doc(RunResult())
    descriptor = next(r for r in doc["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "HL102")
    assert descriptor["name"] == "HookImageMutableTag"
    assert descriptor["shortDescription"] == {"text": rule.summary}
    assert descriptor["fullDescription"] == {"text": rule.what}
    assert descriptor["defaultConfiguration"] == {"level": "warning"}
    assert descriptor["helpUri"] == (
        "https://github.com/hooklint/hooklint/blob/main/docs/rules/HL102-hook-image-mutable-tag.md"
    )
    assert descriptor["properties"] == {
        "precision": "very-high",
        "security-severity": "5.5",
        "tags": ["security", "supply-chain", "kubernetes", "argocd"],
    }
    examples = load_examples(rule)
    markdown = descriptor["help"]["markdown"]
    assert "### What it does" in markdown and rule.what in markdown
    assert "### Why it matters" in markdown and rule.why in markdown
    assert "### How to fix" in markdown and rule.fix in markdown
    bad, good = examples["bad"][0], examples["good"][0]
    assert f"### Example that is reported ({bad['name']})\n\n```yaml\n{bad['manifest'].rstrip()}\n```" in markdown
    assert f"### Use instead ({good['name']})\n\n```yaml\n{good['manifest'].rstrip()}\n```" in markdown
    assert markdown.count("```yaml") == 2
    text = descriptor["help"]["text"]
    assert rule.what in text and rule.why in text and rule.fix in text
    assert "          image: ghcr.io/acme/migrate:latest" in text  # the bad example, indented by 4


def test_security_severity_is_a_string_and_problem_severity_otherwise():
    doc = render_doc(RunResult())
    catalog = load_catalog()
    for descriptor in doc["runs"][0]["tool"]["driver"]["rules"]:
        rule = catalog.rules[descriptor["id"]]
        props = descriptor["properties"]
        assert props["tags"] == list(rule.tags) and props["precision"] == rule.precision
        if rule.security_severity is None:
            assert "security-severity" not in props
            assert props["problem.severity"] == {"error": "error", "warning": "warning", "note": "recommendation"}[rule.severity]
        else:
            assert props["security-severity"] == str(float(rule.security_severity))


def test_fingerprint_survives_lines_inserted_above_the_object(repo):
    path = write(repo / "deploy/app.yaml", CONFIGMAP + "---\n" + HL102_BAD)
    config = only("HL102")

    def result():
        doc = render_doc(lint_paths(["deploy/app.yaml"], config, load_catalog()))
        (r,) = doc["runs"][0]["results"]
        return r["locations"][0]["physicalLocation"]["region"]["startLine"], r["partialFingerprints"]["hooklint/v1"]

    line, before = result()
    assert line == 19
    inserted = CONFIGMAP + "  a: '1'\n  b: '2'\n  c: '3'\n  d: '4'\n  e: '5'\n"
    assert inserted.count("\n") == CONFIGMAP.count("\n") + 5
    path.write_text(inserted + "---\n" + HL102_BAD, encoding="utf-8")
    line, after = result()
    assert line == 24
    assert after == before
    # ...but it is not blind: another object is another fingerprint.
    path.write_text(inserted + "---\n" + HL102_BAD.replace("db-migrate", "db-migrate-2"), encoding="utf-8")
    assert result()[1] != before


def test_fingerprints_of_findings_sharing_an_identity_differ():
    span = Span(3, 1, 3, 5)
    twins = [Finding("HL001", "yaml-syntax-error", "error", "m.", "a.yaml", span),
             Finding("HL001", "yaml-syntax-error", "error", "m.", "a.yaml", Span(9, 1, 9, 5))]  # fmt: skip
    first, second = fingerprints(twins, ["a.yaml", "a.yaml"])
    assert first != second
    assert first == hashlib.sha256("\x1f".join(["HL001", "a.yaml", "", "", "", "", "1"]).encode()).hexdigest()
    assert second == hashlib.sha256("\x1f".join(["HL001", "a.yaml", "", "", "", "", "2"]).encode()).hexdigest()
    generated = Finding("HL102", "s", "warning", "m.", "a.yaml", span, ObjectRef(kind="Job", generate_name="seed-"), field_path="f")
    named = Finding("HL102", "s", "warning", "m.", "a.yaml", span, ObjectRef(kind="Job", name="seed-"), field_path="f")
    assert fingerprints([generated], ["a.yaml"]) != fingerprints([named], ["a.yaml"])


def test_clean_run_has_empty_results(repo, validators):
    write(repo / "deploy/settings.yaml", CONFIGMAP)
    result = lint_paths(["deploy/settings.yaml"], Config(allowed_registries=["ghcr.io/acme"]), load_catalog())
    assert result.findings == [] and result.errors == [] and result.notices == []
    text = sarif.render(result, load_catalog())
    assert '"results": []' in text
    doc = json.loads(text)
    assert_valid(doc, validators)
    assert doc["runs"][0]["results"] == []
    assert doc["runs"][0]["invocations"] == [{"executionSuccessful": True}]


def test_missing_file_is_a_tool_execution_notification(repo, validators):
    write(repo / "deploy/job.yaml", HL102_BAD)
    result = lint_paths(["deploy/missing.yaml", "deploy/job.yaml"], only("HL102"), load_catalog())
    doc = render_doc(result)
    assert_valid(doc, validators)
    run = doc["runs"][0]
    assert run["invocations"] == [{
        "executionSuccessful": False,
        "toolExecutionNotifications": [{
            "message": {"text": "deploy/missing.yaml: no such file or directory."},
            "level": "error",
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": "deploy/missing.yaml", "uriBaseId": "%SRCROOT%"}}}],
        }],
    }]  # fmt: skip
    assert [r["ruleId"] for r in run["results"]] == ["HL102"]


def test_cli_writes_sarif_for_a_missing_file_and_exits_2(repo):
    proc = subprocess.run(
        [sys.executable, "-m", "hooklint", "lint", "--format", "sarif", "--output", "out.sarif", "missing.yaml"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr == (
        "hooklint: error: missing.yaml: no such file or directory\n"
        "hooklint: 0 errors, 0 warnings, 0 notes in 0 files (report in out.sarif)\n"
    )
    doc = json.loads((repo / "out.sarif").read_text(encoding="utf-8"))
    invocation = doc["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == "missing.yaml: no such file or directory."
    assert doc["runs"][0]["results"] == []


def test_notices_are_configuration_notifications(repo):
    doc = render_doc(RunResult(notices=["HL101 is inactive: set allowed-registries"]))
    assert doc["runs"][0]["invocations"] == [{
        "executionSuccessful": True,
        "toolConfigurationNotifications": [
            {"message": {"text": "HL101 is inactive: set allowed-registries."}, "level": "note"}],
    }]  # fmt: skip


@pytest.mark.parametrize(("category", "expected"), [("hooklint", {"id": "hooklint/"}), ("hooklint/", {"id": "hooklint/"}),
                                                    ("deploy/prod", {"id": "deploy/prod/"}), ("", None)])  # fmt: skip
def test_automation_details_from_category(repo, category, expected):
    run = render_doc(RunResult(), category=category)["runs"][0]
    assert run.get("automationDetails") == expected


def test_uris_stdin_outside_root_symlinks_and_escaping(repo, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "a b.yaml"
    outside.write_text("x: 1\n")
    write(repo / "deploy/real job.yaml", "x: 1\n")
    os.symlink(repo / "deploy/real job.yaml", repo / "link.yaml")
    root = repository_root()
    assert root == repo.resolve()
    assert artifact_uri("deploy/real job.yaml", root) == ("deploy/real%20job.yaml", "%SRCROOT%")
    assert artifact_uri("./deploy/../deploy/real job.yaml", root) == ("deploy/real%20job.yaml", "%SRCROOT%")
    assert artifact_uri("link.yaml", root) == ("deploy/real%20job.yaml", "%SRCROOT%")
    assert artifact_uri(str(outside), root) == (outside.resolve().as_uri(), None)
    assert artifact_uri(str(outside), root)[0].endswith("/a%20b.yaml")
    assert artifact_uri("-", root) == ("-", None)
    (repo / "deploy/sub").mkdir()
    os.chdir(repo / "deploy/sub")
    assert repository_root() == repo.resolve()
    assert artifact_uri("../real job.yaml", repository_root()) == ("deploy/real%20job.yaml", "%SRCROOT%")


def test_root_without_git_is_the_current_directory(tmp_path, monkeypatch):
    if any((p / ".git").exists() for p in tmp_path.resolve().parents):
        pytest.skip("the temporary folder is inside a git repository")
    monkeypatch.chdir(tmp_path)
    assert repository_root() == tmp_path.resolve()


def test_output_is_deterministic(repo):
    write(repo / "deploy/a.yaml", HL102_BAD + "---\n" + HL102_BAD.replace("db-migrate", "other"))
    result = lint_paths(["deploy"], Config(), load_catalog())
    shuffled = RunResult(findings=list(reversed(result.findings)), errors=result.errors,
                         files=result.files, notices=result.notices)  # fmt: skip
    first = sarif.render(result, load_catalog())
    assert sarif.render(shuffled, load_catalog()) == first
    assert sarif.render(result, load_catalog()) == first


# --- the serializer ----------------------------------------------------------------------------


def test_serializer_keeps_meaningful_falsy_values_and_drops_sarif_om_defaults():
    import sarif_om as om

    result = om.Result(message=om.Message(text="m."), rule_id="HL001", rule_index=0)
    assert sarif.to_sarif(result) == {"message": {"text": "m."}, "ruleId": "HL001", "ruleIndex": 0}
    run = om.Run(tool=om.Tool(driver=om.ToolComponent(name="hooklint")), results=[],
                 invocations=[om.Invocation(execution_successful=False)])  # fmt: skip
    assert sarif.to_sarif(run) == {"tool": {"driver": {"name": "hooklint"}}, "invocations": [{"executionSuccessful": False}], "results": []}
    region = om.Region(start_line=1, start_column=1)
    assert sarif.to_sarif(region) == {"startColumn": 1, "startLine": 1}
    log = om.SarifLog(runs=[], version="2.1.0", schema_uri="s")
    assert sarif.to_sarif(log) == {"runs": [], "version": "2.1.0", "$schema": "s"}


def test_serializer_keeps_a_default_value_given_explicitly():
    import sarif_om as om

    assert sarif.to_sarif(om.ReportingConfiguration(level="warning")) == {}
    assert sarif.to_sarif(sarif._new(om.ReportingConfiguration, level="warning")) == {"level": "warning"}


def test_serializer_writes_plain_dict_properties_sorted():
    import sarif_om as om

    rule = om.ReportingDescriptor(id="HL1", properties={"tags": ["b", "a"], "security-severity": "8.0", "precision": "high"})
    assert json.dumps(sarif.to_sarif(rule)) == (
        '{"id": "HL1", "properties": {"precision": "high", "security-severity": "8.0", "tags": ["b", "a"]}}'
    )


def test_serializer_writes_suppression_status_not_state():
    import sarif_om as om

    suppression = om.Suppression(kind="inSource", state="accepted", justification="reviewed")
    assert sarif.to_sarif(suppression) == {"kind": "inSource", "status": "accepted", "justification": "reviewed"}


def test_sarif_om_is_imported_only_for_the_sarif_format():
    code = (
        "import sys\n"
        "import hooklint.reporters.github, hooklint.reporters.gitlab, hooklint.reporters.text, hooklint.reporters.json\n"
        "assert 'sarif_om' not in sys.modules\n"
        "from hooklint.catalog import load_catalog\n"
        "from hooklint.findings import RunResult\n"
        "hooklint.reporters.github.render(RunResult(), load_catalog())\n"
        "hooklint.reporters.gitlab.render(RunResult(), load_catalog())\n"
        "assert 'sarif_om' not in sys.modules\n"
        "import hooklint.reporters.sarif as s\n"
        "s.render(RunResult(), load_catalog())\n"
        "assert 'sarif_om' in sys.modules\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ok\n", "")


# --- the composite action and the code scanning workflow of docs/ci.md -------------------------


def action() -> dict:
    return yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))


def test_code_scanning_workflow_uses_the_action_with_inputs_it_has():
    workflow = yaml.safe_load(doc_blocks()[".github/workflows/hooklint.yml"])
    assert workflow["permissions"] == {"contents": "read", "security-events": "write", "actions": "read"}
    steps = workflow["jobs"]["hooklint"]["steps"]
    assert steps[0] == {"uses": "actions/checkout@v7"}
    step = steps[1]
    assert step["uses"] == f"hooklint/hooklint@v{__version__}"
    assert set(step["with"]) <= set(action()["inputs"])
    assert step["with"] == {"paths": "deploy", "category": "hooklint"}


def test_action_shape():
    act = action()
    assert act["runs"]["using"] == "composite"
    assert set(act["inputs"]) == {"paths", "args", "sarif-file", "category", "upload", "python-version", "mode", "base", "token",
                                  "fetch", "fetch-hosts"}
    steps = act["runs"]["steps"]
    install = next(s for s in steps if s.get("name") == "Install hooklint")
    assert install["env"]["HOOKLINT_SOURCE"] == "${{ github.action_path }}"
    # with the Helm extra: charts render rather than being HL008 errors (issue 35)
    assert 'pip install --quiet --disable-pip-version-check "$HOOKLINT_SOURCE[helm]"' in install["run"]
    # current major versions (December 2026): upload-sarif v3 is deprecated, setup-python v5 is Node 20
    assert [s["uses"] for s in steps if "uses" in s] == ["actions/setup-python@v7", "github/codeql-action/upload-sarif@v4"]
    upload = next(s for s in steps if str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif@"))
    assert "steps.lint.outputs.exit-code != '2'" in upload["if"]
    assert upload["with"] == {"sarif_file": "${{ inputs.sarif-file }}", "category": "${{ inputs.category }}"}
    assert steps[-1]["run"] == 'exit "${HOOKLINT_EXIT_CODE:-2}"'
    # Every ${{ inputs.X }} the action uses is declared.
    used = set(re.findall(r"inputs\.([a-z-]+)", (REPO / "action.yml").read_text(encoding="utf-8")))
    assert used <= set(act["inputs"])


def _run_action_step(step: dict, inputs: dict, cwd: Path, outputs: dict | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    """Run one ``run:`` step of action.yml the way the runner does (bash, env from ``env:`` with
    ``${{ inputs.X }}`` and ``${{ steps.lint.outputs.X }}`` filled in). Returns the process and
    what it wrote to GITHUB_OUTPUT."""
    def one(expression: str) -> str:
        if match := re.fullmatch(r"inputs\.([a-z-]+)", expression):
            return inputs[match.group(1)]
        if match := re.fullmatch(r"steps\.lint\.outputs\.([a-z-]+)", expression):
            return (outputs or {}).get(match.group(1), "")
        return ""  # another step's output, or a context these tests do not give

    def fill(value: str) -> str:  # ${{ a || b }}: the first non-empty
        return re.sub(r"\$\{\{\s*(.*?)\s*\}\}",
                      lambda m: next((v for v in (one(p.strip()) for p in m.group(1).split("||")) if v), ""), value)

    assert "${{" not in step["run"], "inputs must reach scripts through env, not be pasted into them"
    output_file = cwd / ".github_output"
    output_file.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({k: fill(str(v)) for k, v in step.get("env", {}).items()})
    env["GITHUB_OUTPUT"] = str(output_file)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True)
    written = dict(line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line)
    return proc, written


@pytest.mark.parametrize(("manifest", "exit_code"), [(HL102_BAD, "1"), (CONFIGMAP, "0"), (None, "2")])
def test_action_lint_and_exit_steps_with_the_documented_inputs(repo, validators, manifest, exit_code):
    act = action()
    workflow = yaml.safe_load(doc_blocks()[".github/workflows/hooklint.yml"])
    inputs = {name: str(spec.get("default", "")) for name, spec in act["inputs"].items()}
    inputs.update(workflow["jobs"]["hooklint"]["steps"][1]["with"])
    write(repo / ".hooklint.yaml", "disable: [" + ", ".join(sorted(only("HL102").disable)) + "]\n")
    if manifest is not None:
        write(repo / "deploy/hooks/presync-job.yaml", manifest)
    steps = act["runs"]["steps"]
    lint = next(s for s in steps if s.get("id") == "lint")
    proc, outputs = _run_action_step(lint, inputs, repo)
    assert proc.returncode == 0, proc.stderr  # the step records the code; the last step fails
    assert outputs == {"exit-code": exit_code}
    doc = json.loads((repo / "hooklint.sarif").read_text(encoding="utf-8"))
    assert_valid(doc, validators)
    run = doc["runs"][0]
    assert run["automationDetails"] == {"id": "hooklint/"}
    if exit_code == "1":
        assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in run["results"]] == [
            ("HL102", "deploy/hooks/presync-job.yaml")]
    else:
        assert run["results"] == []
    assert run["invocations"][0]["executionSuccessful"] is (exit_code != "2")
    proc, _ = _run_action_step(steps[-1], inputs, repo, outputs)
    assert proc.returncode == int(exit_code)


def test_action_passes_args_and_several_paths(repo):
    act = action()
    inputs = {name: str(spec.get("default", "")) for name, spec in act["inputs"].items()}
    inputs.update({"paths": "deploy/a.yaml deploy/b", "args": "--fail-on error",
                   "sarif-file": "out/report.sarif", "category": "prod"})  # fmt: skip
    write(repo / "deploy/a.yaml", HL102_BAD)
    write(repo / "deploy/b/c.yaml", HL102_BAD.replace("db-migrate", "other"))
    (repo / "out").mkdir()
    write(repo / ".hooklint.yaml", "disable: [" + ", ".join(sorted(only("HL102").disable)) + "]\n")
    lint = next(s for s in act["runs"]["steps"] if s.get("id") == "lint")
    proc, outputs = _run_action_step(lint, inputs, repo)
    assert outputs == {"exit-code": "0"}, proc.stderr  # warnings only, --fail-on error
    run = json.loads((repo / "out/report.sarif").read_text(encoding="utf-8"))["runs"][0]
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]] == [
        "deploy/a.yaml", "deploy/b/c.yaml"]
    assert run["automationDetails"] == {"id": "prod/"}


def test_the_action_installs_hooklint_without_importing_the_pull_requests_code(tmp_path):
    """The action's install step ran ``python3 -m venv`` and ``python -m pip`` in the pull
    request's checkout, where ``-m`` imports a ``venv/`` or ``pip/`` package the pull request
    adds (helper trial: both ran its code). Every ``python ... -m`` of the action and of the CI
    recipes in docs/ci.md is isolated (``-I``), and the step runs in the runner's temporary folder."""
    install = next(s for s in action()["runs"]["steps"] if s.get("name") == "Install hooklint")
    assert install["working-directory"] == "${{ runner.temp }}"
    runs = [line for line in install["run"].splitlines() if " -m " in line]
    assert len(runs) == 2 and all(re.search(r"python3?\"? -I -m ", line) for line in runs), runs
    recipes = [line for block in doc_blocks().values() for line in block.splitlines() if "python -m pip" in line
               or "python -I -m pip" in line]  # fmt: skip
    assert recipes and all("python -I -m pip" in line for line in recipes), recipes
    # what -I changes: a pip/ package in the current folder runs without it, not with it
    (tmp_path / "pip").mkdir()
    (tmp_path / "pip/__init__.py").write_text("")
    (tmp_path / "pip/__main__.py").write_text("open('RAN', 'w').write('x')\n")
    subprocess.run([sys.executable, "-I", "-m", "pip", "--version"], cwd=tmp_path, capture_output=True, timeout=120)
    assert not (tmp_path / "RAN").exists()
    subprocess.run([sys.executable, "-m", "pip", "--version"], cwd=tmp_path, capture_output=True, timeout=120)
    assert (tmp_path / "RAN").exists()


@pytest.mark.parametrize(("mode", "event", "chosen", "warned"), [
    ("", "pull_request", "pull-request", False),
    ("", "pull_request_target", "pull-request", False),
    ("", "push", "lint", False),
    ("", "schedule", "lint", False),
    ("lint", "pull_request", "lint", True),
    ("pull-request", "pull_request", "pull-request", False),
    ("lint", "push", "lint", False),
])  # fmt: skip
def test_the_action_reviews_pull_requests_with_the_base_policy_by_default(tmp_path, mode, event, chosen, warned):
    """Trial 4, item 7: the action's default mode (lint) on pull_request linted the pull request
    with its own .hooklint.yaml, which may exclude a new application. On a pull request the default
    is now pull-request (hooklint diff: the base's policy); lint there is said in a warning."""
    act = action()
    assert act["inputs"]["mode"]["default"] == ""
    steps = act["runs"]["steps"]
    step = next(s for s in steps if s.get("id") == "mode")
    assert [s.get("id") for s in steps].index("mode") < [s.get("id") for s in steps].index("lint")
    assert next(s for s in steps if s.get("id") == "lint")["if"] == "steps.mode.outputs.mode == 'lint'"
    assert next(s for s in steps if s.get("id") == "review")["if"] == "steps.mode.outputs.mode == 'pull-request'"
    assert step["env"] == {"HOOKLINT_MODE": "${{ inputs.mode }}", "HOOKLINT_EVENT": "${{ github.event_name }}"}
    env = {"HOOKLINT_MODE": mode, "HOOKLINT_EVENT": event, "GITHUB_OUTPUT": str(tmp_path / "out"), "PATH": os.environ["PATH"]}
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert (proc.returncode, (tmp_path / "out").read_text()) == (0, f"mode={chosen}\n")
    assert proc.stdout == ("::warning title=hooklint::mode lint on a pull request lints it with its own policy "
                           "(.hooklint.yaml, baseline, suppressions), which the pull request can change; for pull "
                           "requests from people who may not change the policy, use mode pull-request (the default on "
                           "pull requests), which takes the policy from the base\n" if warned else "")  # fmt: skip
    env["HOOKLINT_MODE"] = "review"
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "hooklint: the action's mode must be lint or pull-request (or empty), "
                                                 "not 'review'\n")  # fmt: skip
