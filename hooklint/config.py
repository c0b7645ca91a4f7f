"""``.hooklint.yaml`` -> :class:`Config`.

The file is found by walking up from the current directory, or named with ``--config``. Keys:

============================  ==========================================================  =======
key                           meaning                                                     default
============================  ==========================================================  =======
``allowed-registries``        registry hosts or host/path prefixes hook images may use    ``[]``
``require-digest``            HL102 wants an ``@sha256`` digest on every image            false
``disable``                   rule ids or slugs not to run                                ``[]``
``check-all-workloads``       security/lifecycle rules look at every workload, not hooks  false
``argocd-version``            the Argo CD version whose behaviour rules follow            ``3.3``
``max-file-size``             bytes; larger files are not linted                          10 MB
``max-waves``                 HL304's limit of (phase, wave) steps                        10
``repo-urls``                 more URLs of this repository (Applications pointing here)   ``[]``
``kube-version``              Helm's ``--kube-version`` (``.Capabilities.KubeVersion``)   Helm's
``api-versions``              Helm's ``--api-versions`` (``.Capabilities.APIVersions``)   ``[]``
============================  ==========================================================  =======

The schema is small and fixed, so it is checked here by hand (importing jsonschema would cost a
tenth of a second on every pre-commit run); every error names the key.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from hooklint import argocd
from hooklint.images import RegistryEntry

CONFIG_NAMES = (".hooklint.yaml", ".hooklint.yml")
#: Files larger than this (bytes) are not linted (``max-file-size``).
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024


class ConfigError(Exception):
    """A configuration problem; the message is one line naming the file and the key."""


@dataclass(slots=True)
class Config:
    allowed_registries: list[str] = field(default_factory=list)
    require_digest: bool = False
    disable: list[str] = field(default_factory=list)
    check_all_workloads: bool = False
    argocd_version: argocd.Version = argocd.DEFAULT_VERSION
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    max_waves: int = 10
    repo_urls: list[str] = field(default_factory=list)
    kube_version: str | None = None
    api_versions: list[str] = field(default_factory=list)
    path: str | None = None
    registry_entries: list[RegistryEntry] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.registry_entries = [RegistryEntry.parse(e) for e in self.allowed_registries]


def _version(value: Any, where: str) -> argocd.Version:
    if isinstance(value, float):
        # YAML reads an unquoted 2.10 as the number 2.1: refuse to guess which was meant
        raise ConfigError(f"{where}: argocd-version must be quoted (\"{value}\" is read as a number; write e.g. \"2.10\")")
    text = str(value)
    match = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.(\d+))?", text.strip())
    if not match:
        raise ConfigError(f"{where}: argocd-version must look like \"3.3\" or \"2.14.1\", not {text!r}")
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def _kube_version(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, float):
        raise ConfigError(f"{where}: kube-version must be quoted (\"{value}\" is read as a number; write e.g. \"1.30\")")
    text = str(value).strip()
    if not re.fullmatch(r"v?\d+\.\d+(\.\d+)?", text):
        raise ConfigError(f"{where}: kube-version must look like \"1.30\" or \"v1.30.2\", not {text!r}")
    return text


def parse_config(data: Any, where: str) -> Config:
    """Validate a loaded configuration mapping. Raises :class:`ConfigError`."""
    if data is None:
        return Config(path=where)
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: the configuration must be a mapping of keys to values")
    known = {
        "allowed-registries", "require-digest", "disable", "check-all-workloads",
        "argocd-version", "max-file-size", "max-waves", "repo-urls", "kube-version", "api-versions",
    }  # fmt: skip
    for key in data:
        if key not in known:
            raise ConfigError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(known))})")

    def string_list(key: str) -> list[str]:
        value = data.get(key, [])
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise ConfigError(f"{where}: '{key}' must be a list of non-empty strings")
        return [v.strip() for v in value]

    def boolean(key: str) -> bool:
        value = data.get(key, False)
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: '{key}' must be true or false, not {value!r}")
        return value

    def positive_int(key: str, default: int) -> int:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ConfigError(f"{where}: '{key}' must be a positive whole number, not {value!r}")
        return value

    registries = string_list("allowed-registries")
    for entry in registries:
        if "://" in entry or "*" in entry or " " in entry:
            raise ConfigError(
                f"{where}: 'allowed-registries' entry {entry!r} must be a host or host/path "
                "(no scheme, no wildcard)"
            )
    return Config(
        allowed_registries=registries,
        require_digest=boolean("require-digest"),
        disable=string_list("disable"),
        check_all_workloads=boolean("check-all-workloads"),
        argocd_version=_version(data["argocd-version"], where) if "argocd-version" in data else argocd.DEFAULT_VERSION,
        max_file_size=positive_int("max-file-size", DEFAULT_MAX_FILE_SIZE),
        max_waves=positive_int("max-waves", 10),
        repo_urls=string_list("repo-urls"),
        kube_version=_kube_version(data.get("kube-version"), where),
        api_versions=string_list("api-versions"),
        path=where,
    )


def find_config(start: str | None = None) -> str | None:
    """The nearest ``.hooklint.yaml`` from ``start`` (the current directory) up to the root."""
    folder = os.path.abspath(start or os.getcwd())
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load_config(path: str | None = None) -> Config:
    """Load ``path``, or the file :func:`find_config` finds, or the defaults. Raises
    :class:`ConfigError` for a missing, unreadable or invalid file."""
    import yaml

    where = path or find_config()
    if where is None:
        return Config()
    try:
        with open(where, "rb") as handle:
            data = yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read configuration: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{where}{at}: invalid YAML in configuration: {problem}") from None
    return parse_config(data, where)
