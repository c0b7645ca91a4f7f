"""hooklint against the peer conformance suites (Kyverno, Polaris, Gatekeeper library).

The suites live outside the repository (``$HOOKLINT_PEER_SUITES``, default
``../shared/peer-suites`` beside the clone; see its README.md). Each ``<peer>/<policy>/expected.yaml`` lists, per
object (YAML document) of a fixture file, whether the peer rejects it (``fail``), accepts it
(``pass``) or does not judge it (``skip``). For every folder that overlaps a hooklint rule, this
module lints the *whole* fixture file (so context objects such as ServiceAccounts, Roles and
bindings are seen) with ``check-all-workloads: true`` and the peer's parameters mapped to hooklint
options, and asserts for each judged object that the mapped rule reports on it exactly when the
peer does.

How an object is matched with findings:

- A workload (Pod, Deployment, CronJob, ...): findings of the mapped rule whose document index,
  kind and name are the object's.
- An object without a pod spec that hooklint judges through the workloads using it
  (ServiceAccount for HL104; RoleBinding, ClusterRoleBinding, Role, ClusterRole for HL106): the
  fixture text is kept unchanged and *probe* documents are appended: a Pod running as a
  ServiceAccount the object grants to (for a binding, a copy of it whose only subject is the
  probe's ServiceAccount; for a role, a new binding of the role to it; for a ServiceAccount, a Pod
  that names it and leaves ``automountServiceAccountToken`` unset). The object fails in hooklint
  when the mapped rule reports on the probe Pod. hooklint reports HL104 and HL106 on the pods, not
  on the RBAC objects or ServiceAccounts, so this is the only way to ask it about them.
- A Gatekeeper ``AdmissionReview`` is replaced by its ``request.object`` before linting.

Known, intended disagreements are listed in ``peer_overrides.yaml`` keyed by
``(peer, policy, file, doc)``; an overridden object must really disagree, so a stale override
fails. Folders that no hooklint rule covers are listed once, in :data:`NO_RULE`. Any other
disagreement is a hooklint bug and fails here.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from hooklint.config import parse_config
from hooklint.pipeline import lint_text
from hooklint.findings import Finding
from hooklint.loader import parse_text
from hooklint.model import manifests_from_document

PEER_ROOT = Path(os.environ.get("HOOKLINT_PEER_SUITES", Path(__file__).resolve().parents[2] / "shared" / "peer-suites"))
OVERRIDES_FILE = Path(__file__).with_name("peer_overrides.yaml")
PEERS = ("kyverno", "polaris", "gatekeeper")

pytestmark = pytest.mark.skipif(
    not PEER_ROOT.is_dir(), reason=f"peer suites not found at {PEER_ROOT} (set HOOKLINT_PEER_SUITES)"
)


# --- peer parameters -> hooklint configuration ---------------------------------------------------


def _is_host(component: str) -> bool:
    """Docker's rule: a first path component is a registry host if it has '.' or ':' or is localhost."""
    return "." in component or ":" in component or component == "localhost"


def registry_entry(peer_entry: str) -> str:
    """A peer allowlist entry as a hooklint ``allowed-registries`` entry.

    ``eu.foo.io/`` and ``myregistry.azurecr.io/*`` are hosts; ``openpolicyagent/`` and
    ``mydockerhub/*`` are Docker Hub namespaces (``docker.io/openpolicyagent``); an exact image
    (``ubuntu:20.14``, ``<host>/postgres``) becomes its repository (``docker.io/library/ubuntu``),
    because hooklint allows repositories, not tags."""
    raw = peer_entry.rstrip("*")
    prefix = raw.endswith("/")
    text = raw.rstrip("/").split("@", 1)[0]
    parts = text.split("/")
    if not prefix and ":" in parts[-1] and (len(parts) > 1 or not _is_host(parts[-1].split(":")[0])):
        parts[-1] = parts[-1].split(":", 1)[0]
    if len(parts) == 1 and prefix and _is_host(parts[0]):
        return parts[0]
    if len(parts) > 1 and _is_host(parts[0]):
        return "/".join(parts)
    if len(parts) == 1 and not prefix:
        return f"docker.io/library/{parts[0]}"
    return "docker.io/" + "/".join(parts)


def _registries(key: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def build(params: dict[str, Any]) -> dict[str, Any]:
        return {"allowed-registries": [registry_entry(e) for e in params[key]]}

    return build


def _pinning(params: dict[str, Any]) -> dict[str, Any]:
    return {"require-digest": bool(params.get("require_digest", False))}


def _none(params: dict[str, Any]) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Mapping:
    """A peer folder's hooklint rule, how its params become hooklint options, and, for a rule that
    checks several settings (HL105), the setting the peer checks, as a pattern on the finding's
    field path: a finding about another setting of the same object is not the peer's verdict."""

    rule: str
    config: Callable[[dict[str, Any]], dict[str, Any]]
    aspect: str = ""


_CAPS, _HOST_NS, _HOST_PATH = r"\.capabilities\.add\[\d+\]$", r"(^|\.)spec\.host(Network|PID|IPC)$", r"\.volumes\[\d+\]\.hostPath$"
_ESCALATION, _PRIVILEGED = r"\.securityContext\.allowPrivilegeEscalation$", r"\.securityContext\.privileged$"


MAPPING: dict[tuple[str, str], Mapping] = {
    # HL101: registry allowlist
    ("kyverno", "restrict-image-registries"): Mapping("HL101", _registries("allowed_registries")),
    ("gatekeeper", "allowedrepos"): Mapping("HL101", _registries("allowed_prefixes")),
    ("gatekeeper", "allowedreposv2"): Mapping("HL101", _registries("allowed_images")),
    # HL102: mutable tag, or no digest with require-digest
    ("kyverno", "disallow-latest-tag"): Mapping("HL102", _pinning),
    ("gatekeeper", "disallowedtags"): Mapping("HL102", _pinning),
    ("polaris", "tagNotSpecified"): Mapping("HL102", _pinning),
    ("kyverno", "require-image-checksum"): Mapping("HL102", _pinning),
    ("gatekeeper", "imagedigests"): Mapping("HL102", _pinning),
    # HL104: automounted ServiceAccount token
    ("kyverno", "restrict-automount-sa-token"): Mapping("HL104", _none),
    ("kyverno", "restrict-sa-automount-sa-token"): Mapping("HL104", _none),
    ("polaris", "automountServiceAccountToken"): Mapping("HL104", _none),
    ("gatekeeper", "automount-serviceaccount-token"): Mapping("HL104", _none),
    # HL105: privileged pod settings
    ("kyverno", "disallow-capabilities"): Mapping("HL105", _none, _CAPS),
    ("kyverno", "disallow-host-namespaces"): Mapping("HL105", _none, _HOST_NS),
    ("kyverno", "disallow-host-path"): Mapping("HL105", _none, _HOST_PATH),
    ("kyverno", "disallow-privilege-escalation"): Mapping("HL105", _none, _ESCALATION),
    ("kyverno", "disallow-privileged-containers"): Mapping("HL105", _none, _PRIVILEGED),
    ("polaris", "dangerousCapabilities"): Mapping("HL105", _none, _CAPS),
    ("polaris", "hostIPCSet"): Mapping("HL105", _none, r"(^|\.)spec\.hostIPC$"),
    ("polaris", "hostNetworkSet"): Mapping("HL105", _none, r"(^|\.)spec\.hostNetwork$"),
    ("polaris", "hostPIDSet"): Mapping("HL105", _none, r"(^|\.)spec\.hostPID$"),
    ("polaris", "hostPathSet"): Mapping("HL105", _none, _HOST_PATH),
    ("polaris", "privilegeEscalationAllowed"): Mapping("HL105", _none, _ESCALATION),
    ("polaris", "runAsPrivileged"): Mapping("HL105", _none, _PRIVILEGED),
    # HL106: over-privileged RBAC (judged through a probe Pod)
    ("kyverno", "restrict-binding-clusteradmin"): Mapping("HL106", _none),
    ("kyverno", "restrict-wildcard-resources"): Mapping("HL106", _none),
    ("kyverno", "restrict-wildcard-verbs"): Mapping("HL106", _none),
    ("polaris", "clusterrolebindingClusterAdmin"): Mapping("HL106", _none),
    ("polaris", "rolebindingClusterAdminClusterRole"): Mapping("HL106", _none),
    ("polaris", "rolebindingClusterAdminRole"): Mapping("HL106", _none),
}  # fmt: skip

#: Folders no hooklint rule covers, with the reason. The one place such folders are skipped.
NO_RULE: dict[tuple[str, str], str] = {
    ("kyverno", "require-run-as-nonroot"): "runAsNonRoot: hooklint has no run-as-root rule",
    ("polaris", "runAsRootAllowed"): "runAsNonRoot/runAsUser: hooklint has no run-as-root rule",
    ("polaris", "insecureCapabilities"): (
        "requires capabilities.drop [ALL]: hooklint has no drop rule (HL105 only reports added "
        "capabilities beyond the baseline set)"
    ),
    ("kyverno", "allowed-image-repos"): (
        "an image-name allowlist (last path segment), not a registry allowlist: hooklint has no "
        "equivalent option, so the folder is informational (README, Registry allowlist)"
    ),
}

#: Object kinds hooklint judges through the pods that use them (see the module docstring).
PROBED_KINDS = frozenset({"ServiceAccount", "RoleBinding", "ClusterRoleBinding", "Role", "ClusterRole"})
PROBE = "hooklint-peer-probe"
PROBE_NAMESPACE = "hooklint-peer-probe"


# --- expectations and overrides ------------------------------------------------------------------


def _folders() -> list[tuple[str, str]]:
    if not PEER_ROOT.is_dir():
        return []
    return sorted(
        (peer, folder.name)
        for peer in PEERS
        if (PEER_ROOT / peer).is_dir()
        for folder in (PEER_ROOT / peer).iterdir()
        if (folder / "expected.yaml").is_file()
    )


@functools.cache
def _expected(peer: str, policy: str) -> list[dict[str, Any]]:
    return yaml.safe_load((PEER_ROOT / peer / policy / "expected.yaml").read_text(encoding="utf-8")) or []


def _load_overrides() -> dict[tuple[str, str, str, int], dict[str, Any]]:
    entries = yaml.safe_load(OVERRIDES_FILE.read_text(encoding="utf-8")) or []
    out: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    for entry in entries:
        key = (entry["peer"], entry["policy"], entry["file"], entry["doc"])
        if key in out:
            raise ValueError(f"{OVERRIDES_FILE.name}: duplicate override {key}")
        out[key] = entry
    return out


OVERRIDES = _load_overrides()


def _case_id(peer: str, policy: str, entry: dict[str, Any]) -> str:
    return f"{peer}/{policy}/{entry['file']}#{entry['doc']}-{entry['kind']}-{entry['name']}"


def _cases() -> list[Any]:
    params = []
    for peer, policy in _folders():
        if (peer, policy) in NO_RULE:
            params.append(
                pytest.param(peer, policy, None, id=f"{peer}/{policy}",
                             marks=pytest.mark.skip(reason=f"no hooklint rule: {NO_RULE[(peer, policy)]}"))
            )  # fmt: skip
            continue
        for entry in _expected(peer, policy):
            if entry["expect"] == "skip":
                continue  # not judged by the peer: context objects, preconditions, UPDATE requests
            params.append(pytest.param(peer, policy, entry, id=_case_id(peer, policy, entry)))
    return params


# --- linting a fixture ---------------------------------------------------------------------------


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.lru_cache(maxsize=64)
def _documents(text: str) -> tuple[Any, ...]:
    """The documents of a fixture text, read once (callers copy, never change them)."""
    return tuple(yaml.load_all(text, Loader=_Loader))


@functools.lru_cache(maxsize=64)
def _hooklint_objects(text: str) -> frozenset[tuple[int, str | None, str | None]]:
    """(document index, kind, name) of every object, as hooklint's loader indexes documents."""
    loaded = parse_text("fixture.yaml", text)
    return frozenset(
        (m.doc_index, m.kind, m.name)
        for doc in loaded.documents
        for m in manifests_from_document("fixture.yaml", doc.index, doc.value, doc.source)
    )


@functools.cache
def _fixture_text(peer: str, policy: str, file: str) -> str:
    """The fixture as hooklint lints it: unchanged, unless it holds an AdmissionReview, which is
    replaced by its ``request.object`` (document indexes are kept)."""
    text = (PEER_ROOT / peer / policy / file).read_text(encoding="utf-8")
    docs = _documents(text)
    if not any(isinstance(d, dict) and d.get("kind") == "AdmissionReview" for d in docs):
        return text
    unwrapped = [
        d["request"]["object"] if isinstance(d, dict) and d.get("kind") == "AdmissionReview" else d for d in docs
    ]
    return yaml.safe_dump_all(unwrapped, sort_keys=False)


def _probe_docs(entry: dict[str, Any], obj: dict[str, Any]) -> list[dict[str, Any]]:
    """Documents that make hooklint judge ``obj`` (a ServiceAccount, a binding or a role) through
    a probe Pod: the Pod runs as a ServiceAccount that only ``obj`` (or a copy of it) concerns.

    Namespaces follow the object: the probe sits in the namespace of a namespaced object (none
    when the fixture gives none: both then land in the destination namespace), and in a namespace
    of its own for a cluster-scoped one."""
    kind = entry["kind"]
    metadata = obj.get("metadata") or {}
    cluster_scoped = kind in ("ClusterRole", "ClusterRoleBinding")
    pod_ns = PROBE_NAMESPACE if cluster_scoped else metadata.get("namespace")
    subject: dict[str, Any] = {"kind": "ServiceAccount", "name": PROBE}
    if pod_ns:
        subject["namespace"] = pod_ns
    extra: list[dict[str, Any]] = []
    sa_name = PROBE
    if kind == "ServiceAccount":
        sa_name = metadata["name"]
    elif kind in ("RoleBinding", "ClusterRoleBinding"):
        extra = [{**obj, "subjects": [subject]}]
    else:  # Role, ClusterRole: bind it the way it would be bound
        binding_kind = "RoleBinding" if kind == "Role" else "ClusterRoleBinding"
        binding_md: dict[str, Any] = {"name": f"{PROBE}-binding"}
        if binding_kind == "RoleBinding" and pod_ns:
            binding_md["namespace"] = pod_ns
        extra = [{
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": binding_kind,
            "metadata": binding_md,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": metadata["name"]},
            "subjects": [subject],
        }]  # fmt: skip
    pod_md: dict[str, Any] = {"name": PROBE}
    if pod_ns:
        pod_md["namespace"] = pod_ns
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": pod_md,
        "spec": {
            "serviceAccountName": sa_name,
            "containers": [{"name": "probe", "image": "registry.example.com/probe:1.0.0"}],
        },
    }
    return [*extra, pod]


@dataclass
class Verdict:
    fails: bool
    findings: list[Finding]
    text: str
    config: dict[str, Any]
    subject: str  # what the findings were matched on


def _object_at(text: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The fixture object the entry is about, checked against hooklint's document indexes."""
    if (entry["doc"], entry["kind"], entry["name"]) not in _hooklint_objects(text):
        raise AssertionError(
            f"{entry['file']}: hooklint sees no {entry['kind']}/{entry['name']} at document {entry['doc']}"
        )
    obj = _documents(text)[entry["doc"]]
    assert (obj.get("metadata") or {}).get("name") == entry["name"], "document indexes differ"
    return obj


@functools.lru_cache(maxsize=64)
def _lint(text: str, config_json: str, path: str) -> tuple[Finding, ...]:
    """One lint run of a whole fixture (cached: a file's objects share it, probes aside)."""
    return tuple(lint_text(text, parse_config(json.loads(config_json), "peer-suite"), path=path))


def hooklint_verdict(peer: str, policy: str, entry: dict[str, Any]) -> Verdict:
    mapping = MAPPING[(peer, policy)]
    config = {"check-all-workloads": True, **mapping.config(entry.get("params") or {})}
    text = _fixture_text(peer, policy, entry["file"])
    obj = _object_at(text, entry)
    if entry["kind"] in PROBED_KINDS:
        text = text.rstrip("\n") + "\n---\n" + yaml.safe_dump_all(_probe_docs(entry, obj), sort_keys=False)

        def on_subject(f: Finding) -> bool:
            return f.obj is not None and f.obj.kind == "Pod" and f.obj.name == PROBE

        subject = f"probe Pod/{PROBE}"
    else:

        def on_subject(f: Finding) -> bool:
            return (
                f.doc_index == entry["doc"]
                and f.obj is not None
                and f.obj.kind == entry["kind"]
                and f.obj.name == entry["name"]
            )

        subject = f"{entry['kind']}/{entry['name']} (document {entry['doc']})"
    findings = _lint(text, json.dumps(config, sort_keys=True), entry["file"])
    hits = [
        f
        for f in findings
        if f.rule_id == mapping.rule and on_subject(f) and re.search(mapping.aspect, f.field_path)
    ]
    return Verdict(bool(hits), hits, text, config, subject)


def _describe(peer: str, policy: str, entry: dict[str, Any], verdict: Verdict) -> str:
    obj = _documents(_fixture_text(peer, policy, entry["file"]))[entry["doc"]]
    lines = [
        f"{peer}/{policy}/{entry['file']} document {entry['doc']} ({entry['kind']}/{entry['name']})",
        f"rule {MAPPING[(peer, policy)].rule}, config {verdict.config}, matched on {verdict.subject}"
        + (f", field path ~ {MAPPING[(peer, policy)].aspect}" if MAPPING[(peer, policy)].aspect else ""),
        f"peer expects: {entry['expect']} (source {entry.get('source')}; {entry.get('note') or 'no note'})",
        f"hooklint: {'fail' if verdict.fails else 'pass'}",
        *(f"  {f.span.line}: {f.message}" for f in verdict.findings),
        "object:",
        *("  " + line for line in yaml.safe_dump(obj, sort_keys=False).splitlines()),
    ]
    return "\n".join(lines)


# --- the tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("peer,policy,entry", _cases())
def test_agrees_with_peer(peer: str, policy: str, entry: dict[str, Any]) -> None:
    verdict = hooklint_verdict(peer, policy, entry)
    peer_fails = entry["expect"] == "fail"
    override = OVERRIDES.get((peer, policy, entry["file"], entry["doc"]))
    if override is not None:
        assert verdict.fails != peer_fails, (
            f"stale override ({override['reason']}): hooklint now agrees with the peer; remove the "
            f"entry from {OVERRIDES_FILE.name}\n" + _describe(peer, policy, entry, verdict)
        )
        return
    assert verdict.fails == peer_fails, "hooklint disagrees with the peer\n" + _describe(peer, policy, entry, verdict)


def test_every_folder_is_mapped_or_listed_as_uncovered() -> None:
    folders = set(_folders())
    assert folders, f"no expected.yaml under {PEER_ROOT}"
    assert not (set(MAPPING) & set(NO_RULE))
    assert folders - set(MAPPING) - set(NO_RULE) == set(), "new peer folders: map them or list them in NO_RULE"
    assert (set(MAPPING) | set(NO_RULE)) - folders == set(), "mapped folders that are gone"


def test_overrides_name_judged_objects() -> None:
    """Every override has a reason and names an object the peer judges (fail or pass) in a mapped
    folder: an override for a skipped or unknown object would never be checked."""
    judged = {
        (peer, policy, e["file"], e["doc"]): e
        for peer, policy in MAPPING
        for e in _expected(peer, policy)
        if e["expect"] != "skip"
    }
    for key, override in OVERRIDES.items():
        assert isinstance(override.get("reason"), str) and override["reason"].strip(), f"override {key} has no reason"
        assert key in judged, f"override {key} names no judged object of a mapped folder"
        assert override.get("expect") == judged[key]["expect"], (
            f"override {key} says the peer expects {override.get('expect')!r}; expected.yaml says "
            f"{judged[key]['expect']!r}"
        )


@pytest.mark.parametrize(
    "peer_entry,expected",
    [
        ("eu.foo.io/", "eu.foo.io"),
        ("openpolicyagent/", "docker.io/openpolicyagent"),
        ("openpolicyagent/*", "docker.io/openpolicyagent"),
        ("myregistry.azurecr.io/*", "myregistry.azurecr.io"),
        ("ubuntu:20.14", "docker.io/library/ubuntu"),
        ("123456789123.dkr.ecr.eu-west-1.amazonaws.com/postgres", "123456789123.dkr.ecr.eu-west-1.amazonaws.com/postgres"),
        ("localhost:5000/", "localhost:5000"),
    ],
)  # fmt: skip
def test_registry_entry_mapping(peer_entry: str, expected: str) -> None:
    assert registry_entry(peer_entry) == expected
