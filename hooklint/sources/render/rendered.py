"""What a renderer (kustomize, Helm) hands to the rest of the pipeline: rendered documents, each
with where it came from in the user's files, and the two ways rendering fails.

The renderers (:mod:`hooklint.sources.render.kustomize`, :mod:`hooklint.sources.render.helm`) run Argo CD's
tools on temporary copies (``shared/docs/argocd-rendering.md`` §3, §4) and return a
:class:`Rendering`; :mod:`hooklint.sources` parses each document and places findings in the
user's files with the origins recorded here. A :class:`Rendering` round-trips through JSON, which
is how :mod:`hooklint.sources.render.cache` stores it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Renderer:
    """The tool that rendered a source: ``name`` as a user would install it (``kustomize``,
    ``kubectl kustomize``, ``helm``, ``helm-python-sdk``) and its ``version`` string."""

    name: str
    version: str

    def label(self) -> str:
        return f"{self.name} {self.version}"


@dataclass(frozen=True, slots=True)
class Transformation:
    """One kustomization entry that changed a rendered object (kustomize's
    ``alpha.config.kubernetes.io/transformations``): ``path`` is the file that holds the entry (a
    kustomization, as a path the user can open), ``kind`` the transformer kustomize names
    (``ImageTagTransformer``, ``PatchTransformer``, ``AnnotationsTransformer``, ...)."""

    path: str
    kind: str


@dataclass(slots=True)
class RenderedDocument:
    """One rendered object as the renderer printed it (one YAML document, origin annotations
    already removed).

    ``origin`` is the user's file the object was written in (a path the user can open, spelled
    relative to the folder the user named, like every path hooklint reports), None when the
    renderer generated it (a ConfigMap generator). ``origin_line`` is the 1-based line of the
    object's first line in ``origin`` when known (0: unknown). ``configured_in`` is the file that
    generated or configured it (the kustomization of a generator; ``Chart.yaml`` for Helm).
    ``transformations`` are the kustomization entries that changed it, in the order applied."""

    text: str
    origin: str | None = None
    origin_line: int = 0
    configured_in: str | None = None
    transformations: list[Transformation] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Omission:
    """One entry a renderer left out of a rendering it could still make (issue 22: never blind):
    a kustomization's remote resource or ``helmCharts`` entry, a chart dependency that needs a
    chart repository, a values file hooklint cannot read. The rest of the source was rendered and
    checked; the objects this entry adds (possibly hooks) were not (HL009 at ``path:line:column``,
    the file where the entry is written, as a path the user can open).

    ``message`` says what the entry is and why it was left out; ``argocd_renders`` how Argo CD
    renders it (a sentence, like :class:`RenderError`'s); ``unchecked`` which objects went
    unchecked (a clause after "so")."""

    message: str
    path: str
    line: int = 1
    column: int = 1
    argocd_renders: str = "Argo CD fetches it when it renders the application"
    unchecked: str = "the objects it adds, possibly hooks, were not checked; the rest of the application was"
    #: What hooklint did with the entry, after "hooklint" (a SOPS file is read with placeholders).
    done: str = "left it out"
    #: The finding's field (empty: none): the content of what hooklint could not check as Argo CD
    #: renders it (``sha256:...`` of a template), so ``diff`` counts an edit of it as new.
    field: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "path": self.path, "line": self.line, "column": self.column,
                "argocd_renders": self.argocd_renders, "unchecked": self.unchecked}  # fmt: skip


@dataclass(frozen=True, slots=True)
class CapabilityCheck:
    """What a Helm chart's reads of ``.Capabilities`` left unchecked (HL025).

    ``first``: the first read of a field Argo CD takes from the cluster, ``(file, line, column,
    field)``; ``opaque``: the first read hooklint cannot enumerate, ``(file, line, column, how it
    reads)`` (:func:`hooklint.sources.render.helm.capability_scan`); ``named``: the API versions the
    chart names that its second rendering added; ``added``: the objects (``Kind/name``) only that
    rendering holds, which are checked too; ``differing``: the objects both hold whose hook
    annotations or pod template differ (not checked as the second rendering has them);
    ``failed``: why the second rendering failed (its objects not checked), else None."""

    first: tuple[str, int, int, str] | None = None
    opaque: tuple[str, int, int, str] | None = None
    named: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    differing: tuple[str, ...] = ()
    failed: str | None = None

    @property
    def unchecked(self) -> bool:
        """True when something a cluster's capabilities render was not checked (a warning)."""
        return self.opaque is not None or bool(self.differing) or self.failed is not None


@dataclass(slots=True)
class Rendering:
    """The result of rendering one source: the tool that did it, the documents in output order,
    and the entries it left out (``omitted``: a partial rendering when there are any)."""

    renderer: Renderer
    documents: list[RenderedDocument]
    omitted: list[Omission] = field(default_factory=list)
    #: For a Helm chart whose templates read ``.Capabilities``: where, and what a second rendering
    #: with the API versions the chart names found (:func:`hooklint.sources.render.helm.render_helm`);
    #: not cached, found on every run.
    capabilities: "CapabilityCheck | None" = None

    @property
    def partial(self) -> bool:
        """True when entries were left out (``omitted``): the plan of the source is partial."""
        return bool(self.omitted)

    def to_json(self) -> dict[str, Any]:
        return {
            "renderer": {"name": self.renderer.name, "version": self.renderer.version},
            "documents": [
                {
                    "text": d.text,
                    "origin": d.origin,
                    "origin_line": d.origin_line,
                    "configured_in": d.configured_in,
                    "transformations": [{"path": t.path, "kind": t.kind} for t in d.transformations],
                }
                for d in self.documents
            ],
            "omitted": [o.to_json() for o in self.omitted],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Rendering":
        return cls(
            Renderer(data["renderer"]["name"], data["renderer"]["version"]),
            [
                RenderedDocument(
                    d["text"], d.get("origin"), d.get("origin_line", 0), d.get("configured_in"),
                    [Transformation(t["path"], t["kind"]) for t in d.get("transformations", [])],
                )
                for d in data["documents"]
            ],
            [Omission(**o) for o in data.get("omitted", [])],
        )  # fmt: skip


class RenderError(Exception):
    """Rendering failed (HL007 ``render-failed``): ``message`` is one line saying what the tool
    said; ``path`` is the file to report it at (the kustomization or ``Chart.yaml``), ``line`` its
    1-based line and column when known (else 1). ``argocd_renders`` is set when Argo CD can render the source
    but hooklint will not (HL009 ``source-not-rendered`` then): it says how Argo CD does (the source
    needs the network, which hooklint never uses, or a build option hooklint never passes);
    ``needs_network=True`` is the network case's sentence. ``inputs`` are the files the failed
    rendering read, when known (set by :func:`hooklint.sources.render.redact.tagging_inputs`): their
    secret values are removed from ``message`` before it is reported. ``unchecked`` says, for
    HL009, which of the application's objects went unchecked because of it (a clause after "so";
    by default "none of its objects were checked, hooks included"). ``names_only`` says that
    ``message`` is hooklint's own words around paths and a kustomization's entries, which are never
    secret values (issue 34: paths are never rewritten): no file is read to redact it, only a URL's
    credentials are hidden (:func:`hooklint.text.url_credentials`)."""

    def __init__(self, message: str, path: str, line: int = 1, column: int = 1, *, needs_network: bool = False,
                 argocd_renders: str | None = None, unchecked: str | None = None, names_only: bool = False):  # fmt: skip
        super().__init__(message)
        self.names_only = names_only
        self.unchecked = unchecked or "none of its objects were checked, hooks included"
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.needs_network = needs_network
        self.argocd_renders = argocd_renders or (
            "Argo CD fetches it when it renders the application" if needs_network else None
        )
        self.inputs: tuple[str, ...] = ()
        #: Set where a limit, a signal or the run's deadline stopped the renderer, or it could not
        #: be started: the next run may render it, so the render cache does not keep this failure.
        self.transient = False
        #: The render cache key of the rendering that failed (:func:`hooklint.sources.render.cache.cached`).
        self.cache_key: str | None = None


def transient(error: RenderError) -> RenderError:
    """``error`` marked :attr:`RenderError.transient` (a limit, a signal or the deadline stopped the
    renderer, or it could not be started): never kept by the render or result cache."""
    error.transient = True
    return error


class RendererUnavailable(Exception):
    """No renderer is installed for a source (HL008 ``renderer-unavailable``): ``message`` says
    which tool is missing and how to get it; ``path`` is the kustomization or ``Chart.yaml``."""

    def __init__(self, message: str, path: str):
        super().__init__(message)
        self.message = message
        self.path = path
