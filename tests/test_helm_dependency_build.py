"""Which subcharts Helm renders after Argo CD's ``helm dependency build`` (attacker trial 30):
``charts/`` entries Helm's loader never loads (``_``/``.`` names, ``.helmignore``), every
dependency fetched again, the lock file's repositories, nameless dependencies, duplicate members of a
packaged subchart."""

import io
import tarfile
from pathlib import Path

import pytest

from hooklint.sources.render import helm
from hooklint.sources.render.helm import HelmOptions, find_helm, render_helm
from hooklint.sources.render.rendered import RenderError
from hooklint.sources.repository.gotar import gunzipped, tar_disagreement

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: real-hook
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: x
          image: busybox
"""
DECOY = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: decoy\n"


def write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """app depends on wanted (file://../real, whose template is a PreSync Job)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / ".cache"))
    write(tmp_path / "app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n"
                                       "  - name: wanted\n    version: 1.0.0\n    repository: file://../real\n")
    write(tmp_path / "app/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n")
    write(tmp_path / "real/Chart.yaml", "apiVersion: v2\nname: wanted\nversion: 1.0.0\n")
    write(tmp_path / "real/templates/job.yaml", HOOK)
    return tmp_path


def decoy_chart(folder: Path, name: str = "wanted", version: str = "1.0.0") -> None:
    write(folder / "Chart.yaml", f"apiVersion: v2\nname: {name}\nversion: {version}\n")
    write(folder / "templates/cm.yaml", DECOY)


def names(rendering) -> list[str]:
    return sorted(d.text.split("name: ", 1)[1].split("\n", 1)[0] for d in rendering.documents)


@needs_helm
@pytest.mark.parametrize("entry", ["_x", ".x"])
def test_a_charts_entry_named_with_underscore_or_dot_is_no_dependency(repo, entry):
    """B2: Helm's LoadFiles skips charts/_x and charts/.x: wanted is missing, the build packages ../real."""
    decoy_chart(repo / "app/charts" / entry)
    assert names(render_helm("app", ".", HelmOptions("app"), helm_major=3)) == ["app", "real-hook"]


@needs_helm
def test_a_charts_entry_the_helmignore_leaves_out_is_no_dependency(repo):
    """B3: the directory loader never reaches charts/wanted/: the build packages ../real."""
    decoy_chart(repo / "app/charts/wanted")
    write(repo / "app/.helmignore", "# vendored\ncharts/wanted/\n")
    assert names(render_helm("app", ".", HelmOptions("app"), helm_major=3)) == ["app", "real-hook"]


def test_helmignore_rules_as_helm_applies_them(tmp_path):
    write(tmp_path / ".helmignore", "\ufeffwanted\n/charts/x*\n!templates\n")
    rules = helm._HelmIgnore.of(str(tmp_path), 1 << 20)
    assert rules.ignores("charts/wanted", True) and rules.ignores("charts/xy", False)
    # a `!` rule leaves out every path it does not match (pkg/ignore/rules.go Ignore)
    assert rules.ignores("charts/other", True) and not rules.ignores("templates", True)
    assert not rules.loads("", "other", True) and helm._HelmIgnore.of(str(tmp_path / "none"), 1).loads("", "a", True)
    write(tmp_path / ".helmignore", "ok\ncharts/**\n")
    with pytest.raises(RenderError) as caught:
        helm._HelmIgnore.of(str(tmp_path), 1 << 20)
    assert (caught.value.message, caught.value.line) == (
        f"{tmp_path}/.helmignore:2: double-star (**) syntax is not supported (Helm's chart loader fails on this "
        ".helmignore)", 2)


def packaged(members: list[tuple[str, str]]) -> bytes:
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz", format=tarfile.USTAR_FORMAT) as tar:
        for name, text in members:
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    return archive.getvalue()


def test_an_archive_with_two_members_of_one_name_is_refused(tmp_path):
    """B8: Helm keeps the last wanted/Chart.yaml (named decoy), hooklint read the first."""
    data = packaged([("wanted/Chart.yaml", "apiVersion: v2\nname: wanted\nversion: 1.0.0\n"),
                     ("wanted/templates/cm.yaml", DECOY),
                     ("wanted/./Chart.yaml", "apiVersion: v2\nname: decoy\nversion: 1.0.0\n")])
    assert tar_disagreement(gunzipped(data, 1 << 20)[0]) == (
        "holds two members named 'wanted/./Chart.yaml' (members 1 and 3): Helm's loader keeps the last, Python's "
        "tarfile readers the first or the last, so which one is read is not certain")
    write(tmp_path / "a.tgz", data)
    assert helm._archive_chart_name(str(tmp_path / "a.tgz")) is None
    # Helm drops the first folder whatever its name: two Chart.yaml of two folders are one to it
    write(tmp_path / "b.tgz", packaged([("wanted/Chart.yaml", "apiVersion: v2\nname: wanted\nversion: 1.0.0\n"),
                                        ("other/Chart.yaml", "apiVersion: v2\nname: decoy\nversion: 1.0.0\n")]))
    assert helm._archive_chart_name(str(tmp_path / "b.tgz")) is None


@needs_helm
def test_the_build_fetches_every_dependency_again(repo):
    """B4: b is missing, so the build runs and fetches a too: the committed a-1.0.0.tgz (a decoy)
    is replaced, not rendered, and a is left out (HL009)."""
    write(repo / "app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n"
                                   "  - name: a\n    version: 1.0.0\n    repository: https://charts.example.com\n"
                                   "  - name: wanted\n    version: 1.0.0\n    repository: file://../real\n")
    tgz = packaged([("a/Chart.yaml", "apiVersion: v2\nname: a\nversion: 1.0.0\n"), ("a/templates/cm.yaml", DECOY)])
    write(repo / "app/charts/a-1.0.0.tgz", tgz)
    rendering = render_helm("app", ".", HelmOptions("app"), helm_major=3)
    assert names(rendering) == ["app", "real-hook"]
    [omission] = rendering.omitted
    assert (omission.message, omission.path, omission.line, omission.column) == (
        "chart dependency a (https://charts.example.com) needs a chart repository: hooklint fetches it only with "
        "`--fetch`", "app/Chart.yaml", 5, 5)


@needs_helm
def test_a_lock_naming_another_repository_leaves_the_dependency_out(repo):
    """B1: the build fetches what Chart.lock lists (file://../evil) once its digest matches."""
    write(repo / "app/Chart.lock", "dependencies:\n- name: wanted\n  repository: file://../evil\n  version: 1.0.0\n"
                                   "digest: sha256:0\n")
    rendering = render_helm("app", ".", HelmOptions("app"), helm_major=3)
    assert names(rendering) == ["app"]
    [omission] = rendering.omitted
    assert (omission.message, omission.path, omission.line, omission.column) == (
        "chart dependency wanted (file://../real) was left out: app/Chart.lock names file://../evil for it: helm "
        "dependency build fetches what the lock lists when its digest matches (and fails when not), which hooklint "
        "does not check", "app/Chart.yaml", 5, 5)
    write(repo / "app/Chart.lock", "dependencies:\n- name: wanted\n  repository: file://../real\n  version: 1.0.0\n"
                                   "- name: more\n  repository: file://../evil\n  version: 1.0.0\ndigest: sha256:0\n")
    with pytest.raises(RenderError) as caught:
        render_helm("app", ".", HelmOptions("app"), helm_major=3)
    assert (caught.value.path, caught.value.line, caught.value.column, caught.value.argocd_renders is not None) == (
        "app/Chart.lock", 5, 3, True)
    assert caught.value.message.startswith("app/Chart.lock lists chart 'more' (file://../evil), which app/Chart.yaml "
                                           "does not list")


@pytest.mark.parametrize("written, told", [('""', "an empty name"), ("null", "no name"),
                                           ("5", "a name that is not a string (int: Helm cannot load the Chart.yaml)")])
def test_a_dependency_without_a_name_fails_as_argocd_does(repo, written, told):
    """B9: it was dropped silently; Helm finds it missing and the build fails."""
    write(repo / "app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n"
                                   f"  - {{name: {written}, repository: \"https://x.example\"}}\n")
    with pytest.raises(RenderError) as caught:
        render_helm("app", ".", HelmOptions("app"), helm_major=3)
    error = caught.value
    assert (error.message, error.path, error.line, error.column, error.argocd_renders) == (
        f"chart dependency 1 has {told}: helm template finds it missing in charts/ and helm dependency build cannot "
        "fetch it, so Argo CD fails to render the chart; name the chart it depends on", "app/Chart.yaml", 5, 5, None)


@needs_helm
@pytest.mark.parametrize("rules, ignored", [
    ("charts/*/templates/\n", "charts/hooklint-dependency-0/templates"),  # the dependency's templates
    ("job.yaml\n", "charts/hooklint-dependency-0/templates/job.yaml"),  # its hook, by its base name
])  # fmt: skip
def test_the_charts_helmignore_never_hides_a_packaged_dependency_from_hooklint_alone(repo, rules, ignored):
    """Argo CD's build packages ../real into charts/wanted-1.0.0.tgz, which the top chart's
    .helmignore does not look into; hooklint's copy held it as a folder the rules reached, and the
    PreSync Job went unseen (helmdeps' note on attacker trial 30)."""
    write(repo / "app/.helmignore", rules)
    with pytest.raises(RenderError) as caught:
        render_helm("app", ".", HelmOptions("app"), helm_major=3)
    assert (caught.value.message, caught.value.path) == (
        f"app/.helmignore leaves out {ignored} of what helm dependency build puts into charts/: Argo CD's build "
        "packages each dependency as an archive, which those rules do not look into, and hooklint cannot render the "
        "dependencies as Argo CD does", "app/.helmignore")
    assert caught.value.argocd_renders is not None


@needs_helm
def test_a_stubs_marker_is_never_hidden_by_the_charts_helmignore(repo):
    """A dependency hooklint leaves out is said by a marker template in its stand-in: a rule hiding
    it made the omission silent."""
    write(repo / "app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n"
                                   "  - name: redis\n    version: 19.0.0\n    repository: https://charts.example.com\n")
    write(repo / "app/.helmignore", "hooklint-omitted-*\n")
    with pytest.raises(RenderError) as caught:
        render_helm("app", ".", HelmOptions("app"), helm_major=3)
    assert caught.value.message.startswith("app/.helmignore leaves out charts/hooklint-omitted-0 of what helm ")


@needs_helm
def test_what_the_dependencys_own_helmignore_leaves_out_too_is_no_difference(repo):
    """helm create's .helmignore in both: a .gitignore of the dependency is out of Argo CD's archive too."""
    write(repo / "app/.helmignore", ".gitignore\n*.orig\n")
    write(repo / "real/.helmignore", ".gitignore\n")
    write(repo / "real/.gitignore", "*.tgz\n")
    assert names(render_helm("app", ".", HelmOptions("app"), helm_major=3)) == ["app", "real-hook"]


# --- what Helm's loader never reads of a chart folder (attacker trial 31) ---------------------------


@needs_helm
def test_a_file_dependency_is_packaged_without_what_its_own_helmignore_leaves_out(repo):
    """B1: tarFromLocalDir packages what LoadDir of ../real reads: its values.yaml, which turned the
    hook off in hooklint's copy, is not in Argo CD's archive, and the hook renders."""
    write(repo / "real/.helmignore", "values.yaml\n")
    write(repo / "real/values.yaml", "safe: true\n")
    write(repo / "real/templates/job.yaml", "{{- if not .Values.safe }}\n" + HOOK + "{{- end }}\n")
    assert names(render_helm("app", ".", HelmOptions("app"), helm_major=3)) == ["app", "real-hook"]


@needs_helm
def test_a_requirements_file_the_helmignore_leaves_out_lists_no_dependency(repo):
    """B2: Helm never reads it, declares no dependency and runs no build: the committed archive of
    charts/ renders (hooklint built the dependencies it listed and dropped the archive)."""
    write(repo / "app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.0.0\n")
    write(repo / "app/.helmignore", "requirements.yaml\n")
    write(repo / "app/requirements.yaml", "dependencies:\n- name: wanted\n  version: 1.0.0\n  repository: file://../real\n"
                                          "- name: other\n  version: 1.0.0\n  repository: file://../other\n")  # fmt: skip
    write(repo / "app/charts/evil-0.1.0.tgz", packaged([("evil/Chart.yaml", "apiVersion: v2\nname: evil\nversion: 0.1.0\n"),
                                                        ("evil/templates/job.yaml", HOOK.replace("real-hook", "evil-hook"))]))
    assert names(render_helm("app", ".", HelmOptions("app"), helm_major=3)) == ["app", "evil-hook"]


@needs_helm
def test_a_lock_the_helmignore_leaves_out_is_not_the_one_helm_builds_from(repo):
    """B3: requirements.lock (which agrees with Chart.yaml) is hidden; Helm builds from Chart.lock,
    which names another folder: the dependency is left out, not rendered from Chart.yaml's."""
    write(repo / "app/.helmignore", "requirements.lock\n")
    write(repo / "app/requirements.lock", "dependencies:\n- name: wanted\n  repository: file://../real\n  version: 1.0.0\n"
                                          "digest: sha256:0\n")  # fmt: skip
    write(repo / "app/Chart.lock", "dependencies:\n- name: wanted\n  repository: file://../evil\n  version: 1.0.0\n"
                                   "digest: sha256:0\n")
    rendering = render_helm("app", ".", HelmOptions("app"), helm_major=3)
    assert names(rendering) == ["app"]
    assert [(o.path, o.line, o.column) for o in rendering.omitted] == [("app/Chart.yaml", 5, 5)]
    assert "app/Chart.lock names file://../evil for it" in rendering.omitted[0].message


@needs_helm
def test_a_condition_reading_a_value_of_a_dependency_left_out_is_said(repo):
    """B4: Helm decides b's condition with the defaults of a (left out: a chart repository), which
    may say enableB: true; the stub holds none, so hooklint saw b disabled and said nothing."""
    write(repo / "app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n"
                                   "  - name: a\n    version: 1.0.0\n    repository: https://charts.example.com\n"
                                   "    condition: a.enabled\n"
                                   "  - name: wanted\n    version: 1.0.0\n    repository: file://../real\n"
                                   "    condition: a.enableB,wanted.enabled\n")  # fmt: skip
    write(repo / "app/values.yaml", "a: {enabled: false}\nwanted: {enabled: false}\n")
    rendering = render_helm("app", ".", HelmOptions("app"), helm_major=3)
    assert names(rendering) == ["app"]
    assert [(o.message, o.path, o.line, o.column) for o in rendering.omitted] == [(
        "chart dependency wanted: its condition reads a.enableB, a value of a dependency hooklint left out, whose "
        "defaults Helm takes into account: whether Helm renders wanted is not known", "app/Chart.yaml", 9, 5)]


@needs_helm
def test_a_failure_argo_cd_takes_for_a_missing_dependency_is_not_said_to_fail_there(repo):
    """B5: IsMissingDependencyErr is strings.Contains of Helm's whole error, a template's fail text
    included: Argo CD then builds and renders again (the hook rendered), where hooklint said HL007
    "Argo CD fails the same way"."""
    write(repo / "real/Chart.yaml", "apiVersion: v2\nname: wanted\nversion: 1.0.0\n")
    write(repo / "app/templates/cm.yaml", '{{ fail "found in Chart.yaml, but missing in charts/ directory: wanted" }}\n')
    with pytest.raises(RenderError) as caught:
        render_helm("app", ".", HelmOptions("app"), helm_major=3)
    assert caught.value.message == (
        "execution error at (app/templates/cm.yaml:1:3): found in Chart.yaml, but missing in charts/ directory: wanted: "
        "Argo CD's repo server takes this message for a missing dependency, runs helm dependency build and renders "
        "again, which hooklint does not")
    assert (caught.value.path, caught.value.argocd_renders) == (
        "app/templates/cm.yaml", "Argo CD runs helm dependency build and renders the chart again")


def test_a_charts_file_with_a_dependency_to_build_is_a_render_error(repo):
    """B6: was an internal error (FileExistsError); Helm's build fails too."""
    write(repo / "app/charts", "not a folder\n")
    with pytest.raises(RenderError) as caught:
        render_helm("app", ".", HelmOptions("app"), helm_major=3)
    assert (caught.value.message, caught.value.path) == (
        "app/charts is not a folder: helm dependency build, which Argo CD runs for a dependency missing from it, "
        "fails", "app/Chart.yaml")
