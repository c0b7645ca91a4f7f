"""Numbers read from the repository as Go reads them, never with Python's ``int()`` limit of 4,300
digits (attack 27): a text of more digits than int64 (or uint64, or float64) holds is what Go makes
of it (helm ``pkg/strvals/parser.go`` ``typedVal`` keeps it a string; ``strconv.Atoi`` says "value
out of range"; ``encoding/json`` through ``ConvertMapNumbers`` fails), and an exception of the
Helm SDK child's own Python is said to be hooklint's bug, never reported as Helm's message."""

from __future__ import annotations

import inspect
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from hooklint import argocd
from hooklint.cli import app
from hooklint.gojsonread import NotGoJSON, read_value
from hooklint.sources import bounded
from hooklint.sources.fetch import client
from hooklint.sources.fetch.net import Budget, FetchError
from hooklint.sources.fetch.semver import parse_version
from hooklint.sources.render import _helm_child, helm, strvals
from hooklint.sources.render.helm import HelmOptions, find_helm, render_helm
from hooklint.sources.render.kustomize import KustomizeOptions
from hooklint.yamlio import FLOAT, STR, Positions, go_resolve_plain

runner = CliRunner()
needs_sdk = pytest.mark.skipif(find_helm() is None or find_helm()[0] != "sdk", reason="needs helm-python-sdk")
ONES = "1" * 5000


@pytest.mark.parametrize(("flag", "expected"), [
    (f"x={ONES}", {"x": ONES}),  # ParseInt fails (range): typedVal keeps the text
    (f"x=-{ONES}", {"x": "-" + ONES}),
    ("x=9223372036854775808", {"x": "9223372036854775808"}),
    ("x=-9223372036854775808", {"x": -(2**63)}),
    ("x=9223372036854775807", {"x": 2**63 - 1}),
    (f"x=-{'0' * 5000}7", {"x": -7}),  # leading zeros after a sign: ParseInt reads them
    (f"x=+{'0' * 5000}", {"x": 0}),
    (f"a[{'0' * 5000}1]=z", {"a": [None, "z"]}),  # Atoi of an index: leading zeros too
])  # fmt: skip
def test_set_values_past_int64_stay_strings_as_in_typed_val(flag: str, expected: dict) -> None:
    assert strvals.parse(flag) == expected


def test_an_index_past_int64_is_helms_range_error_not_pythons() -> None:
    with pytest.raises(strvals.StrvalsError) as error:
        strvals.parse(f"a[{ONES}]=1")
    assert str(error.value) == f'error parsing index: strconv.Atoi: parsing "{ONES}": value out of range'
    assert strvals.assignments(f"a[{ONES}]=1") == ([], True)  # the order check reads it too


@needs_sdk
def test_a_parameter_of_5000_digits_renders_as_a_string(tmp_path: Path) -> None:
    chart = tmp_path / "shop"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n"
        '  x: "{{ kindOf .Values.x }} {{ len .Values.x }}"\n  i: "{{ index .Values.a 1 }}"\n')
    options = HelmOptions(release_name="shop", parameters=(("x", ONES, False), (f"a[{'0' * 5000}1]", "z", False)))
    docs = render_helm(str(chart), str(tmp_path), options).documents
    assert [d.text for d in docs] == ['apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n'
                                      '  x: "string 5000"\n  i: "z"\n']


@needs_sdk
def test_a_python_exception_of_the_child_is_a_fault_not_helms_message(tmp_path: Path) -> None:
    source = inspect.getsource(_helm_child).splitlines()
    line = next(i for i, text in enumerate(source, 1) if 'validate_release_name(request["release"])' in text)
    with pytest.raises(helm._HelmFault) as error:  # no "release" in the request: a KeyError of the child
        helm._ask_sdk({"op": "render"}, str(tmp_path), bounded.Limits(timeout=60))
    assert str(error.value) == f"KeyError at _helm_child.py:{line} in _render"


def test_hl007_says_a_fault_is_hooklints_and_argo_cd_may_render(tmp_path: Path, monkeypatch) -> None:
    def failing(request: dict, *args, **kwargs) -> dict:
        if request["op"] == "version":
            return {"sdk": "0.2.2", "helm": "v4.0.0"}
        raise helm._HelmFault("ValueError at strvals.py:140 in _typed")

    monkeypatch.setattr(helm, "_ask_sdk", failing)
    monkeypatch.setattr(helm, "_sdk_path", lambda: str(tmp_path))
    monkeypatch.setattr(helm.sandbox, "find_program", lambda *args: None)
    helm.find_helm.cache_clear()
    chart = tmp_path / "charts" / "shop"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: shop\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    try:
        result = runner.invoke(app, ["lint", "--no-cache", "."])
    finally:
        helm.find_helm.cache_clear()
    assert result.output.splitlines()[0] == (
        "charts/shop/Chart.yaml:1:1: error HL007 render-failed: Rendering failed: hooklint's own code failed while the Helm SDK rendered "
        "chart charts/shop (ValueError at strvals.py:140 in _typed). That is a bug in hooklint, not an error of "
        "Helm's: Argo CD may render and sync this application, and nothing of it is checked here. Please report it "
        "to hooklint's maintainers, with the chart and the Application's helm settings if you can.")
    assert result.exit_code == 1


def test_a_json_integer_of_5000_digits_is_gos_range_error() -> None:
    text = '{"n": ' + ONES + "}"
    with pytest.raises(NotGoJSON) as error:
        read_value(text, 0, len(text), Positions(text), 1000)
    assert str(error.value) == f"number {ONES} out of range"
    text = '{"n": 18446744073709551616}'  # past int64: a float64, as ConvertMapNumbers makes it
    assert read_value(text, 0, len(text), Positions(text), 1000)[0] == {"n": 18446744073709551616.0}


@pytest.mark.parametrize("count", [ONES, "9223372036854775808", "-9223372036854775809"])
def test_a_replica_count_atoi_refuses_is_argo_cds_error(count: str) -> None:
    with pytest.raises(ValueError) as error:
        KustomizeOptions.from_application({"replicas": [{"name": "web", "count": count}]})
    assert str(error.value) == f"kustomize.replicas: expected integer value for count. Received: {count}"


def test_the_lowest_int64_is_a_replica_count_atoi_reads() -> None:
    spec = {"replicas": [{"name": "web", "count": "-9223372036854775808"}, {"name": "db", "count": "0" * 5000 + "3"}]}
    assert KustomizeOptions.from_application(spec).replicas == (("web", -(2**63)), ("db", 3))


@pytest.mark.parametrize(("text", "expected"), [
    (f"{ONES}.0.0", None), (f"1.{ONES}.0", None), ("1.2.3-" + ONES, "1.2.3-" + ONES),
    ("1.\u0663.0", None),  # ParseUint takes ASCII digits only
])  # fmt: skip
def test_semver_parts_past_uint64_are_no_version(text: str, expected: str | None) -> None:
    version = parse_version(text)
    assert (version.original if version else None) == expected


def test_a_prerelease_of_5000_digits_compares_without_error() -> None:
    low, high = parse_version("1.0.0-" + ONES), parse_version("1.0.0-" + ONES + "1")
    assert low is not None and high is not None and low.compare(high) == -1


@pytest.mark.parametrize(("constraint", "expected"), [
    (ONES, "0.0.0"), (f"^1.{ONES}", "0.0.0"), (">1.2.3", "1.2.4"), ("~1.\u0663", "1.0.0"),
])  # fmt: skip
def test_a_dependency_constraint_past_uint64_names_no_version(constraint: str, expected: str) -> None:
    assert helm._version_within(constraint) == expected


@pytest.mark.parametrize(("plain", "expected"), [
    (".5", (FLOAT, 0.5)), (".5e3", (FLOAT, 500.0)),
    (".5_0", (STR, ".5_0")),  # ParseFloat takes "_" only after a base prefix; Python's float() takes it
    (".\u0665", (STR, ".\u0665")),  # ASCII digits only
    (".1e400", (STR, ".1e400")),  # ErrRange: go-yaml keeps the text
])  # fmt: skip
def test_a_plain_scalar_opening_with_a_dot_is_read_as_parse_float_reads_it(plain: str, expected: tuple) -> None:
    assert go_resolve_plain(plain) == expected


@pytest.mark.parametrize(("annotations", "value", "source"), [
    ({"argocd.argoproj.io/sync-wave": "-" + "0" * 5000 + "2"}, -2, "argocd"),  # Atoi reads leading zeros
    ({"argocd.argoproj.io/sync-wave": ONES, "helm.sh/hook-weight": "0" * 5000 + "3"}, 3, "helm"),
    ({"argocd.argoproj.io/sync-wave": "-9223372036854775808"}, -(2**63), "argocd"),
    ({"helm.sh/hook-weight": "9223372036854775808"}, 0, "default"),  # out of range: Argo CD's wave 0
])  # fmt: skip
def test_sync_waves_of_5000_digits_are_read_as_atoi_reads_them(annotations: dict, value: int, source: str) -> None:
    assert argocd.sync_wave(annotations) == argocd.Wave(value, source)


def test_a_sync_wave_of_5000_digits_is_linted(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
        "    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/sync-wave: '-" + "0" * 5000 + "2'\n"
        "spec:\n  backoffLimit: 1\n  activeDeadlineSeconds: 60\n  template:\n    spec:\n      restartPolicy: Never\n"
        "      serviceAccountName: migrate\n      automountServiceAccountToken: false\n"
        "      containers: [{name: m, image: 'ghcr.io/acme/m@sha256:" + "d" * 64 + "'}]\n")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint", "--no-cache", "--format", "concise", "."])
    assert result.output.splitlines()[:2] == [
        "job.yaml:6:30: HL305 Every object of this application is a hook (1 hook run during a sync, no plain "
        "resource)", ""]
    assert result.exit_code == 0


@pytest.mark.parametrize(("length", "refused"), [(ONES, True), ("\u00b2", False), ("12", False)])
def test_a_content_length_of_5000_digits_is_past_the_budget(length: str, refused: bool) -> None:
    response = SimpleNamespace(getheader=lambda name: length, read=lambda size: b"")
    connection, budget = SimpleNamespace(sock=None), Budget(max_bytes=100)
    if not refused:  # not a length Go's ParseInt reads ("²"), or within the budget: the body is read
        assert client._read(connection, response, budget, "https://charts.example.com/x") == b""  # type: ignore[arg-type]
        return
    with pytest.raises(FetchError) as error:
        client._read(connection, response, budget, "https://charts.example.com/x")  # type: ignore[arg-type]
    assert str(error.value) == (f"https://charts.example.com/x: {ONES} bytes, more than fetch-max-bytes (100 bytes) "
                                "allows")
