"""Manifests and paths shared by several test modules."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

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
#: A plain resource, so that an application is not hooks-only (HL305).
CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  LOG_LEVEL: info
"""
