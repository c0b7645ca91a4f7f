"""The check registry. A check is a small generator that yields :class:`Hit` values; the engine
stamps the rule id, slug, severity, path and object on each (a check never does).

Three scopes, one per stage the check looks at:

- ``file`` checks get one :class:`~hooklint.loader.LoadedFile` (its documents and load issues)
  and the :class:`Context` (:mod:`hooklint.checks.loading`, part of :mod:`hooklint.checks.shape`);
- ``object`` checks get one :class:`~hooklint.model.Manifest` and the :class:`Context`; a check
  registered with ``kinds`` runs only on those kinds, one registered with ``annotated`` only on
  objects whose metadata has annotations (the engine picks the checks once per kind);
- ``application`` checks get every manifest of one application (cross-object rules), and the
  application's sync plan as ``ctx.plan``.

Every rule but HL901 (reported by the engine's suppression step) has its checks here: ``grep -rn
'"HL001"' hooklint/checks`` finds where a rule is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from hooklint.findings import Span
from hooklint.model import CLUSTER_SCOPED_KINDS, binding_grantees, repeated_objects

if TYPE_CHECKING:  # pragma: no cover
    from hooklint.config import Config
    from hooklint.loader import LoadedFile
    from hooklint.model import Manifest
    from hooklint.plan import SyncPlan
    from hooklint.sources.repository.bindings import WrittenSubject
    from hooklint.sources.repository.volumes import HostPathVolume, VolumeClaim


@dataclass(slots=True)
class Hit:
    """What a check found: a message, where (``span``; the object's anchor when None), the dotted
    ``field_path`` of the offending field, the manifest it is about (application checks) or the
    index of the document it is about (file checks), and its ``severity`` when lower than the
    rule's."""

    message: str
    span: Span | None = None
    field_path: str = ""
    manifest: "Manifest | None" = None
    doc_index: int | None = None
    #: File checks only: the file ``span`` is in, when not the checked file (HL007 in a template).
    path: str | None = None
    #: The severity of this hit when the rule's own does not fit it (HL007 of a chart no Application
    #: deploys, rendered with its defaults: a warning; HL024 when the wave moves nothing the object
    #: uses, HL308 when the dependency is not proven: a note); a configured ``severity`` still wins.
    severity: str | None = None
    #: Application checks: the other objects the finding is about (HL301: the object a pod uses,
    #: applied too late). A run that names only the file of one of them (pre-commit, given the
    #: changed files) reports the finding too, wherever it lands.
    involves: tuple["Manifest", ...] = ()


@dataclass(slots=True)
class Context:
    """What checks may consult besides the object: the configuration, the application's
    manifests (indexed by ``(kind, namespace or "", name)``) and its sync ``plan``, built once per
    application by the pipeline."""

    config: "Config"
    plan: "SyncPlan"
    manifests: list["Manifest"] = field(default_factory=list)
    index: dict[tuple[str, str, str], "Manifest"] = field(default_factory=dict)
    #: The objects of each kind, in application order (``by_kind["RoleBinding"]``): rules that
    #: look for every object of a kind read this, not every manifest for every object.
    by_kind: dict[str, list["Manifest"]] = field(default_factory=dict)
    #: The application was rendered partly (issue 22): entries that need the network were left
    #: out, so its objects are not all here (a rule about the whole application holds back).
    partial: bool = False
    #: The application is a kustomize Component no Application renders, rendered on its own: its
    #: objects are synced only with those of the kustomizations that use it (a rule about what a
    #: sync of the whole application does holds back; :attr:`~hooklint.sources.load.LoadedApplication.component_alone`).
    component_alone: bool = False
    #: The hostPath PersistentVolumes of the repository's files and the claims there that name one
    #: (:mod:`hooklint.sources.repository.volumes`), besides the application's own: HL105.
    host_path_volumes: frozenset["HostPathVolume"] = frozenset()
    volume_claims: frozenset["VolumeClaim"] = frozenset()
    #: The subjects of the RoleBindings and ClusterRoleBindings written in the repository's files
    #: (:mod:`hooklint.sources.repository.bindings`), another application's included: HL104.
    written_subjects: frozenset["WrittenSubject"] = frozenset()
    #: The copies of an object Argo CD drops (:func:`hooklint.model.repeated_objects`) and the
    #: manifests without them, in order, found once per application: a dozen rules ask, and each
    #: asking keyed every object again (a sixth of the time of an application's checks).
    repeated: dict[int, tuple["Manifest", "Manifest"]] = field(default_factory=dict)
    kept: list["Manifest"] = field(default_factory=list)
    #: :meth:`bindings_reaching`'s indexes (of :attr:`kept`'s bindings, of every copy's), built on first use.
    _by_subject: dict[bool, tuple[dict[str, list[int]], list[int], list["Manifest"]]] = field(default_factory=dict)

    @classmethod
    def build(cls, config: "Config", manifests: list["Manifest"], plan: "SyncPlan", partial: bool = False,
              host_path_volumes: frozenset["HostPathVolume"] = frozenset(),
              volume_claims: frozenset["VolumeClaim"] = frozenset(), component_alone: bool = False,
              written_subjects: frozenset["WrittenSubject"] = frozenset()) -> "Context":  # fmt: skip
        index: dict[tuple[str, str, str], Manifest] = {}
        by_kind: dict[str, list[Manifest]] = {}
        for m in manifests:
            by_kind.setdefault(m.kind or "", []).append(m)
            if m.kind and m.name:
                namespace = "" if m.kind in CLUSTER_SCOPED_KINDS else m.namespace or ""
                index[(m.kind, namespace, m.name)] = m  # the last copy, as Argo CD keeps it (HL019)
        repeated = repeated_objects(manifests)
        kept = [m for m in manifests if id(m) not in repeated]
        return cls(config, plan, manifests, index, by_kind, partial, component_alone, host_path_volumes, volume_claims,
                   written_subjects, repeated, kept)  # fmt: skip

    def find(self, kind: str, namespace: str | None, name: str) -> "Manifest | None":
        """The object of ``kind``/``name`` in ``namespace`` (None: the application's destination
        namespace, shared by every object without ``metadata.namespace``). Cluster-scoped kinds
        are found whatever namespace they, or the caller, name."""
        return self.index.get((kind, "" if kind in CLUSTER_SCOPED_KINDS else namespace or "", name))

    def bindings_reaching(self, name: str, kept: bool = True) -> list["Manifest"]:
        """The RoleBindings and ClusterRoleBindings Argo CD keeps (:attr:`kept`, in order; with
        ``kept`` False, every copy, in :attr:`by_kind`'s order: RoleBindings, then ClusterRoleBindings)
        with a subject that may grant a ServiceAccount named ``name`` (:func:`hooklint.model.binding_grantees`:
        one naming it, or a group of ServiceAccounts); whether it does, in its namespace, is
        :func:`hooklint.model.binding_grantee`'s to say. A hook of every pod against every binding
        costs their product (attacker trial 15: 2,000 of each, a minute and a half); this index
        asks only the bindings that name the account."""
        if kept not in self._by_subject:
            named: dict[str, list[int]] = {}
            everyone: list[int] = []
            bindings = ([b for b in self.kept if b.kind in ("RoleBinding", "ClusterRoleBinding")] if kept else
                        self.by_kind.get("RoleBinding", []) + self.by_kind.get("ClusterRoleBinding", []))  # fmt: skip
            for i, b in enumerate(bindings):
                grantees = binding_grantees(b)
                if any(g.name is None for g in grantees):
                    everyone.append(i)
                for who in dict.fromkeys(g.name for g in grantees if g.name is not None):
                    named.setdefault(who, []).append(i)
            self._by_subject[kept] = (named, everyone, bindings)
        named, everyone, bindings = self._by_subject[kept]
        return [bindings[i] for i in sorted({*named.get(name, ()), *everyone})]

    def in_scope(self, m: "Manifest") -> bool:
        """Security and lifecycle rules look at objects Argo CD runs as hooks, or at every workload
        when ``workload-scope: all`` is set."""
        return m.hook.runs_as_hook or self.config.check_all_workloads


FileCheck = Callable[["LoadedFile", Context], Iterator[Hit]]
ObjectCheck = Callable[["Manifest", Context], Iterator[Hit]]
AppCheck = Callable[[list["Manifest"], Context], Iterator[Hit]]
SCOPES = ("file", "object", "application")


@dataclass(frozen=True, slots=True)
class Check:
    """One registered check: its rule, function and scope; for object checks, the ``kinds`` it
    can report on (None: every kind) and whether it only looks at ``annotated`` objects."""

    rule_id: str
    fn: Callable
    scope: str
    kinds: frozenset[str] | None = None
    annotated: bool = False

    def applies_to(self, kind: str | None, has_annotations: bool) -> bool:
        """Whether this object check can report on an object of ``kind``."""
        return (self.kinds is None or kind in self.kinds) and (has_annotations or not self.annotated)


#: rule id -> its checks (a rule whose story has two parts, such as HL003 for documents and for
#: objects, has two checks side by side in one module).
REGISTRY: dict[str, list[Check]] = {}
#: Rules the suppression stage reports itself (:mod:`hooklint.suppression`), not a check.
ENGINE_RULES = frozenset({"HL901", "HL902"})
#: The check modules, one per band.
CHECK_MODULES = ("loading", "shape", "annotations", "hooks", "lifecycle", "security", "rbac", "fences", "ordering")


def check(rule_id: str, scope: str = "object", kinds: Iterable[str] | None = None, annotated: bool = False) -> Callable:
    """Register ``fn`` as a check of ``rule_id`` in ``scope`` (see the module docstring)."""
    if scope not in SCOPES:
        raise ValueError(f"unknown check scope {scope!r}")

    def register(fn: Callable) -> Callable:
        REGISTRY.setdefault(rule_id, []).append(
            Check(rule_id, fn, scope, frozenset(kinds) if kinds is not None else None, annotated)
        )
        return fn

    return register


def load_all() -> dict[str, list[Check]]:
    """Import every check module (which registers its checks) and return the registry.

    ``importlib`` rather than ``from hooklint.checks import annotations``: this module's own
    ``from __future__ import annotations`` would shadow the ``annotations`` check module."""
    import importlib

    for module in CHECK_MODULES:
        importlib.import_module(f"hooklint.checks.{module}")
    return REGISTRY
