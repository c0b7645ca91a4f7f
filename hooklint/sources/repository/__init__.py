"""The repository stage: ..."""
