"""Configuration: found by walking up, validated with one clear line naming the key."""

import pytest

from hooklint.config import ConfigError, find_config, load_config, parse_config


def test_defaults():
    cfg = parse_config({}, "x")
    assert (cfg.allowed_registries, cfg.require_digest, cfg.argocd_version, cfg.max_waves) == ([], False, (3, 3, 0), 10)


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
        ({"allowed-registry": []}, "x: unknown key 'allowed-registry' (known: allowed-registries, api-versions, argocd-version, check-all-workloads, disable, kube-version, max-file-size, max-waves, repo-urls, require-digest)"),
        ({"allowed-registries": "ghcr.io"}, "x: 'allowed-registries' must be a list of non-empty strings"),
        ({"allowed-registries": ["https://ghcr.io"]}, "x: 'allowed-registries' entry 'https://ghcr.io' must be a host or host/path (no scheme, no wildcard)"),
        ({"require-digest": "yes"}, "x: 'require-digest' must be true or false, not 'yes'"),
        ({"argocd-version": "latest"}, "x: argocd-version must look like \"3.3\" or \"2.14.1\", not 'latest'"),
        ({"max-waves": 0}, "x: 'max-waves' must be a positive whole number, not 0"),
        ({"kube-version": 1.3}, "x: kube-version must be quoted (\"1.3\" is read as a number; write e.g. \"1.30\")"),
        ({"kube-version": "latest"}, "x: kube-version must look like \"1.30\" or \"v1.30.2\", not 'latest'"),
        ({"api-versions": "batch/v1"}, "x: 'api-versions' must be a list of non-empty strings"),
        ({"repo-urls": [""]}, "x: 'repo-urls' must be a list of non-empty strings"),
        (["a"], "x: the configuration must be a mapping of keys to values"),
    ],
)  # fmt: skip
def test_errors_name_the_key(data, message):
    with pytest.raises(ConfigError) as info:
        parse_config(data, "x")
    assert str(info.value) == message


def test_found_by_walking_up(tmp_path, monkeypatch):
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
