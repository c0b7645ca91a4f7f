"""ApplicationSet inputs read as Argo CD reads them (attack 9: F7, F8, F9, F14).

Pinned against argo-cd v3.5.1: ``applicationset/generators/git.go`` (``generateParamsFromGitFile``)
and ``list.go`` (``elementsYaml``) unmarshal with ``sigs.k8s.io/yaml`` (go-yaml v2's resolver and
merge keys); ``applicationset/controllers/template/patch.go`` applies ``templatePatch`` with
``strategicpatch.StrategicMergePatch`` (apimachinery v0.36.1 ``mergeMap``)."""

from __future__ import annotations

from hooklint.sources.appmap.applicationsets import Expansion, Templates, Unexpanded, _Context, _list, _parameter_file


def _ctx(root: str) -> _Context:
    return _Context(root, set(), False, Templates(False, [], None), [], Expansion(), None)


def test_git_files_are_typed_as_go_yaml_v2_types_them(tmp_path):
    (tmp_path / "config.yaml").write_text("variant: y\nsixty: 1:30\nbig: 1e3\noctal: 0o17\nday: 2024-1-1\nno: n\n")
    found = _parameter_file(str(tmp_path / "config.yaml"), "config.yaml", str(tmp_path))
    assert found == [{"variant": True, "sixty": "1:30", "big": 1000.0, "octal": 15, "day": "2024-1-1", "false": False}]


def test_a_later_merge_key_overrides_keys_written_before_it(tmp_path):
    (tmp_path / "config.yaml").write_text('name: prod\nx: &e {variant: "true"}\nvariant: "y"\n<<: *e\n')
    found = _parameter_file(str(tmp_path / "config.yaml"), "config.yaml", str(tmp_path))
    assert found == [{"name": "prod", "x": {"variant": "true"}, "variant": "true"}]


def test_elements_yaml_is_typed_as_go_yaml_v2_types_it(tmp_path):
    assert _list({"elementsYaml": "- {name: prod, variant: y}\n"}, _ctx(str(tmp_path))) == [
        {"name": "prod", "variant": True}]


def _raised(call) -> Unexpanded:
    try:
        call()
    except Unexpanded as exc:
        return exc
    raise AssertionError("no Unexpanded raised")


def test_a_files_path_with_git_pathspec_magic_is_expanded_as_git_does(tmp_path):
    """``util/git/client.go`` ``LsFiles`` (default) runs ``git ls-files --full-name -z -- PATH``: the
    magic applies (``:(icase)`` matches cfg/prod; hooklint.sources.repository.pathspec, pinned
    against git in tests/test_pathspec.py); ``attr:`` magic, not modelled, is said (HL022)."""
    from hooklint.sources.appmap.applicationsets import _git

    (tmp_path / "cfg" / "prod").mkdir(parents=True)
    (tmp_path / "cfg" / "prod" / "config.yaml").write_text("variant: evil\n")
    ctx = _ctx(str(tmp_path))
    ctx.ours.add("github.com/acme/shop")
    spec = {"repoURL": "https://github.com/acme/shop.git", "files": [{"path": ":(icase)CFG/*/config.yaml"}]}
    assert [(p["path"], p["variant"]) for p in _git(spec, ctx)] == [("cfg/prod", "evil")]
    spec = {"repoURL": "https://github.com/acme/shop.git", "files": [{"path": ":(attr:x)cfg/*/config.yaml"}]}
    exc = _raised(lambda: _git(spec, ctx))
    assert (exc.kind, exc.key, exc.message) == ("network", "git", (
        "the git files generator's path ':(attr:x)cfg/*/config.yaml': the pathspec ':(attr:x)cfg/*/config.yaml' has "
        "the magic 'attr:x', which hooklint does not expand: the Applications it generates are not linted. Write "
        "the path without it"))


def test_a_clusters_selector_that_no_known_cluster_matches_is_said_not_expanded(tmp_path):
    """``applicationset/generators/cluster.go``: with a selector only cluster Secrets are selected
    (never the local cluster); the registered ones are unknown offline, so nothing silent."""
    from hooklint.sources.appmap.applicationsets import _clusters

    ctx = _ctx(str(tmp_path))
    ctx.clusters.append({"name": "dev", "server": "https://dev.example", "labels": {"env": "dev"}})
    spec = {"selector": {"matchLabels": {"env": "prod"}}}
    exc = _raised(lambda: _clusters(spec, ctx))
    assert (exc.kind, exc.key, exc.message) == ("network", "clusters", (
        "the clusters generator selects clusters by label and none of the clusters hooklint knows (cluster Secrets "
        "of this repository, the configuration's `clusters:` list) matches its selector: the clusters registered in "
        "Argo CD are unknown offline, so the Applications it generates are not linted. List the clusters it should "
        "select under `clusters:` in .hooklint.yaml"))
    ctx.clusters[0]["labels"] = {"env": "prod"}
    assert [p["name"] for p in _clusters(spec, ctx)] == ["dev"]


_APP = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": {"name": "shop-prod"},
        "spec": {"project": "prod", "source": {"repoURL": "https://github.com/acme/deploy.git", "path": "app",
                                               "kustomize": {"patches": [{"patch": "x"}], "namePrefix": "a-"}},
                 "destination": {"server": "https://kubernetes.default.svc", "namespace": "shop"}}}


def _source_after(patch: str) -> dict:
    import copy

    from hooklint.sources.appmap.applicationsets import _apply_patch

    return _apply_patch(copy.deepcopy(_APP), patch)["spec"]["source"]


def test_template_patch_directives_delete_and_replace_as_strategic_merge_does():
    """apimachinery ``handleDirectiveInMergeMap``: delete empties the mapping, replace takes the
    patch's; ``removeDirectives`` drops a directive mapping the Application lacks."""
    assert _source_after("spec:\n  source:\n    kustomize:\n      $patch: delete\n") == {
        "kustomize": {}, "path": "app", "repoURL": "https://github.com/acme/deploy.git"}
    assert _source_after("spec:\n  source:\n    kustomize:\n      $patch: replace\n      namePrefix: b-\n") == {
        "kustomize": {"namePrefix": "b-"}, "path": "app", "repoURL": "https://github.com/acme/deploy.git"}
    assert _source_after("spec:\n  source:\n    directory: {recurse: true, $patch: delete}\n") == {
        "kustomize": {"namePrefix": "a-", "patches": [{"patch": "x"}]}, "path": "app",
        "repoURL": "https://github.com/acme/deploy.git"}


def test_template_patch_directives_not_modelled_are_said():
    exc = _raised(lambda: _source_after("spec:\n  source:\n    kustomize:\n      $patch: merge\n"))
    assert (exc.kind, exc.message) == (
        "failed", "error while applying templatePatch template to json: unknown patch type: merge in map")
    exc = _raised(lambda: _source_after("spec:\n  source:\n    $retainKeys: [path]\n    path: b\n"))
    assert (exc.kind, exc.message) == ("network", (
        "the templatePatch holds the strategic-merge-patch directive '$retainKeys', which hooklint does not model: "
        "the Applications it generates are not linted. Write the patch without it"))


def test_git_files_numbers_are_float64_printed_with_percent_v():
    """``generateParamsFromGitFile`` flattens with ``fmt.Sprintf("%v", v)``; sigs.k8s.io/yaml
    decodes every number into a ``float64`` (``encoding/json``), which ``%v`` prints in ``%g``'s
    shortest form: 1000000 is ``1e+06``."""
    from hooklint.sources.appmap.applicationsets import _go_string

    assert [_go_string(v) for v in (8080, 123456, 1000000, 1234567, 0.5, 1.5e-05, 0.0001, -3, 1e3, True, None)] == [
        "8080", "123456", "1e+06", "1.234567e+06", "0.5", "1.5e-05", "0.0001", "-3", "1000", "true", "<nil>"]
