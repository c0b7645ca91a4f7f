"""Sources: what Argo CD renders for each application, as manifests with positions.

The second stage of the pipeline (files -> **sources** -> manifests -> plan -> checks -> findings ->
reporters). It is three stages of its own, each importing only those below it
(``tests/test_layout.py``):

1. :mod:`hooklint.sources.repository`: the tree, containment, what a kustomization or a packaged
   chart says; the fetch step (:mod:`hooklint.sources.fetch`, ``--fetch`` only) sits above it;
2. :mod:`hooklint.sources.render`: kustomize, Helm and directory sources rendered as Argo CD's
   repo server renders them, given an :class:`~hooklint.sources.spec.ApplicationSource`;
3. :mod:`hooklint.sources.appmap`: which folders are which Applications (written, app of apps,
   ApplicationSets, fetched).

:mod:`hooklint.sources.appmap.discovery` decides which files make up each application;
:func:`load_application` reads or renders them and marks what Argo CD's directory source does not
render (:mod:`hooklint.sources.render.directory`). The next stage, :func:`hooklint.model.manifests_of`,
builds the application's manifests from the rest.

The package itself holds nothing but this map: importing one of its modules (the result cache
asks :mod:`hooklint.sources.repository.tree` where a repository ends) loads that module and those
below it, not every renderer.
"""
