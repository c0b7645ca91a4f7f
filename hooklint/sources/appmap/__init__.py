"""The application map: which folders Argo CD renders as which Applications.

- :mod:`~hooklint.sources.appmap.applications`: ``Application`` manifests written in the repository,
  their sources read as the repo server reads them;
- :mod:`~hooklint.sources.appmap.applicationsets`: ``ApplicationSet`` generators and templates;
- :mod:`~hooklint.sources.appmap.discovery`: the run's applications, and the fixed point "render the
  parents, find the children" of an app of apps (:func:`~hooklint.sources.appmap.discovery.application_map`);
- :mod:`~hooklint.sources.appmap.remote`: a source from elsewhere, fetched (``--fetch``) and rendered
  like a local one.

It sits above the render stage (:mod:`hooklint.sources.render`), which it calls with an
:class:`~hooklint.sources.spec.ApplicationSource`; nothing below imports it (``tests/test_layout.py``).
"""
