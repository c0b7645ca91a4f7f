"""The fetch step (issue 33, item 4): chart repositories, OCI registries and Git remotes served on
127.0.0.1 by the test itself, and every constraint of the step: listed hosts only, checked
addresses, no credentials or proxies from the environment, limits on bytes, files and time,
digests checked, archives unpacked as untrusted input, a second run from the cache."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from fetch_servers import (  # noqa: E402
    chart_archive,
    chart_repository,
    http_server,
    oci_registry,
    recording_listener,
    sha256,
)

from hooklint.config import ConfigError, parse_config, parse_host_entry  # noqa: E402
from hooklint.sources.fetch import FetchError, FetchPolicy, RemoteSource, fetch, load_credentials  # noqa: E402
from hooklint.sources.fetch.net import Hosts  # noqa: E402
from hooklint.sources.fetch.semver import index_get, max_version  # noqa: E402


def policy(tmp_path, *entries: str, **limits) -> FetchPolicy:
    return FetchPolicy(hosts=Hosts([parse_host_entry(e, command_line=True) for e in entries]),
                       cache=str(tmp_path / "cache"), **limits)  # fmt: skip


# --- semver as Argo CD resolves targetRevision (util/versions/tags.go, Masterminds/semver v3.4.0) ---

TAGS = ["1.0.0", "1.2.0", "1.2.7", "1.3.0-rc.1", "2.0.0", "v2.1", "0.2.3", "0.2.9", "0.3.0", "latest"]


@pytest.mark.parametrize("revision,expected", [
    ("^1.2", "1.2.7"), ("~1.2.0", "1.2.7"), (">=1.0 <2", "1.2.7"), ("1.2.x", "1.2.7"), ("*", "v2.1"),
    ("^0.2.3", "0.2.9"), ("^0.0", None), ("1.2 - 1.3", "1.2.7"), ("!=2.x, <3", "1.2.7"), ("<=1.2", "1.2.7"),
    (">1.2", "v2.1"), (">=1.3.0-rc.0 <1.4", "1.3.0-rc.1"), (">=1.3 <1.4", None), ("2.x || 0.2.x", "v2.1"),
    ("1.2", "1.2"), ("v1.2.0", "v1.2.0"), ("latest", "latest"), ("stable", None),
])  # fmt: skip
def test_max_version_resolves_as_argo_cd(revision, expected):
    if expected is None:
        with pytest.raises(ValueError):
            max_version(revision, TAGS)
    else:
        assert max_version(revision, TAGS) == expected


def test_a_pin_is_then_read_by_helm_as_its_index_reads_it():
    # pkg/repo/index.go IndexFile.Get: the exact spelling first, else the highest the pin admits
    assert index_get("1.2", ["1.2.0", "1.2.7", "1.3.0"]) == "1.2.7"
    assert index_get("1.2.0", ["1.2.0", "1.2.7"]) == "1.2.0"
    assert index_get("v1.2.0", ["v1.2.0", "1.2.0"]) == "v1.2.0"
    assert index_get("9", ["1.2.0"]) is None


# --- chart repositories ------------------------------------------------------------------------------


def test_a_chart_repository_chart_is_fetched_checked_and_then_read_from_the_cache(tmp_path):
    archive = chart_archive()
    with http_server() as served:
        chart_repository(served, archive, more=["1.1.0"])
        rules = policy(tmp_path, f"http://127.0.0.1:{served.port}")
        fetched = fetch(RemoteSource("helm", served.base, "hookchart", "^1.0"), rules)
        assert [r[0] for r in served.requests] == ["/index.yaml", "/charts/hookchart-1.2.0.tgz"]
        url = served.base
    assert (fetched.label(), fetched.digest, fetched.cached) == ("hookchart 1.2.0", sha256(archive), False)
    assert sorted(os.listdir(fetched.folder)) == ["Chart.yaml", "templates", "values.yaml"]
    assert os.path.basename(fetched.folder) == "hookchart"
    # the server is gone: a second run needs no network
    again = fetch(RemoteSource("helm", url, "hookchart", "^1.0"), rules)
    assert (again.folder, again.cached) == (fetched.folder, True)


def test_a_digest_mismatch_is_refused_and_nothing_is_unpacked(tmp_path):
    archive = chart_archive()
    with http_server() as served:
        chart_repository(served, archive, digest="sha256:" + "0" * 64)
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"), policy(tmp_path, f"http://127.0.0.1:{served.port}"))
    assert str(info.value) == (f"chart hookchart 1.2.0: the archive's digest {sha256(archive)} is not the index's "
                               f"sha256:{'0' * 64}: refused")  # fmt: skip
    trees = tmp_path / "cache" / "trees"
    assert not trees.exists() or [n for n in os.listdir(trees) if not n.startswith(".")] == []


@pytest.mark.parametrize("digest, why", [
    (None, "gives no digest for it, so its archive cannot be checked: refused (the repository's index.yaml needs the "
           "archive's sha256 digest, as 'helm repo index' writes it)"),
    ("", "gives no digest for it, so its archive cannot be checked: refused (the repository's index.yaml needs the "
         "archive's sha256 digest, as 'helm repo index' writes it)"),
    (12345, "gives the digest '12345', which is not a sha256 digest (64 hex digits), so its archive cannot be checked: "
            "refused"),
    ("md5:0f", "gives the digest 'md5:0f', which is not a sha256 digest (64 hex digits), so its archive cannot be "
               "checked: refused"),
])  # fmt: skip
def test_an_index_entry_without_a_sha256_digest_is_refused_before_the_download(tmp_path, digest, why):
    """Trial 4, item 9: an entry with no digest (or one that is no sha256) was fetched and rendered
    unchecked; the README says the archive's sha256 must equal the index's digest."""
    archive = chart_archive()
    with http_server() as served:
        chart_repository(served, archive)
        index = json.loads(served.routes["/index.yaml"][2])
        entry = index["entries"]["hookchart"][0]
        if digest is None:
            del entry["digest"]
        else:
            entry["digest"] = digest
        served.routes["/index.yaml"] = (200, {"Content-Type": "text/yaml"}, json.dumps(index).encode())
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"), policy(tmp_path, f"http://127.0.0.1:{served.port}"))
        assert [r[0] for r in served.requests] == ["/index.yaml"]
    assert str(info.value) == f"chart hookchart 1.2.0: {served.base}/index.yaml {why}"
    # an upper-case digest, with or without its sha256: prefix, is the same digest
    for spelt in (sha256(archive)[7:].upper(), "SHA256:" + sha256(archive)[7:].upper()):
        with http_server() as served:
            chart_repository(served, archive, digest="sha256:" + spelt.split(":")[-1])
            fetched = fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"),
                            policy(tmp_path / spelt[:3], f"http://127.0.0.1:{served.port}"))  # fmt: skip
        assert fetched.digest == sha256(archive)


def test_a_version_missing_from_the_index_is_one_line(tmp_path):
    with http_server() as served:
        chart_repository(served, chart_archive())
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "^3"), policy(tmp_path, f"http://127.0.0.1:{served.port}"))
    assert str(info.value) == "chart hookchart: no version matching the constraint '^3' among 1 versions"


# --- OCI registries ------------------------------------------------------------------------------------


def test_an_oci_chart_is_fetched_by_tag_and_by_constraint_digests_checked(tmp_path):
    archive = chart_archive()
    with http_server() as served:
        oci_registry(served, archive)
        rules = policy(tmp_path, f"http://127.0.0.1:{served.port}")
        fetched = fetch(RemoteSource("oci", f"oci://127.0.0.1:{served.port}/charts", "hookchart", "1.2.0"), rules)
        assert [r[0] for r in served.requests] == ["/v2/charts/hookchart/manifests/1.2.0",
                                                   f"/v2/charts/hookchart/blobs/{sha256(archive)}"]  # fmt: skip
        assert "application/vnd.oci.image.manifest.v1+json" in served.requests[0][1]["accept"]
        served.requests.clear()
        ranged = fetch(RemoteSource("oci", f"127.0.0.1:{served.port}/charts", "hookchart", "~1.2"), policy(tmp_path / "2", f"http://127.0.0.1:{served.port}"))
        assert [r[0] for r in served.requests] == ["/v2/charts/hookchart/tags/list", "/v2/charts/hookchart/manifests/1.2.0",
                                                   f"/v2/charts/hookchart/blobs/{sha256(archive)}"]  # fmt: skip
    assert (fetched.label(), fetched.digest) == ("hookchart 1.2.0", sha256(archive))
    assert ranged.label() == "hookchart 1.2.0"


def test_an_oci_layer_whose_digest_differs_is_refused(tmp_path):
    archive = chart_archive()
    claimed = "sha256:" + "1" * 64
    with http_server() as served:
        oci_registry(served, archive, layer_digest=claimed)
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("oci", f"oci://127.0.0.1:{served.port}/charts", "hookchart", "1.2.0"),
                  policy(tmp_path, f"http://127.0.0.1:{served.port}"))  # fmt: skip
    assert str(info.value) == f"chart hookchart 1.2.0: the layer's digest {sha256(archive)} is not the manifest's {claimed}: refused"


def test_an_oci_registry_asking_for_a_bearer_token_gets_the_anonymous_one(tmp_path):
    archive = chart_archive()
    with http_server() as served:
        oci_registry(served, archive)
        served.routes["/token"] = (200, {}, b'{"token": "anon-token"}')

        def challenge(path, headers):
            if path.startswith("/v2/") and headers.get("authorization") != "Bearer anon-token":
                return 401, {"WWW-Authenticate": f'Bearer realm="{served.base}/token",service="reg",scope="repository:charts/hookchart:pull"'}, b""
            return None

        served.hook = challenge
        fetched = fetch(RemoteSource("oci", f"oci://127.0.0.1:{served.port}/charts", "hookchart", "1.2.0"),
                        policy(tmp_path, f"http://127.0.0.1:{served.port}"))  # fmt: skip
        asked = [r[0] for r in served.requests]
    assert asked[:3] == ["/v2/charts/hookchart/manifests/1.2.0", "/token?service=reg&scope=repository%3Acharts%2Fhookchart%3Apull",
                         "/v2/charts/hookchart/manifests/1.2.0"]  # fmt: skip
    assert fetched.label() == "hookchart 1.2.0"


def test_a_registry_token_never_follows_a_redirect_to_another_host(tmp_path):
    """Attacker trial 27, B1: the registry's bearer token went along the blob read's redirect to
    another host (Go's net/http, as Helm and Argo CD use it, drops Authorization there)."""
    archive = chart_archive()
    with http_server() as served, http_server() as storage:
        oci_registry(served, archive)
        served.routes["/token"] = (200, {}, b'{"token": "SECRET-BEARER-TOKEN-123456"}')
        storage.routes["/blob"] = (200, {}, archive)

        def challenge(path, headers):
            if path.startswith("/v2/") and headers.get("authorization") != "Bearer SECRET-BEARER-TOKEN-123456":
                return 401, {"WWW-Authenticate": f'Bearer realm="{served.base}/token",service="reg",scope="repository:charts/hookchart:pull"'}, b""
            if "/blobs/" in path:
                return 307, {"Location": f"{storage.base}/blob?sig=abc"}, b""
            return None

        served.hook = challenge
        fetched = fetch(RemoteSource("oci", f"oci://127.0.0.1:{served.port}/charts", "hookchart", "1.2.0"),
                        policy(tmp_path, f"http://127.0.0.1:{served.port}", f"http://127.0.0.1:{storage.port}"))  # fmt: skip
    assert [(path, headers.get("authorization")) for path, headers in storage.requests] == [("/blob?sig=abc", None)]
    assert served.requests[-1][0] == f"/v2/charts/hookchart/blobs/{sha256(archive)}"
    assert served.requests[-1][1]["authorization"] == "Bearer SECRET-BEARER-TOKEN-123456"
    assert fetched.label() == "hookchart 1.2.0"


# --- who may be contacted ----------------------------------------------------------------------------


def test_a_host_missing_from_fetch_hosts_is_never_contacted(tmp_path):
    with recording_listener() as listener, http_server() as served:
        rules = policy(tmp_path, f"http://127.0.0.1:{served.port}")
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", f"http://127.0.0.1:{listener.port}", "hookchart", "1.2.0"), rules)
        with pytest.raises(FetchError):  # HTTPS listed, plain HTTP asked: not contacted either
            fetch(RemoteSource("helm", f"http://127.0.0.1:{listener.port}", "hookchart", "1.2.0"),
                  policy(tmp_path, f"127.0.0.1:{listener.port}"))  # fmt: skip
        time.sleep(0.3)
        assert listener.seen == []
        # the same listener, listed: it is contacted (so the listener does record connections)
        with pytest.raises(FetchError):
            fetch(RemoteSource("helm", f"http://127.0.0.1:{listener.port}", "hookchart", "1.2.0"),
                  policy(tmp_path, f"http://127.0.0.1:{listener.port}", timeout=2))  # fmt: skip
        time.sleep(0.3)
        assert len(listener.seen) == 1
    assert str(info.value) == (f"http://127.0.0.1:{listener.port}/index.yaml: http://127.0.0.1:{listener.port} is not "
                               "in fetch-hosts: not contacted")  # fmt: skip


def test_a_loopback_address_is_refused_unless_listed_as_that_address(tmp_path):
    with recording_listener() as listener:
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", f"http://localhost:{listener.port}", "hookchart", "1.2.0"),
                  policy(tmp_path, f"http://localhost:{listener.port}"))  # fmt: skip
        time.sleep(0.3)
        assert listener.seen == []
    assert str(info.value).startswith("localhost resolves to ")
    assert str(info.value).endswith(", a loopback address: refused (list the address itself in fetch-hosts to allow it)")


def test_a_redirect_to_a_host_not_listed_is_not_followed(tmp_path):
    with recording_listener() as listener, http_server() as served:
        served.routes["/index.yaml"] = (302, {"Location": f"http://127.0.0.1:{listener.port}/index.yaml"}, b"")
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"), policy(tmp_path, f"http://127.0.0.1:{served.port}"))
        time.sleep(0.3)
        assert listener.seen == []
    assert str(info.value).endswith(f"http://127.0.0.1:{listener.port} is not in fetch-hosts: not contacted")


def test_no_proxy_or_netrc_of_the_environment_is_used(tmp_path, monkeypatch):
    with recording_listener() as listener, http_server() as served:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(name, f"http://127.0.0.1:{listener.port}")
        (tmp_path / "netrc").write_text("machine 127.0.0.1 login user password hunter2-netrc\n")
        monkeypatch.setenv("NETRC", str(tmp_path / "netrc"))
        chart_repository(served, chart_archive())
        fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"), policy(tmp_path, f"http://127.0.0.1:{served.port}"))
        time.sleep(0.3)
        assert listener.seen == []
        assert all("authorization" not in headers for _, headers in served.requests)


def test_credentials_go_only_to_their_host_and_never_into_a_message(tmp_path):
    with http_server() as served, http_server() as other:
        (tmp_path / "creds.yaml").write_text(f"127.0.0.1:{served.port}: {{username: bot, password: s3cret-pass}}\n")
        served.routes["/index.yaml"] = (302, {"Location": f"{other.base}/index.yaml"}, b"")
        rules = policy(tmp_path, f"http://127.0.0.1:{served.port}", f"http://127.0.0.1:{other.port}")
        rules.credentials = load_credentials(str(tmp_path / "creds.yaml"))
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"), rules)
    assert served.requests[0][1]["authorization"] == "Basic Ym90OnMzY3JldC1wYXNz"
    assert "authorization" not in other.requests[0][1]
    assert str(info.value) == f"{other.base}/index.yaml: HTTP 404"


def test_fetch_hosts_entries_are_checked():
    assert str(parse_host_entry("Charts.Example.com")) == "charts.example.com"
    assert str(parse_host_entry("http://10.0.0.5:8080")) == "http://10.0.0.5:8080"
    for bad, message in [
        ("https://charts.example.com", "'https://charts.example.com' must be host[:port] (HTTPS) or http://host[:port] (plain HTTP too)"),
        ("charts.example.com/path", "'charts.example.com/path' must be a host name or address with an optional port, no path, user or wildcard"),
        ("*.example.com", "'*.example.com' must be a host name or address with an optional port, no path, user or wildcard"),
        ("file:///srv/git", "'file:///srv/git': file:// remotes may only be admitted with --fetch-host"),
    ]:  # fmt: skip
        with pytest.raises(ValueError) as info:
            parse_host_entry(bad)
        assert str(info.value) == message
    with pytest.raises(ConfigError) as config_info:
        parse_config({"fetch-hosts": ["ok.example.com", "file:///srv/git"]}, "x")
    assert str(config_info.value) == "x: 'fetch-hosts' entry 'file:///srv/git': file:// remotes may only be admitted with --fetch-host"


# --- limits --------------------------------------------------------------------------------------------


def test_the_byte_limit_stops_a_download(tmp_path):
    archive = chart_archive(files={"big.txt": os.urandom(200_000)})
    with http_server() as served:
        chart_repository(served, archive)
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"),
                  policy(tmp_path, f"http://127.0.0.1:{served.port}", max_bytes=100_000))  # fmt: skip
    assert str(info.value) == (f"{served.base}/charts/hookchart-1.2.0.tgz: {len(archive)} bytes, more than "
                               "fetch-max-bytes (100000 bytes) allows")  # fmt: skip


def test_the_byte_limit_stops_a_gzip_bomb_while_it_unpacks(tmp_path):
    archive = chart_archive(files={"zeros.txt": bytes(3_000_000)})
    assert len(archive) < 20_000
    with http_server() as served:
        chart_repository(served, archive)
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"),
                  policy(tmp_path, f"http://127.0.0.1:{served.port}", max_bytes=1_000_000))  # fmt: skip
    assert str(info.value) == "chart hookchart 1.2.0 unpacks to more than fetch-max-bytes (1000000 bytes)"


def test_the_file_limit_stops_an_archive_of_many_files(tmp_path):
    archive = chart_archive(files={f"templates/f{i}.yaml": b"" for i in range(20)})
    with http_server() as served:
        chart_repository(served, archive)
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"),
                  policy(tmp_path, f"http://127.0.0.1:{served.port}", max_files=10))  # fmt: skip
    assert str(info.value) == "more than fetch-max-files (10 files)"


def test_the_time_limit_stops_a_slow_server(tmp_path):
    with http_server() as served:
        def slow(path, headers):
            time.sleep(3)
            return None

        served.hook = slow
        started = time.monotonic()
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"),
                  policy(tmp_path, f"http://127.0.0.1:{served.port}", timeout=0.5))  # fmt: skip
        assert time.monotonic() - started < 2
    assert str(info.value) == f"{served.base}/index.yaml: no answer within fetch-timeout (0.5 s)"


# --- archives are untrusted input ------------------------------------------------------------------------


@pytest.mark.parametrize("archive,message", [
    (lambda: chart_archive(links={"templates/passwd.yaml": "/etc/passwd"}),
     "chart hookchart 1.2.0 holds a link, 'hookchart/templates/passwd.yaml' -> '/etc/passwd': refused"),
    (lambda: chart_archive(files={"!hookchart/../../escape.yaml": b"x"}),
     "chart hookchart 1.2.0 holds a member named 'hookchart/../../escape.yaml', which no chart holds: refused"),
    (lambda: chart_archive(files={"!/etc/cron.d/x": b"x"}),
     "chart hookchart 1.2.0 holds a member named '/etc/cron.d/x', which no chart holds: refused"),
    (lambda: chart_archive(files={"!other/Chart.yaml": b"x"}),
     "chart hookchart 1.2.0 holds 'other/Chart.yaml' outside its top folder 'hookchart': refused"),
    (lambda: gzip.compress(b"not a tar at all" * 40),
     "chart hookchart 1.2.0 is not a readable chart archive (invalid header)"),
])  # fmt: skip
def test_a_hostile_archive_is_refused_with_one_line(tmp_path, archive, message):
    data = archive()
    with http_server() as served:
        chart_repository(served, data)
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"), policy(tmp_path, f"http://127.0.0.1:{served.port}"))
    assert str(info.value) == message
    assert not os.path.exists("/etc/cron.d/x") and not (tmp_path / "escape.yaml").exists()
    assert not [n for n in os.listdir(tmp_path / "cache" / "trees") if not n.startswith(".")]


# --- Git remotes -----------------------------------------------------------------------------------------


def _git_repository(folder, link: bool = False) -> str:
    (folder / "apps/job").mkdir(parents=True)
    (folder / "apps/job/job.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    if link:
        (folder / "apps/job/link.yaml").symlink_to("job.yaml")
    (folder / ".gitattributes").write_text("*.yaml filter=evil\n")
    (folder / "hooks-witness").write_text("")

    def git(*args):
        subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "filter.evil.smudge", f"touch {folder}/smudged")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one")
    git("tag", "v1.2.0")
    return subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def test_a_git_source_of_another_repository_is_fetched_at_its_revision(tmp_path):
    commit = _git_repository(tmp_path / "remote")
    rules = policy(tmp_path, f"file://{tmp_path / 'remote'}")
    for revision in ("", "main", "v1.2.0", "^1", commit):
        fetched = fetch(RemoteSource("git", f"file://{tmp_path / 'remote'}", "", revision, "apps/job"), rules)
        assert (fetched.digest, fetched.version) == (commit, commit[:12])
    assert sorted(os.listdir(fetched.folder)) == ["job.yaml"]
    assert not (tmp_path / "remote" / "smudged").exists()  # no filter of the remote's configuration ran


def test_a_git_tree_holding_a_symbolic_link_inside_it_places_it_as_a_checkout_does(tmp_path):
    """A link that stays in the tree is placed with its target as written (a link leading out refuses
    the tree: tests/test_fetch_remote.py); before, any link refused the tree."""
    _git_repository(tmp_path / "remote", link=True)
    got = fetch(RemoteSource("git", f"file://{tmp_path / 'remote'}", "", "main", "apps/job"),
                policy(tmp_path, f"file://{tmp_path / 'remote'}"))  # fmt: skip
    assert os.readlink(os.path.join(got.folder, "link.yaml")) == "job.yaml"
    assert sorted(os.listdir(got.folder)) == ["job.yaml", "link.yaml"]
    assert not (tmp_path / "remote/smudged").exists()


def test_a_git_remote_not_admitted_is_not_read(tmp_path):
    _git_repository(tmp_path / "remote")
    with pytest.raises(FetchError) as info:
        fetch(RemoteSource("git", f"file://{tmp_path / 'remote'}", "", "main", "apps/job"), policy(tmp_path, "example.com"))
    assert str(info.value) == f"file://{tmp_path / 'remote'}: this file:// remote is not admitted by a --fetch-host file:// entry"
    with pytest.raises(FetchError) as ssh:
        fetch(RemoteSource("git", "git@github.com:acme/deploy.git", "", "main", "apps"), policy(tmp_path, "github.com"))
    assert str(ssh.value) == "git@github.com:acme/deploy.git: only https:// (and listed http://) Git remotes are fetched, not ssh ones"


def test_a_git_path_leaving_the_fetched_tree_is_refused(tmp_path):
    _git_repository(tmp_path / "remote")
    with pytest.raises(FetchError) as info:
        fetch(RemoteSource("git", f"file://{tmp_path / 'remote'}", "", "main", "../.."), policy(tmp_path, f"file://{tmp_path / 'remote'}"))
    assert str(info.value) == f"file://{tmp_path / 'remote'}: path '../..' leaves the repository"


def test_the_byte_limit_stops_a_large_git_fetch(tmp_path):
    _git_repository(tmp_path / "remote")
    (tmp_path / "remote/apps/job/big.bin").write_bytes(os.urandom(300_000))
    subprocess.run(["git", "-C", str(tmp_path / "remote"), "add", "."], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(tmp_path / "remote"), "-c", "user.name=t", "-c", "user.email=t@example.com", "commit",
                    "-qm", "big"], check=True, capture_output=True)  # fmt: skip
    with pytest.raises(FetchError) as info:
        fetch(RemoteSource("git", f"file://{tmp_path / 'remote'}", "", "main", "apps/job"),
              policy(tmp_path, f"file://{tmp_path / 'remote'}", max_bytes=100_000))  # fmt: skip
    assert str(info.value) == "git fetch: more than fetch-max-bytes (100000 bytes)"


def test_the_file_limit_stops_a_git_tree_of_many_files(tmp_path):
    _git_repository(tmp_path / "remote")
    for i in range(12):
        (tmp_path / f"remote/apps/f{i}.yaml").write_text("")
    subprocess.run(["git", "-C", str(tmp_path / "remote"), "add", "."], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(tmp_path / "remote"), "-c", "user.name=t", "-c", "user.email=t@example.com", "commit",
                    "-qm", "many"], check=True, capture_output=True)  # fmt: skip
    with pytest.raises(FetchError) as info:
        fetch(RemoteSource("git", f"file://{tmp_path / 'remote'}", "", "main", "apps"),
              policy(tmp_path, f"file://{tmp_path / 'remote'}", max_files=10))  # fmt: skip
    assert str(info.value) == "more than fetch-max-files (10 files)"


def test_a_git_host_not_listed_is_never_contacted_and_a_listed_one_only_at_its_checked_address(tmp_path):
    with recording_listener() as listener:
        url = f"https://127.0.0.1:{listener.port}/acme/deploy.git"
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("git", url, "", "main", "apps"), policy(tmp_path, "github.com"))
        time.sleep(0.3)
        assert listener.seen == []
        with pytest.raises(FetchError) as loopback:  # listed by name: a loopback address is refused
            fetch(RemoteSource("git", f"https://localhost:{listener.port}/acme/deploy.git", "", "main", "apps"),
                  policy(tmp_path, f"localhost:{listener.port}"))  # fmt: skip
        time.sleep(0.3)
        assert listener.seen == []
        with pytest.raises(FetchError):  # listed as its address: git connects (and TLS fails on the listener)
            fetch(RemoteSource("git", url, "", "main", "apps"), policy(tmp_path, f"127.0.0.1:{listener.port}", timeout=10))
        time.sleep(0.3)
        assert listener.seen != []
    assert str(info.value) == f"{url}: https://127.0.0.1:{listener.port} is not in fetch-hosts: not contacted"
    assert str(loopback.value).startswith("localhost resolves to ") and "a loopback address: refused" in str(loopback.value)
