"""Configuration: found by walking up, validated with one clear line naming the key."""

import os

import pytest
import yaml

from hooklint.config import ConfigError, find_config, find_config_for, load_config, parse_config


def test_defaults():
    cfg = parse_config({}, "x")
    assert (cfg.allowed_registries, cfg.require_digest, cfg.argocd_version, cfg.max_waves) == ([], False, (3, 5, 1), 10)


def test_values():
    cfg = parse_config(
        {"allowed-registries": ["ghcr.io/acme"], "require-digest": True, "disable": ["HL103"],
         "argocd-version": "2.14.1", "check-all-workloads": True}, "x")  # fmt: skip
    assert cfg.registry_entries[0].host == "ghcr.io" and cfg.registry_entries[0].path == "acme"
    assert cfg.argocd_version == (2, 14, 1)
    assert cfg.require_digest and cfg.check_all_workloads and cfg.disable == ["HL103"]


@pytest.mark.parametrize(
    "data, message",
    [
        ({"allowed-registry": []}, "x: unknown key 'allowed-registry'; did you mean 'allowed-registries'? (known: allowed-registries, api-versions, argocd-namespace, argocd-version, baseline, check-all-workloads, clusters, denied-images, disable, exclude, fail-on, fail-on-unrendered, fetch-credentials, fetch-hosts, fetch-max-bytes, fetch-max-files, fetch-timeout, helm-repositories, ignore, kube-version, max-file-size, max-run-nodes, max-waves, per-path-ignores, render-memory, render-objects, render-output, render-timeout, repo-urls, require-digest, run-timeout, select, severity, wait-for-first-consumer-classes, workload-scope)"),
        ({"allowed-registries": "ghcr.io"}, "x: 'allowed-registries' must be a list of non-empty strings, not 'ghcr.io'"),
        ({"allowed-registries": ["https://ghcr.io"]}, "x: 'allowed-registries' entry 'https://ghcr.io' must be a host or host/path (no scheme, no wildcard)"),
        ({"require-digest": "yes"}, "x: 'require-digest' must be true or false, not 'yes'"),
        ({"argocd-version": "latest"}, "x: argocd-version must look like \"3.3\" or \"2.14.1\", not 'latest'"),
        ({"max-waves": 0}, "x: 'max-waves' must be a whole number from 1 to 1,000,000, not 0"),
        ({"render-timeout": 0}, "x: 'render-timeout' must be a whole number from 1 to 86,400, not 0"),
        ({"render-memory": "2GiB"}, "x: 'render-memory' must be a whole number from 1 to 1,048,576, not '2GiB'"),
        # a limit the operating system cannot set was an internal error of every render (OverflowError)
        ({"render-timeout": 10 ** 20}, "x: 'render-timeout' must be a whole number from 1 to 86,400, not 100000000000000000000"),
        ({"render-memory": 10 ** 23}, "x: 'render-memory' must be a whole number from 1 to 1,048,576, not 100000000000000000000000"),
        ({"max-file-size": 2 ** 40}, "x: 'max-file-size' must be a whole number from 1 to 1,073,741,824, not 1099511627776"),
        ({"kube-version": 1.3}, "x: kube-version must be quoted (\"1.3\" is read as a number; write e.g. \"1.30\")"),
        ({"kube-version": "latest"}, "x: kube-version must look like \"1.30\" or \"v1.30.2\", not 'latest'"),
        ({"api-versions": "batch/v1"}, "x: 'api-versions' must be a list of non-empty strings, not 'batch/v1'"),
        ({"repo-urls": [""]}, "x: 'repo-urls' must be a list of non-empty strings, not a list whose entry 1 is ''"),
        (["a"], "x: the configuration must be a mapping of keys to values"),
    ],
)  # fmt: skip
def test_errors_name_the_key(data, message):
    with pytest.raises(ConfigError) as info:
        parse_config(data, "x")
    assert str(info.value) == message


def test_found_by_walking_up(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()  # up to the repository's top (outside Git: the current folder)
    (tmp_path / ".hooklint.yaml").write_text("require-digest: true\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert find_config() == str(tmp_path / ".hooklint.yaml")
    assert load_config().require_digest is True


def test_invalid_yaml_names_the_position(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("allowed-registries: [a\n")
    with pytest.raises(ConfigError) as info:
        load_config(str(path))
    assert str(info.value).startswith(f"{path}:2:1: invalid YAML in configuration:")


def test_unquoted_version_is_refused_not_misread():
    """YAML reads 2.10 as the float 2.1; guessing would silently switch PostDelete support off."""
    with pytest.raises(ConfigError) as info:
        parse_config({"argocd-version": 2.10}, "x")
    assert str(info.value) == 'x: argocd-version must be quoted ("2.1" is read as a number; write e.g. "2.10")'


# --- issue 10: every key, every error with its line, pyproject.toml, init, the schema -------------

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import jsonschema  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from hooklint.cli import STARTER, app  # noqa: E402
from hooklint.config import SCHEMA_FILE, SCHEMA_URL, PathFilter, schema  # noqa: E402
from tests.manifests import CONFIGMAP, HL102_MESSAGE, LATEST_TAG_HOOK  # noqa: E402

runner = CliRunner()

#: A hook that uses ServiceAccount 'migrate' without saying whether its token is mounted: HL104
#: fires unless the ServiceAccount (in sa.yaml) turns the token off.
TOKEN_HOOK = LATEST_TAG_HOOK.replace("      automountServiceAccountToken: false\n", "")
SERVICE_ACCOUNT = """\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "-1"
automountServiceAccountToken: false
"""
LATEST_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/web:latest
"""
HL102_TEXT = "app/job.yaml:17:18: warning HL102 hook-image-mutable-tag: "


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """app/ holds a hook with one finding (HL102 at 17:18) and a ConfigMap; the configuration is
    written by each test."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app/job.yaml").write_text(LATEST_TAG_HOOK)
    (tmp_path / "app/config.yaml").write_text(CONFIGMAP)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(tree: Path, config: str | None, *args: str):
    if config is not None:
        (tree / ".hooklint.yaml").write_text("allowed-registries: [ghcr.io/acme]\n" + config)
    return runner.invoke(app, ["lint", *args])


def codes(output: str) -> list[str]:
    return [line.split(" ")[1] + " " + line.split(" ")[2] for line in output.splitlines() if ": " in line and " HL" in line.split(": ")[1][:12]]


@pytest.mark.parametrize(
    "config, args, shown, exit_code",
    [
        ("", ["app"], ["warning HL102"], 1),
        ("select: [HL2]\n", ["app"], [], 0),
        ("select: [HL10]\n", ["app"], ["warning HL102"], 1),  # an id prefix
        ("select: [hook-image-mutable-tag]\n", ["app"], ["warning HL102"], 1),
        ("ignore: [hook-image-mutable-tag]\n", ["app"], [], 0),
        ("ignore: [HL1]\n", ["app"], [], 0),
        ("select: [HL1]\nignore: [HL102]\n", ["app"], [], 0),  # ignore wins
        ("disable: [HL102]\n", ["app"], [], 0),  # the old spelling of ignore
        ("severity: {HL102: error}\n", ["app"], ["error HL102"], 1),
        ("severity: {HL1: error, HL102: note}\n", ["app"], ["note HL102"], 0),  # the more specific name wins
        ("fail-on: never\n", ["app"], ["warning HL102"], 0),
        ("fail-on: error\n", ["app"], ["warning HL102"], 0),
        ("fail-on: note\nseverity: {HL102: note}\n", ["app"], ["note HL102"], 1),
        ("exclude: [job.yaml]\n", ["app"], [], 0),  # a name matches at any depth
        ("exclude: [app/]\n", ["app/job.yaml"], [], 0),  # named one by one, as pre-commit does
        ("exclude: [/job.yaml]\n", ["app"], ["warning HL102"], 1),  # anchored to the config's folder
        ("exclude: ['**/*.yaml', '!app/job.yaml']\n", ["app"], ["warning HL102"], 1),  # last match wins
        ("per-path-ignores: {'app/**': [HL102]}\n", ["app"], [], 0),
        ("per-path-ignores: {'other/**': [HL102]}\n", ["app"], ["warning HL102"], 1),
        ("per-path-ignores: {'*.yaml': [HL201, HL1]}\n", ["app"], [], 0),
        # command-line options replace the file's values
        ("select: [HL2]\n", ["--select", "HL102", "app"], ["warning HL102"], 1),
        ("ignore: [HL102]\n", ["--ignore", "HL2,HL3", "app"], ["warning HL102"], 1),
        ("", ["--ignore", "HL2", "--ignore", "HL102", "app"], [], 0),
        ("exclude: [app/]\n", ["--exclude", "nothing", "app"], ["warning HL102"], 1),
        ("", ["--exclude", "app/job.yaml", "app"], [], 0),
        ("fail-on: never\n", ["--fail-on", "warning", "app"], ["warning HL102"], 1),
    ],
)  # fmt: skip
def test_every_key_and_option(tree, config, args, shown, exit_code):
    result = run(tree, config, *args)
    assert result.exit_code == exit_code, result.output
    assert codes(result.output) == shown


def test_excluded_files_are_not_counted_but_are_context(tree):
    (tree / "app/job.yaml").write_text(TOKEN_HOOK)
    (tree / "app/sa.yaml").write_text(SERVICE_ACCOUNT)
    result = run(tree, "", "app")
    assert (result.exit_code, codes(result.output)) == (1, ["warning HL102"])
    assert "in 3 files" in result.output
    result = run(tree, "exclude: [sa.yaml]\n", "app")
    # still no HL104: the excluded ServiceAccount is read as context and turns the token off
    assert (result.exit_code, codes(result.output)) == (1, ["warning HL102"])
    assert "0 errors, 1 warning, 0 notes in 2 files" in result.output
    result = run(tree, "exclude: [sa.yaml]\n", "app/job.yaml", "app/sa.yaml")
    assert (result.exit_code, codes(result.output)) == (1, ["warning HL102"])
    assert "in 1 file\n" in result.output


def test_excluded_files_are_listed_as_not_linted(tree):
    """Trial 4, item 7: an exclude (one a pull request adds to the configuration among them) passed
    a file silently: not linted, not reported, not counted among the files not linted. Each file it
    leaves out is now counted and named with the glob that matched it and where that is set."""
    (tree / "newapp").mkdir()
    (tree / "newapp/job.yaml").write_text(LATEST_TAG_HOOK)
    result = run(tree, "exclude: [newapp/]\n", "--show-skipped", ".")
    assert (result.exit_code, codes(result.stdout)) == (1, ["warning HL102"])  # app/job.yaml
    assert result.stdout.splitlines()[2:4] == [
        "0 errors, 1 warning, 0 notes in 2 files",
        "note: 2 files not linted on their own (1 left out by exclude; 1 unrelated YAML); --show-skipped lists them."]
    assert result.stdout.splitlines()[-2:] == [
        "note: not linted: .hooklint.yaml: unrelated YAML: its first document is no Kubernetes object and the file lacks "
        "apiVersion:, kind: or metadata:",
        "note: not linted: newapp/job.yaml: left out by exclude 'newapp/' (.hooklint.yaml:2): not linted, and nothing in "
        "it is reported"]  # fmt: skip
    result = run(tree, "", "--exclude", "app/job.yaml", "--exclude", "*.txt", "-f", "json", "app")
    assert (result.exit_code, json.loads(result.stdout)["skipped"]) == (0, [
        {"path": "app/job.yaml", "reason": "left out by exclude 'app/job.yaml' (--exclude): not linted, and nothing in it "
                                           "is reported"}])  # fmt: skip
    # named on its own, as pre-commit names files: listed too
    result = run(tree, "exclude: ['**/job.yaml']\n", "-f", "json", "app/job.yaml", "app/config.yaml")
    assert (result.exit_code, json.loads(result.stdout)["skipped"]) == (0, [
        {"path": "app/job.yaml", "reason": "left out by exclude '**/job.yaml' (.hooklint.yaml:2): not linted, and nothing "
                                           "in it is reported"}])  # fmt: skip


@pytest.mark.parametrize("config, scope", [("", False), ("workload-scope: hooks\n", False),
                                           ("workload-scope: all\n", True), ("check-all-workloads: true\n", True)])  # fmt: skip
def test_workload_scope(tree, config, scope):
    (tree / "app/web.yaml").write_text(LATEST_DEPLOYMENT)
    result = run(tree, config, "app")
    assert ("app/web.yaml:10:18: warning HL102" in result.output) is scope


def test_baseline_is_relative_to_the_config_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/.hooklint.yaml").write_text("baseline: .hooklint-baseline.json\n")
    assert load_config(str(tmp_path / "sub/.hooklint.yaml")).baseline == str(tmp_path / "sub/.hooklint-baseline.json")
    assert parse_config({}, "x").baseline is None


@pytest.mark.parametrize(
    "version, message",
    [
        ("2.15", "x: argocd-version '2.15' is not an Argo CD release: hooklint knows Argo CD 1.0 to 3.5.1"),
        ("0.9", "x: argocd-version '0.9' is not an Argo CD release: hooklint knows Argo CD 1.0 to 3.5.1"),
        ("3.2.99", "x: argocd-version '3.2.99' is not an Argo CD release (the newest 3.2 is 3.2.12): hooklint knows "
                   "Argo CD 1.0 to 3.5.1"),
        ("3.6.x", "x: argocd-version must look like \"3.3\" or \"2.14.1\", not '3.6.x'"),
        ("latest", "x: argocd-version must look like \"3.3\" or \"2.14.1\", not 'latest'"),
    ],
)  # fmt: skip
def test_argocd_version_must_be_a_release(version, message):
    with pytest.raises(ConfigError) as info:
        parse_config({"argocd-version": version}, "x")
    assert str(info.value) == message
    assert parse_config({"argocd-version": "3.3.2"}, "x").argocd_version == (3, 3, 2)
    assert parse_config({"argocd-version": "3.3"}, "x").argocd_version == (3, 3, 14)


@pytest.mark.parametrize(
    "version, read_as, note",
    [
        ("3.6", (3, 5, 1), "x: argocd-version '3.6' is newer than the newest Argo CD release hooklint knows (3.5.1): "
                           "rules follow 3.5.1"),
        ("v3.6.2", (3, 5, 1), "x: argocd-version 'v3.6.2' is newer than the newest Argo CD release hooklint knows "
                              "(3.5.1): rules follow 3.5.1"),
        ("4.0", (3, 5, 1), "x: argocd-version '4.0' is newer than the newest Argo CD release hooklint knows (3.5.1): "
                           "rules follow 3.5.1"),
        ("3.5.8", (3, 5, 1), "x: argocd-version '3.5.8' is newer than the newest 3.5 release hooklint knows (3.5.1): "
                             "rules follow 3.5.1"),
        ("3.3.15", (3, 3, 14), "x: argocd-version '3.3.15' is newer than the newest 3.3 release hooklint knows "
                               "(3.3.14): rules follow 3.3.14"),
        ("3.5.1", (3, 5, 1), None),
        ("3.5", (3, 5, 1), None),
    ],
)  # fmt: skip
def test_a_version_newer_than_hooklint_knows_is_read_as_the_newest_known_with_a_note(version, read_as, note):
    """Argo CD 3.6 and the 3.5 patches after v3.5.1 are newer than the upstream snapshot's tags:
    accepted as the newest release hooklint knows, never refused, with one note."""
    cfg = parse_config({"argocd-version": version}, "x")
    assert (cfg.argocd_version, cfg.version_note) == (read_as, note)


def test_rule_parameters_are_read():
    cfg = parse_config({"allowed-registries": ["ghcr.io/acme"], "require-digest": True, "argocd-version": "v2.14",
                        "max-file-size": 2048, "max-waves": 3}, "x")  # fmt: skip
    assert (cfg.allowed_registries, cfg.require_digest, cfg.argocd_version, cfg.max_file_size, cfg.max_waves) == (
        ["ghcr.io/acme"], True, (2, 14, 21), 2048, 3)  # v2.14: its newest patch
    assert parse_config({}, "x").fail_on == "warning" and parse_config({}, "x").select is None


def test_wait_for_first_consumer_classes_is_a_list_of_names():
    cfg = parse_config({"wait-for-first-consumer-classes": [" local-path", "gp3-zonal"]}, "x")
    assert cfg.wait_for_first_consumer_classes == ["local-path", "gp3-zonal"]
    assert parse_config({}, "x").wait_for_first_consumer_classes == []
    with pytest.raises(ConfigError) as info:
        parse_config({"wait-for-first-consumer-classes": "local-path"}, "x", {("wait-for-first-consumer-classes",): 4})
    assert str(info.value) == "x:4: 'wait-for-first-consumer-classes' must be a list of non-empty strings, not 'local-path'"


YAML_ERRORS = [
    ("fail-on: never\nfail-on: error\n", "{f}:2: key 'fail-on' is repeated (first at line 1): only the last value would count; keep one"),
    ("severity:\n  HL203: note\n  HL203: error\n", "{f}:3: key 'HL203' is repeated (first at line 2): only the last value would count; keep one"),
    ("require-digest: true\nselct: [HL1]\n", "{f}:2: unknown key 'selct'; did you mean 'select'? (known: allowed-registries, api-versions, argocd-namespace, argocd-version, baseline, check-all-workloads, clusters, denied-images, disable, exclude, fail-on, fail-on-unrendered, fetch-credentials, fetch-hosts, fetch-max-bytes, fetch-max-files, fetch-timeout, helm-repositories, ignore, kube-version, max-file-size, max-run-nodes, max-waves, per-path-ignores, render-memory, render-objects, render-output, render-timeout, repo-urls, require-digest, run-timeout, select, severity, wait-for-first-consumer-classes, workload-scope)"),
    ("select: HL1\n", "{f}:1: 'select' must be a list of non-empty strings, not 'HL1'"),
    ("select:\n  - HL1\n  - ''\n", "{f}:3: 'select' must be a list of non-empty strings, not a list whose entry 2 is ''"),
    ("ignore: [HL1, 5]\n", "{f}:1: 'ignore' must be a list of non-empty strings, not a list whose entry 2 is 5"),
    ("disable: HL1\n", "{f}:1: 'disable' must be a list of non-empty strings, not 'HL1'"),
    ("severity: [HL208]\n", "{f}:1: 'severity' must be a mapping of rules to error, warning, note, not a list"),
    ("severity:\n  HL101: error\n  HL208: info\n", "{f}:3: 'severity' entry 'HL208' must be one of error, warning, note, not 'info'"),
    ("fail-on: critical\n", "{f}:1: 'fail-on' must be one of error, warning, note, never, not 'critical'"),
    ("exclude: legacy/\n", "{f}:1: 'exclude' must be a list of non-empty strings, not 'legacy/'"),
    ("per-path-ignores: [legacy]\n", "{f}:1: 'per-path-ignores' must be a mapping of globs to lists of rules, not a list"),
    ("per-path-ignores:\n  'legacy/**': HL103\n", "{f}:2: 'per-path-ignores' entry 'legacy/**' must be a list of non-empty strings, not 'HL103'"),
    ("baseline: ''\n", "{f}:1: 'baseline' must be a non-empty string, not ''"),
    ("baseline: [a.json]\n", "{f}:1: 'baseline' must be a non-empty string, not a list"),
    ("\nworkload-scope: everything\n", "{f}:2: 'workload-scope' must be one of hooks, all, not 'everything'"),
    ("check-all-workloads: yes please\n", "{f}:1: 'check-all-workloads' must be true or false, not 'yes please'"),
    ("workload-scope: all\ncheck-all-workloads: true\n", "{f}:2: 'check-all-workloads' is the deprecated spelling of 'workload-scope': keep only 'workload-scope'"),
    ("allowed-registries:\n  - ghcr.io\n  - https://quay.io\n", "{f}:3: 'allowed-registries' entry 'https://quay.io' must be a host or host/path (no scheme, no wildcard)"),
    ("require-digest: maybe\n", "{f}:1: 'require-digest' must be true or false, not 'maybe'"),
    ("argocd-version: latest\n", "{f}:1: argocd-version must look like \"3.3\" or \"2.14.1\", not 'latest'"),
    ("argocd-version: 2.10\n", "{f}:1: argocd-version must be quoted (\"2.1\" is read as a number; write e.g. \"2.10\")"),
    ("max-file-size: -1\n", "{f}:1: 'max-file-size' must be a whole number from 1 to 1,073,741,824, not -1"),
    ("max-waves: ten\n", "{f}:1: 'max-waves' must be a whole number from 1 to 1,000,000, not 'ten'"),
    # rule names are checked against the catalog when the run starts
    ("select: [HL1, HL77]\n", "{f}:1: 'select' names unknown rule 'HL77' (a rule id, slug or id prefix such as HL1)"),
    ("ignore:\n  - hook-image-mutable-tags\n", "{f}:2: 'ignore' names unknown rule 'hook-image-mutable-tags'; did you mean 'hook-image-mutable-tag'? (a rule id, slug or id prefix such as HL1)"),
    ("disable: [HL999]\n", "{f}:1: 'disable' names unknown rule 'HL999' (a rule id, slug or id prefix such as HL1)"),
    # a selection that leaves nothing to check is an error, never a silent pass
    ("select: []\n", "{f}:1: 'select' names no rule, so nothing would be checked: leave it out to run every rule"),
    ("select: [HL1]\nignore: [HL10, HL1]\n", "{f}:2: 'ignore' leaves no rule to run, so nothing would be checked"),
    ("disable: [HL]\n", "{f}:1: 'disable' leaves no rule to run, so nothing would be checked"),
    ("severity:\n  HL2O8: note\n", "{f}:2: 'severity' names unknown rule 'HL2O8'; did you mean 'HL208'? (a rule id, slug or id prefix such as HL1)"),
    ("per-path-ignores:\n  legacy/: [HL1033]\n", "{f}:2: 'per-path-ignores' names unknown rule 'HL1033'; did you mean 'HL103'? (a rule id, slug or id prefix such as HL1)"),
    ("exclude:\n  - ../vendor/\n  - legacy/../x.yaml\n", "{f}:3: 'exclude': glob 'legacy/../x.yaml' has '..' after its start: only leading '../' steps up from the folder it is relative to"),
    ("per-path-ignores:\n  'a/**/../b': [HL102]\n", "{f}:2: 'per-path-ignores': glob 'a/**/../b' has '..' after its start: only leading '../' steps up from the folder it is relative to"),
]  # fmt: skip


@pytest.mark.parametrize("text, message", YAML_ERRORS)
def test_yaml_errors_name_file_line_and_key(tree, text, message):
    path = tree / ".hooklint.yaml"
    path.write_text(text)
    result = runner.invoke(app, ["lint", "app"])
    assert (result.exit_code, result.output) == (2, "hooklint: error: " + message.format(f=path) + "\n")


TOML_ERRORS = [
    ('[tool.hooklint]\nselect = ["HL1"]\nfail-on = "critical"\n', "{f}:3: 'fail-on' must be one of error, warning, note, never, not 'critical'"),
    ('[tool.hooklint]\nselct = ["HL1"]\n', "{f}:2: unknown key 'selct'; did you mean 'select'? (known: allowed-registries, api-versions, argocd-namespace, argocd-version, baseline, check-all-workloads, clusters, denied-images, disable, exclude, fail-on, fail-on-unrendered, fetch-credentials, fetch-hosts, fetch-max-bytes, fetch-max-files, fetch-timeout, helm-repositories, ignore, kube-version, max-file-size, max-run-nodes, max-waves, per-path-ignores, render-memory, render-objects, render-output, render-timeout, repo-urls, require-digest, run-timeout, select, severity, wait-for-first-consumer-classes, workload-scope)"),
    ('[tool.hooklint]\nmax-waves = 3\n\n[tool.hooklint.severity]\nHL101 = "error"\nHL208 = "info"\n', "{f}:6: 'severity' entry 'HL208' must be one of error, warning, note, not 'info'"),
    ('[tool.hooklint]\nper-path-ignores = {"legacy/**" = ["HL1033"]}\n', "{f}:2: 'per-path-ignores' names unknown rule 'HL1033'; did you mean 'HL103'? (a rule id, slug or id prefix such as HL1)"),
    ('[tool.hooklint]\nargocd-version = 2.10\n', "{f}:2: argocd-version must be quoted (\"2.1\" is read as a number; write e.g. \"2.10\")"),
    ('[tool.hooklint]\nselect = [HL1]\n', "{f}:2:11: invalid TOML in configuration: Invalid value"),
]  # fmt: skip


@pytest.mark.parametrize("text, message", TOML_ERRORS)
def test_pyproject_errors_name_file_line_and_key(tree, text, message):
    path = tree / "pyproject.toml"
    path.write_text('[project]\nname = "x"\n\n' + text)
    result = runner.invoke(app, ["lint", "app"])
    line = int(message.split(":")[1].split(":")[0].strip("}")) if message.startswith("{f}:") else 0
    message = message.replace(f"{{f}}:{line}", f"{{f}}:{line + 3}", 1)
    assert (result.exit_code, result.output) == (2, "hooklint: error: " + message.format(f=path) + "\n")


def test_pyproject_table_is_found_by_walking_up(tree, monkeypatch):
    (tree / ".git").mkdir()  # up to the repository's top (outside Git: the current folder)
    (tree / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.hooklint]\nignore = ["HL102"]\n')
    (tree / "app/pyproject.toml").write_text('[project]\nname = "no hooklint table here"\n')
    monkeypatch.chdir(tree / "app")
    assert find_config() == str(tree / "pyproject.toml")
    assert load_config().ignore == ["HL102"]
    result = runner.invoke(app, ["lint", "."])
    assert (result.exit_code, codes(result.output)) == (0, [])
    result = runner.invoke(app, ["lint", "--config", str(tree / "app/pyproject.toml"), "."])
    assert (result.exit_code, result.output) == (2, f"hooklint: error: {tree / 'app/pyproject.toml'}: no [tool.hooklint] table\n")


def test_both_files_in_one_folder_is_an_error(tree):
    (tree / ".hooklint.yaml").write_text("{}\n")
    (tree / "pyproject.toml").write_text("[tool.hooklint]\nmax-waves = 3\n")
    result = runner.invoke(app, ["lint", "app"])
    assert (result.exit_code, result.output) == (
        2, f"hooklint: error: {tree}: .hooklint.yaml and pyproject.toml both configure hooklint: keep one (or name it with --config)\n")
    result = runner.invoke(app, ["lint", "--config", "pyproject.toml", "app"])
    assert result.exit_code == 1, result.output


def test_exclude_is_relative_to_the_config_file(tree, monkeypatch):
    (tree / ".git").mkdir()  # the configuration above the current folder is the repository's
    (tree / "deploy").mkdir()
    (tree / "app").rename(tree / "deploy/app")
    (tree / ".hooklint.yaml").write_text("exclude: [deploy/app/job.yaml]\n")
    monkeypatch.chdir(tree / "deploy")
    assert codes(runner.invoke(app, ["lint", "app"]).output) == []
    assert codes(runner.invoke(app, ["lint", "--config", str(tree / ".hooklint.yaml"), "app/job.yaml"]).output) == []


@pytest.mark.parametrize(
    "patterns, path, matched",
    [
        (["legacy/"], "legacy/a/b.yaml", True),
        (["legacy/"], "legacy", False),  # a folder pattern, and legacy here is a file
        (["legacy"], "apps/legacy/x.yaml", True),  # no slash: any depth
        (["/legacy"], "apps/legacy/x.yaml", False),
        (["apps/*.yaml"], "apps/x.yaml", True),
        (["apps/*.yaml"], "apps/sub/x.yaml", False),  # * stays in one folder
        (["apps/**/x.yaml"], "apps/x.yaml", True),
        (["apps/**/x.yaml"], "apps/a/b/x.yaml", True),
        (["apps/**"], "apps/a/b/x.yaml", True),
        (["x?.yaml"], "x1.yaml", True),
        (["x[0-9].yaml"], "xa.yaml", False),
        (["*.yaml", "!keep.yaml"], "keep.yaml", False),
        (["*.yaml"], "../outside.yaml", False),
        # leading ./ and ../ steps move the glob's base (run from envs/: --exclude ../variants/)
        (["../variants/"], "../variants/prod/x.yaml", True),
        (["../variants/"], "../variants.yaml", False),
        (["../variants/"], "variants/x.yaml", False),
        (["../*.yaml"], "../x.yaml", True),
        (["../*.yaml"], "../sub/x.yaml", False),
        (["..", "!../root/keep.yaml"], "keep.yaml", False),
        (["../"], "../other/x.yaml", True),
        (["../../"], "x.yaml", True),
        (["./x.yaml"], "x.yaml", True),
        (["./x.yaml"], "sub/x.yaml", False),
        (["/../x.yaml"], "../x.yaml", True),
        (["/legacy/"], "legacy/x.yaml", True),
        (["/legacy/"], "apps/legacy/x.yaml", False),  # a leading / anchors a folder pattern too
    ],
)  # fmt: skip
def test_path_filter_is_gitignore_style(tmp_path, patterns, path, matched):
    assert PathFilter(str(tmp_path / "root"), patterns)(str(tmp_path / "root" / path)) is matched


def test_exclude_steps_up_from_the_current_folder_and_refuses_dot_dot_inside(tree, monkeypatch):
    """Reported: from ``envs/``, ``hooklint lint .. --exclude '../variants/'`` had no effect."""
    (tree / "variants").mkdir()
    (tree / "variants/job.yaml").write_text(LATEST_TAG_HOOK)
    (tree / "envs").mkdir()
    monkeypatch.chdir(tree / "envs")
    assert codes(runner.invoke(app, ["lint", ".."]).output) == ["warning HL102", "note HL305", "warning HL102"]
    result = runner.invoke(app, ["lint", "--exclude", "../variants/", ".."])
    assert (result.exit_code, result.output.splitlines()[0]) == (1, "../app/job.yaml:17:18: warning HL102 "
                                                                    "hook-image-mutable-tag: " + HL102_MESSAGE)
    assert codes(result.output) == ["warning HL102"]
    result = runner.invoke(app, ["lint", "--exclude", "../variants/../app/", ".."])
    assert (result.exit_code, result.output) == (2, "hooklint: error: --exclude: glob '../variants/../app/' has '..' "
                                                    "after its start: only leading '../' steps up from the folder it "
                                                    "is relative to\n")


def test_schema_is_valid_and_agrees_with_the_hand_validator():
    jsonschema.Draft202012Validator.check_schema(schema())
    assert schema()["$id"] == SCHEMA_URL
    checker = jsonschema.Draft202012Validator(schema())
    samples = [data for data, _ in [
        ({"select": ["HL1"], "severity": {"HL208": "note"}, "per-path-ignores": {"a/**": ["HL103"]},
          "workload-scope": "all", "fail-on": "never", "exclude": ["x/"], "max-waves": 3}, None),
    ]] + [yaml.safe_load(text.replace("{f}", "")) for text, _ in YAML_ERRORS[:20]]  # fmt: skip
    for data in samples:
        schema_ok = checker.is_valid(data)
        try:
            from hooklint.config import validate

            validate(data, "x")
            mine = True
        except ConfigError:
            mine = False
        assert mine == schema_ok, data


def test_init_writes_a_starter_file_and_refuses_to_overwrite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["init"])
    assert (result.exit_code, result.output) == (0, "wrote .hooklint.yaml\n")
    text = (tmp_path / ".hooklint.yaml").read_text()
    assert text == STARTER.format(schema=SCHEMA_URL)
    assert text.splitlines()[0] == f"# yaml-language-server: $schema={SCHEMA_URL}"
    jsonschema.validate(yaml.safe_load(text), schema())
    cfg = load_config()
    assert (cfg.select, cfg.ignore, cfg.fail_on, cfg.workload_scope, cfg.max_waves) == (None, [], "warning", "hooks", 10)
    (tmp_path / ".hooklint.yaml").write_text("max-waves: 3\n")
    result = runner.invoke(app, ["init"])
    assert (result.exit_code, result.output) == (1, "hooklint: .hooklint.yaml already exists; not overwriting it\n")
    assert (tmp_path / ".hooklint.yaml").read_text() == "max-waves: 3\n"


def test_schema_ships_in_the_package():
    assert Path(SCHEMA_FILE).name == "config.schema.json" and Path(SCHEMA_FILE).parent.name == "hooklint"
    assert json.loads(Path(SCHEMA_FILE).read_text())["additionalProperties"] is False


def test_readme_documents_every_key_and_option():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Configuration\n"):readme.index("## Rules\n")]
    for key in schema()["properties"]:
        assert f"{key}:" in section or f"`{key}" in section, key
    for option in ("--select", "--ignore", "--exclude", "--fail-on", "--config", "hooklint init"):
        assert option in readme, option


# --- found from the linted path upward (issue 23) -------------------------------------------------


@pytest.fixture
def two_trees(tmp_path, monkeypatch):
    """A repository whose ``deploy/`` has its own configuration and whose ``other/`` has none;
    the current folder is a plain folder beside it, with a configuration of its own."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "deploy" / "app").mkdir(parents=True)
    (repo / "other").mkdir()
    (repo / "deploy/.hooklint.yaml").write_text("require-digest: true\n")
    (repo / "deploy/app/job.yaml").write_text("kind: ConfigMap\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere/.hooklint.yaml").write_text("max-waves: 3\n")
    monkeypatch.chdir(tmp_path / "elsewhere")
    return repo


def test_the_configuration_is_found_from_the_linted_path_not_the_current_folder(two_trees):
    repo = two_trees
    found = str(repo / "deploy/.hooklint.yaml")
    assert find_config_for([str(repo / "deploy/app")]) == found
    assert find_config_for([str(repo / "deploy/app/job.yaml")]) == found  # a file: from its folder
    assert find_config_for([str(repo / "deploy/app/gone.yaml")]) == found  # not there (yet): the same
    cfg = load_config(None, [str(repo / "deploy/app")])
    assert (cfg.require_digest, cfg.max_waves, cfg.path) == (True, 10, found)
    # the current folder's file configures no path, but stdin and a run without paths
    assert find_config_for(["-"]) == find_config_for([]) == str(two_trees.parent / "elsewhere/.hooklint.yaml")


def test_the_search_stops_at_the_repository_top(two_trees, tmp_path):
    (tmp_path / ".hooklint.yaml").write_text("max-waves: 2\n")  # above the repository: another project's
    assert find_config_for([str(two_trees / "other")]) is None
    assert find_config(str(two_trees / "other")) is None
    (two_trees / ".hooklint.yaml").write_text("max-waves: 4\n")
    assert find_config_for([str(two_trees / "other")]) == str(two_trees / ".hooklint.yaml")


@pytest.fixture
def no_git(tmp_path, monkeypatch):
    """``outer/repo/app`` outside any Git work tree, a configuration above the repository in
    ``outer/`` (as ``/tmp/.hooklint.yaml`` would be) that turns every rule off, and the current
    folder the repository's top."""
    (tmp_path / "outer/repo/app").mkdir(parents=True)
    (tmp_path / "outer/.hooklint.yaml").write_text("ignore: [HL1, HL2, HL3]\n")
    (tmp_path / "outer/repo/app/job.yaml").write_text(LATEST_TAG_HOOK)
    monkeypatch.chdir(tmp_path / "outer/repo")
    return tmp_path / "outer/repo"


def test_outside_git_the_search_stops_where_the_run_reads(no_git, tmp_path, monkeypatch):
    """Attacker trial 46, 1: outside Git the search went up to ``/``: a ``.hooklint.yaml`` in a
    folder above the repository (``/tmp``, anybody's to write) silenced every run below it, exit 0.
    It stops at the current folder when it holds the path, else at the outermost path named."""
    assert find_config_for(["app"]) is None
    assert find_config_for(["-"]) is None and find_config() is None
    result = CliRunner().invoke(app, ["lint", "--no-cache", "-f", "json", "app"])
    assert (result.exit_code, sorted({f["rule_id"] for f in json.loads(result.stdout)["findings"]})) == (
        1, ["HL102", "HL305"])
    monkeypatch.chdir(tmp_path / "outer")  # the current folder holds it: this folder's file is the run's
    assert find_config_for(["repo/app"]) == str(tmp_path / "outer/.hooklint.yaml")
    result = CliRunner().invoke(app, ["lint", "--no-cache", "-f", "json", "repo/app"])
    assert (result.exit_code, json.loads(result.stdout)["findings"]) == (0, [])
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # the named path's folder bounds it
    assert find_config_for([str(no_git / "app")]) is None
    assert find_config_for([str(no_git / "app/job.yaml")]) is None
    (no_git / ".hooklint.yaml").write_text("max-waves: 4\n")
    assert find_config_for([str(no_git / "app")]) is None  # above the path named
    assert find_config_for([str(no_git), str(no_git / "app")]) == str(no_git / ".hooklint.yaml")


@pytest.mark.parametrize("name", [".hooklint.yaml", "pyproject.toml"])
def test_outside_git_a_configuration_linking_out_of_where_the_run_reads_is_refused(name, no_git):
    """Attacker trial 46, 2: outside Git a found configuration that is a link to a file outside
    the repository was read (``fail-on: never``): refused, as in a Git work tree, exit 2."""
    (no_git.parent / "outside.toml").write_text("[tool.hooklint]\nfail-on = 'never'\n")
    (no_git.parent / "outside.yaml").write_text("fail-on: never\n")
    os.symlink(f"../outside.{'toml' if name == 'pyproject.toml' else 'yaml'}", no_git / name)
    result = CliRunner().invoke(app, ["lint", "--no-cache", "app"])
    assert result.exit_code == 2
    target = os.path.realpath(no_git / name)
    assert result.output == (f"hooklint: error: {no_git / name}: the configuration is a symbolic link to {target}, "
                             "outside its repository: hooklint reads no file outside the repository (name a "
                             "configuration with --config)\n")


def test_paths_in_trees_configured_by_different_files_are_a_configuration_error(two_trees, monkeypatch):
    monkeypatch.chdir(two_trees)
    (two_trees / "other/.hooklint.yaml").write_text("max-waves: 4\n")
    with pytest.raises(ConfigError) as info:
        find_config_for(["deploy/app", "deploy", "other"])
    assert str(info.value) == ("deploy/app and other are configured by different files (deploy/.hooklint.yaml, "
                               "other/.hooklint.yaml): lint them in separate runs, or name one file with --config")
    # a path that finds none takes the file the others find
    (two_trees / "other/.hooklint.yaml").unlink()
    assert find_config_for(["other", "deploy/app"]) == str(two_trees / "deploy/.hooklint.yaml")


@pytest.mark.parametrize("clusters, message", [
    ([{"name": "x"}], "x: 'clusters' entry 0 needs a non-empty string 'server'"),
    ([{"name": "x", "server": "s", "labls": {}}], "x: 'clusters' entry 0: unknown key 'labls'; did you mean 'labels'? (known: annotations, "
                                                  "labels, name, project, server)"),
    ([{"name": "x", "server": "s", "labels": {"a": 1}}], "x: 'clusters' entry 0: 'labels' must be a mapping of strings"),
])  # fmt: skip
def test_clusters_entries_are_checked(clusters, message):
    from hooklint.config import ConfigError, parse_config

    with pytest.raises(ConfigError) as raised:
        parse_config({"clusters": clusters}, "x")
    assert str(raised.value) == message


@pytest.mark.parametrize("text, where", [
    ("exclude: ['[z-a]']\n", "'exclude'"),
    ("per-path-ignores: {'legacy/[z-a]': [HL1]}\n", "'per-path-ignores'"),
])  # fmt: skip
def test_a_glob_no_regex_holds_is_a_configuration_error_with_its_line(tmp_path, monkeypatch, text, where):
    """``[z-a]`` was ``internal error: error: bad character range z-a`` (second helper trial)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".hooklint.yaml").write_text(text)
    result = runner.invoke(app, ["lint", "."])
    bad = "legacy/[z-a]" if "legacy" in text else "[z-a]"
    assert (result.exit_code, result.output) == (2, f"hooklint: error: {tmp_path / '.hooklint.yaml'}:1: {where}: glob "
                                                    f"'{bad}' is not a valid glob (bad character range z-a)\n")  # fmt: skip
    (tmp_path / ".hooklint.yaml").unlink()
    result = runner.invoke(app, ["lint", "--exclude", "x/[z-a]", "."])
    assert (result.exit_code, result.output) == (2, "hooklint: error: --exclude: glob 'x/[z-a]' is not a valid glob "
                                                    "(bad character range z-a)\n")  # fmt: skip
