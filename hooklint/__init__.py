"""hooklint: a security policy linter for Argo CD resource hooks and sync waves."""

__version__ = "0.1.0"
