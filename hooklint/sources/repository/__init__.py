"""The repository stage: what the repository's files are, before anything renders them.

- :mod:`~hooklint.sources.repository.tree`: the walk for manifest files, a folder's source type
  (``GetAppSourceType``), containment (what resolves inside the repository, decided per folder);
- :mod:`~hooklint.sources.repository.git`: the Git checkout holding a folder (its top, its remotes);
- :mod:`~hooklint.sources.repository.facts`: each file-system question of a run asked once;
- :mod:`~hooklint.sources.repository.kustomizations` and
  :mod:`~hooklint.sources.repository.kustomize_spec`: a kustomization read as kustomize reads it, and
  the files it builds on and reads;
- :mod:`~hooklint.sources.repository.charts`: packaged charts (``charts/*.tgz``) read within bounds;
- :mod:`~hooklint.sources.repository.crds`: the cluster-scoped kinds the repository's CRDs declare;
- :mod:`~hooklint.sources.repository.gomatch`: Go's ``path.Match`` and ``filepath.Glob``.

It imports nothing of the fetch, render or application-map stages (``tests/test_layout.py``).
"""
