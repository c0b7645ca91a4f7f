"""The check registry. A check is a small generator that yields :class:`Hit` values; the engine
stamps the rule id, slug, severity, path and object on each (a check never does).

Two scopes:

- ``object`` checks get one :class:`~hooklint.model.Manifest` and the :class:`Context`;
- ``application`` checks get every manifest of one application (cross-object rules).

Rules HL001, HL002 and HL005 have no check: the loader reports them while parsing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterator

from hooklint.findings import Span
from hooklint.model import CLUSTER_SCOPED_KINDS

if TYPE_CHECKING:  # pragma: no cover
    from hooklint.config import Config
    from hooklint.model import Manifest


@dataclass(slots=True)
class Hit:
    """What a check found: a message, where (``span``; the object's anchor when None), the dotted
    ``field_path`` of the offending field, and the manifest it is about (application checks)."""

    message: str
    span: Span | None = None
    field_path: str = ""
    manifest: "Manifest | None" = None


@dataclass(slots=True)
class Context:
    """What checks may consult besides the object: the configuration and the application's
    manifests, indexed by ``(kind, namespace or "", name)``."""

    config: "Config"
    manifests: list["Manifest"] = field(default_factory=list)
    index: dict[tuple[str, str, str], "Manifest"] = field(default_factory=dict)

    @classmethod
    def build(cls, config: "Config", manifests: list["Manifest"]) -> "Context":
        index: dict[tuple[str, str, str], Manifest] = {}
        for m in manifests:
            if m.kind and m.name:
                namespace = "" if m.kind in CLUSTER_SCOPED_KINDS else m.namespace or ""
                index.setdefault((m.kind, namespace, m.name), m)
        return cls(config, manifests, index)

    def find(self, kind: str, namespace: str | None, name: str) -> "Manifest | None":
        """The object of ``kind``/``name`` in ``namespace`` (None: the application's destination
        namespace, shared by every object without ``metadata.namespace``). Cluster-scoped kinds
        are found whatever namespace they, or the caller, name."""
        if kind in CLUSTER_SCOPED_KINDS:
            namespace = None
        return self.index.get((kind, namespace or "", name))

    def in_scope(self, m: "Manifest") -> bool:
        """Security and lifecycle rules look at objects Argo CD runs as hooks, or at every workload
        when ``check-all-workloads`` is set."""
        return m.hook.runs_as_hook or self.config.check_all_workloads


ObjectCheck = Callable[["Manifest", Context], Iterator[Hit]]
AppCheck = Callable[[list["Manifest"], Context], Iterator[Hit]]


@dataclass(frozen=True, slots=True)
class Check:
    rule_id: str
    fn: Callable
    scope: str  # "object" | "application"


REGISTRY: dict[str, Check] = {}
#: Rules reported by the loader while parsing, not by a check.
LOADER_RULES = frozenset({"HL001", "HL002", "HL005"})
#: Rules the engine reports itself (suppression bookkeeping).
ENGINE_RULES = frozenset({"HL901"})
#: The check modules, one per band.
CHECK_MODULES = ("annotations", "fences", "hooks", "lifecycle", "ordering", "security", "shape")


def check(rule_id: str, scope: str = "object") -> Callable:
    """Register a check for ``rule_id`` (one check per rule)."""

    def register(fn: Callable) -> Callable:
        if rule_id in REGISTRY:
            raise ValueError(f"two checks for {rule_id}")
        REGISTRY[rule_id] = Check(rule_id, fn, scope)
        return fn

    return register


def load_all() -> dict[str, Check]:
    """Import every check module (which registers its checks) and return the registry.

    ``importlib`` rather than ``from hooklint.checks import annotations``: this module's own
    ``from __future__ import annotations`` would shadow the ``annotations`` check module."""
    import importlib

    for module in CHECK_MODULES:
        importlib.import_module(f"hooklint.checks.{module}")
    return REGISTRY
