"""A Rendering round-trips through JSON (the render cache stores it that way), its left-out entries
included: a partial rendering read back from the cache is still partial (issue 22)."""

from __future__ import annotations

import json

from hooklint.sources.render.rendered import Omission, RenderedDocument, Renderer, Rendering, Transformation


def test_a_partial_rendering_round_trips_through_json() -> None:
    rendering = Rendering(
        Renderer("kustomize", "v5.5.0"),
        [RenderedDocument("kind: Job\n", "base/job.yaml", 3, "base/kustomization.yaml",
                          [Transformation("kustomization.yaml", "ImageTagTransformer")])],  # fmt: skip
        [Omission("resource https://example.com/x.yaml is remote", "base/kustomization.yaml", 4, 3)],
    )
    back = Rendering.from_json(json.loads(json.dumps(rendering.to_json())))
    assert back == rendering
    assert back.partial is True
    assert back.omitted[0].unchecked == (
        "the objects it adds, possibly hooks, were not checked; the rest of the application was")


def test_a_cached_rendering_from_before_omissions_reads_as_full() -> None:
    data = {"renderer": {"name": "helm", "version": "v3.17.0"}, "documents": []}
    assert Rendering.from_json(data).partial is False
