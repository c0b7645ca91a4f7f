"""Image references by Docker's rules, and allowlist matching on boundaries (HL101)."""

import pytest

from hooklint.images import RegistryEntry, allowed, is_templated, parse_image


@pytest.mark.parametrize(
    "image, host, path, tag, digest",
    [
        ("nginx", "docker.io", "library/nginx", None, None),
        ("nginx:1.25", "docker.io", "library/nginx", "1.25", None),
        ("acme/app", "docker.io", "acme/app", None, None),
        ("index.docker.io/acme/app:1", "docker.io", "acme/app", "1", None),
        ("ghcr.io/acme/app:2.0", "ghcr.io", "acme/app", "2.0", None),
        ("GHCR.IO/acme/app", "ghcr.io", "acme/app", None, None),
        ("localhost/app", "localhost", "app", None, None),
        ("localhost:5000/app:1", "localhost:5000", "app", "1", None),
        ("registry:5000/app", "registry:5000", "app", None, None),
        ("acme:5000", "docker.io", "library/acme", "5000", None),
        ("quay.io/app@sha256:" + "a" * 64, "quay.io", "app", None, "sha256:" + "a" * 64),
        ("quay.io/app:1.0@sha256:" + "b" * 64, "quay.io", "app", "1.0", "sha256:" + "b" * 64),
    ],
)
def test_parse_image(image, host, path, tag, digest):
    ref = parse_image(image)
    assert (ref.host, ref.path, ref.tag, ref.digest) == (host, path, tag, digest)


@pytest.mark.parametrize("image", [
    "", "has space:1", "app:", "/app", "app@sha256:xyz", "a//b",
    "ghcr.io/acme/app@v1@sha256:" + "a" * 64,  # two '@': the digest is everything after the first
    "registry.example.com/team:x/app",  # a colon inside the path
    "ghcr.io/acme/app/:1.0",  # a name ending in '/'
])
def test_parse_image_rejects(image):
    """mutmut survivors of parse_image (split on the first '@', the tag after the last '/', a name
    ending in '/'): each is not a reference."""
    assert parse_image(image) is None


@pytest.mark.parametrize(("image", "templated"), [
    ("{{ .Values.image }}", True), ("$(REGISTRY)/app:1", True), ("${REGISTRY}/app:1", True),
    ("ghcr.io/acme/app:1", False), ("ghcr.io/acme/app:1$", False),
])
def test_is_templated(image, templated):
    """A Helm/Go template and each shell-style variable, ``$(VAR)`` or ``${VAR}``, is enough on its
    own (mutmut survivors of is_templated)."""
    assert is_templated(image) is templated


@pytest.mark.parametrize(
    "entry, image, expected",
    [
        ("registry.example.com", "registry.example.com/app:1", True),
        ("registry.example.com", "REGISTRY.example.com/app:1", True),
        ("registry.example.com", "registry.example.com:443/app:1", True),
        ("registry.example.com", "registry.example.com.evil.net/app:1", False),
        ("registry.example.com", "evil.net/registry.example.com/app:1", False),
        ("registry.example.com:5000", "registry.example.com/app:1", False),
        ("registry.example.com:5000", "registry.example.com:5000/app:1", True),
        ("registry.example.com/team", "registry.example.com/team/app:1", True),
        ("registry.example.com/team", "registry.example.com/teamx/app:1", False),
        ("registry.example.com/team", "registry.example.com/team:1", True),
        ("registry.example.com/team/", "registry.example.com/team/app", True),
        ("docker.io", "nginx:1.25", True),
        ("docker.io/library", "nginx:1.25", True),
        ("docker.io/library", "acme/nginx:1.25", False),
        ("index.docker.io", "docker.io/acme/app", True),
        ("ghcr.io", "docker.io/ghcr.io", False),
    ],
)
def test_allowlist_matches_on_boundaries(entry, image, expected):
    assert allowed(parse_image(image), [RegistryEntry.parse(entry)]) is expected
