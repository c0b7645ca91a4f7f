"""Why a file of the run is not linted on its own, and why an application's rendering is not
whole, each as a kind and a detail (issue 20).

Where the decision is made (discovery, the directory source, the loader), a :class:`Skip` is
set: its :class:`SkipKind` says which of a fixed set of reasons it is, its ``detail`` says it in
full for that file (``--show-skipped``, the JSON report). Other code reads the kind, never the
words: the not-linted notice counts files by kind (:attr:`SkipKind.label`), a folder whose every
file is applied through another application's rendering is told by kind. Before, the notice
matched substrings of the detail, and a wording that drifted was counted under the wrong reason.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class SkipKind(enum.Enum):
    """Why a file is not linted on its own; the value is the notice's words for the kind."""

    #: A kustomize base, patch, generator input or Component a kustomization (or an Application's
    #: ``spec.source.kustomize.components``) renders: linted through that rendering.
    THROUGH_RENDERING = "read through a kustomization's rendering"
    #: As above, but that kustomization did not render (HL007, HL008, HL009): checked nowhere.
    RENDER_FAILED = "read by a kustomization that did not render"
    #: A file of (or read by) a kustomize Component that nothing of the run renders.
    UNUSED_COMPONENT = "in a kustomize Component nothing in this run uses"
    #: Beside a kustomization that does not list it: kustomize never renders it.
    UNLISTED = "not listed by their kustomization"
    #: Carries ``+argocd:skip-file-rendering``: a directory source skips it.
    SKIP_MARKER = "marked +argocd:skip-file-rendering"
    #: YAML that is no Kubernetes object: a directory source skips it.
    UNRELATED_YAML = "unrelated YAML"
    #: JSON that is no Kubernetes object, in a folder no Application of the repository deploys.
    UNDEPLOYED_DATA = "JSON data in folders no Application deploys"
    #: ``*.jsonnet``: Argo CD evaluates it, hooklint does not.
    JSONNET = "jsonnet, which hooklint does not evaluate"
    #: Read by an ApplicationSet's git files generator as parameters.
    GENERATOR_INPUT = "inputs of an ApplicationSet's git files generator"
    #: A ``valueFiles`` entry of an Application's Helm source (a ``$ref`` value file of a
    #: multi-source one included): Argo CD reads it as that chart's values, never applies it.
    VALUE_FILE = "read as values of an Application's Helm source"
    #: In a folder an Application renders with a config management plugin.
    PLUGIN = "rendered by a config management plugin, which hooklint never runs"
    #: Left out by an Application's ``directory.include/exclude``.
    EXCLUDED = "left out by an Application's directory.include/exclude"
    #: Matched by the run's ``exclude`` (the configuration's, or ``--exclude``): never linted nor
    #: reported, whatever Argo CD does with it.
    CONFIG_EXCLUDED = "left out by exclude"
    #: In a hidden folder that no Application of the run reads with ``directory.recurse`` (hooklint
    #: walks hidden folders only then, or when named; Argo CD's recursive directory source applies them).
    HIDDEN_FOLDER = "in hidden folders no Application reads"
    #: In a folder of a Helm chart that is not the chart's own (``templates/``, ``charts/``,
    #: ``crds/``): hooklint renders the chart, and an Application whose path is that folder applies it.
    CHART_FOLDER = "in folders of Helm charts no Application reads"
    #: A git submodule (a gitlink) that Argo CD checks out and no application of the run reads:
    #: hooklint never fetches submodules (:mod:`hooklint.sources.repository.submodules`).
    SUBMODULE = "git submodules no application reads"
    #: A symbolic link whose destination does not exist: Argo CD skips it.
    DANGLING_LINK = "dangling symbolic links"
    #: Larger than ``max-file-size``: never read.
    TOO_LARGE = "over max-file-size"
    #: Its application was not checked before the run's deadline (``run-timeout``): an input error
    #: of the run names it too.
    NOT_CHECKED = "not checked before run-timeout"
    #: Its application was not checked within the run's node budget (``max-run-nodes``): an input
    #: error of the run names it too.
    NOT_CHECKED_NODES = "not checked within max-run-nodes"

    @property
    def label(self) -> str:
        """The kind in the words of the notice that counts files not linted."""
        return self.value


#: What a file's reason says instead of "linted through ..." when the kustomization whose rendering
#: reads it did not render (issue 22: such a file is never listed as covered).
NOT_THROUGH = "that kustomization did not render (its HL007, HL008 or HL009 says why), so it is checked nowhere"


@dataclass(frozen=True, order=True, slots=True)
class Skip:
    """Why one file is not linted on its own: its ``kind`` and the ``detail`` that says it in full
    for that file (what ``--show-skipped`` and the JSON report print; ``str()`` gives it). Ordered
    by the detail, as the reports list them.

    A :attr:`SkipKind.THROUGH_RENDERING` reason (made by :func:`through_rendering`) also carries
    ``through``, the kustomization whose rendering reads the file, spelt as the run spells that
    application's ``manifest_file``, and ``subject``, how that rendering reads it: the pipeline
    tells by these, never by the words, that the rendering failed (:meth:`not_rendered`).

    A reason an Application (or ApplicationSet) of the repository gives (:attr:`SkipKind.EXCLUDED`,
    :attr:`SkipKind.PLUGIN`, :attr:`SkipKind.VALUE_FILE`, :attr:`SkipKind.GENERATOR_INPUT`) also
    carries ``origin``: who leaves the file out and with which filter, with no line number
    (:func:`hooklint.sources.appmap.discovery.leaving_origin`), so that ``hooklint diff`` can tell a
    leaving-out the base already made from one the change adds (trial 7 F3, F9)."""

    detail: str
    kind: SkipKind = field(compare=False)
    through: str | None = field(default=None, compare=False)
    subject: str = field(default="", compare=False)
    origin: tuple[str, ...] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.detail

    def not_rendered(self) -> Skip:
        """This reason once its kustomization (``through``) is known not to have rendered: a
        :attr:`SkipKind.RENDER_FAILED` reason that says the file is checked nowhere."""
        return Skip(f"{self.subject}: {NOT_THROUGH}", SkipKind.RENDER_FAILED, self.through, self.subject)


def through_rendering(subject: str, kustomization: str, rendering: str = "that kustomization's") -> Skip:
    """Why a file is not linted on its own: ``kustomization`` (a kustomization file, as the run
    spells its application's ``manifest_file``) reads it, as ``subject`` says ("a kustomize base
    that app/kustomization.yaml builds on"), and the file is linted through ``rendering``
    rendering ("that kustomization's", or "that Application's" for a Component an Application adds)."""
    return Skip(f"{subject}: linted through {rendering} rendering", SkipKind.THROUGH_RENDERING, kustomization, subject)


class UnrenderedKind(enum.Enum):
    """Why an application's rendering is not the whole of what Argo CD applies (a reason of
    :class:`hooklint.sources.load.Coverage`); the value names the rule whose finding says more."""

    #: The renderer failed as Argo CD's would (HL007), or hooklint could not say what it renders.
    FAILED = "HL007"
    #: No kustomize or Helm is installed here (HL008).
    UNAVAILABLE = "HL008"
    #: An entry was left out (a remote base, a chart dependency, a value file, a schema) (HL009).
    LEFT_OUT = "HL009"
    #: A config management plugin renders it, which hooklint never runs.
    PLUGIN = "plugin"


@dataclass(frozen=True, slots=True)
class Unrendered:
    """One reason an application's rendering is not complete: its ``kind``, where it is written
    (``path``, 1-based ``line`` and ``column``; empty for none) and a short ``detail``. Decided by
    the sources stage; :meth:`words` is what the plan and markdown reports print."""

    kind: UnrenderedKind
    detail: str
    path: str = ""
    line: int = 0
    column: int = 0

    def words(self) -> str:
        """``path:line:column: detail``, or the detail alone when no place is known."""
        return f"{self.path}:{self.line}:{self.column}: {self.detail}" if self.path else self.detail
