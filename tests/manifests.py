"""Manifests, paths and helpers shared by several test modules."""

import re
from pathlib import Path

import pytest

from hooklint.config import Config
from hooklint.findings import Finding
from hooklint.pipeline import lint_example
from hooklint.sources.render import helm, kustomize

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

def lint_example_as_written(example: dict, config: Config, monkeypatch: pytest.MonkeyPatch) -> list[Finding]:
    """:func:`hooklint.pipeline.lint_example`, on a machine without kustomize, kubectl or Helm when
    the example says ``renderers-installed: false``."""
    if example.get("renderers-installed") is False:
        monkeypatch.setattr(kustomize, "find_kustomize", lambda *_: None)
        monkeypatch.setattr(helm, "find_helm", lambda *_: None)
    return lint_example(example, config)


#: A PreSync hook Job and a ConfigMap that no rule reports (the base of the rendering, Application
#: and diff tests, which then change one thing).
CLEAN_HOOK_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 300
  template:
    spec:
      serviceAccountName: migrate
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
      - name: migrate
        image: ghcr.io/acme/migrate:1.4.2
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
"""


#: A PreSync hook Job whose only problem (besides hook hygiene) is the mutable tag.
HL102_BAD = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: db-migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate:latest
"""
HL102_MESSAGE = (
    "Image 'ghcr.io/acme/migrate:latest' of container 'migrate' of Job/db-migrate uses the mutable "
    "tag ':latest': each sync may run different code than was reviewed. Pin a version tag or, "
    "better, an @sha256 digest."
)
#: A well-kept PreSync hook Job whose one finding is HL102 on the image (line 17, column 18).
LATEST_TAG_HOOK = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: db-migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 1
  activeDeadlineSeconds: 60
  template:
    spec:
      serviceAccountName: migrate
      automountServiceAccountToken: false
      restartPolicy: Never
      containers:
        - name: migrate
          image: ghcr.io/acme/migrate:latest
"""
#: A plain resource, so that an application is not hooks-only (HL305).
CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  LOG_LEVEL: info
"""


def doc_blocks() -> dict[str, str]:
    """The fenced YAML blocks of docs/ci.md, by the file their first line names (``# path``)."""
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = {}
    for body in re.findall(r"^```yaml\n(.*?)^```$", text, re.MULTILINE | re.DOTALL):
        first = body.splitlines()[0]
        assert first.startswith("# "), f"a docs/ci.md block does not start with '# <file>': {first!r}"
        blocks[first[2:].strip()] = body
    return blocks


#: A PreSync Job in namespace ``app`` running as ServiceAccount ``runner``: the hook whose RBAC reach
#: the HL106 tests judge.
RUNNER_HOOK_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: app
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      serviceAccountName: runner
      restartPolicy: Never
      containers: [{name: a, image: "ghcr.io/acme/a:1.0.0"}]
"""
