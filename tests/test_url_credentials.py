"""The credentials of a URL are removed from every message as Go's ``net/url`` reads its userinfo
(kustomize's and Argo CD's Git URLs): up to the authority's LAST ``@``, with RFC 3986's sub-delims
(``'`` among them) and ``@`` inside, for every scheme; the password of a scp-like Git address; the
values of query parameters named with hooklint's own list of secret keys (attacker trial 19 B6: a
password holding ``'`` was printed whole, one holding ``@`` half; ``?jwt=``, ``?pass=``,
``?cookie=``, ``?bearer=`` were printed)."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.render import redact
from hooklint.text import SECRET_KEY, url_credentials


def test_a_password_with_a_quote_or_an_at_sign_is_removed_whole_from_every_format(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {
        "site/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        "site/kustomization.yaml": ("resources:\n- cm.yaml\n"
                                    "- \"https://bot:Rt5'Hw2Ky8Nf@code.example.org/team/a.git//base?ref=v2\"\n"
                                    "- \"https://bot:Gp4@Jd7Ws3Qc@code.example.org/team/b.git//base?ref=v2\"\n"),
    })  # fmt: skip
    for form in ("text", "concise", "json", "sarif", "github", "gitlab", "markdown"):
        output = CliRunner().invoke(app, ["lint", "-f", form, "site"]).output
        for piece in ("Rt5'", "Hw2Ky8Nf", "Gp4@", "Jd7Ws3Qc"):
            assert piece not in output, (form, piece)
    output = CliRunner().invoke(app, ["lint", "-f", "concise", "site"]).output.splitlines()
    assert output[:2] == [
        'site/kustomization.yaml:3:3: HL009 resources entry "https://bot:[redacted]@code.example.org/team/a.git//base'
        '?ref=v2" is remote and needs the network',
        "site/kustomization.yaml:4:3: HL009 resources entry 'https://bot:[redacted]@code.example.org/team/b.git//base"
        "?ref=v2' is remote and needs the network"]  # fmt: skip
    plan = CliRunner().invoke(app, ["plan", "site"]).output
    assert "Hw2Ky8Nf" not in plan and "Jd7Ws3Qc" not in plan


def test_the_userinfo_is_read_up_to_the_authoritys_last_at_for_every_scheme():
    for scheme in ("https", "http", "git+ssh", "oci", "ssh", "s3", "git"):
        assert url_credentials(f"'{scheme}://ops:a'b@c!d@host.example.com:22/x'") == \
            f"'{scheme}://ops:[redacted]@host.example.com:22/x'"  # fmt: skip
    # a token alone (no ':'): all of it; 'git' is no secret
    assert url_credentials("https://gh'p@ab@github.com/x") == "https://[redacted]@github.com/x"
    assert url_credentials("ssh://git@github.com/x") == "ssh://git@github.com/x"
    # the authority ends at '/', '?', '#' or white space: an '@' after it is no userinfo
    assert url_credentials("https://host.example.com/a@b and c@d") == "https://host.example.com/a@b and c@d"
    assert url_credentials("https://host.example.com?x=a@b") == "https://host.example.com?x=a@b"
    assert url_credentials("see https://example.com, then mail ops@example.com") == \
        "see https://example.com, then mail ops@example.com"  # fmt: skip


def test_a_scp_like_git_address_loses_its_password_not_its_user_nor_an_image_digest():
    assert url_credentials("repoURL deploy:Zq8'Lr@2Wm@git.example.com:acme/x.git is another repository") == \
        "repoURL deploy:[redacted]@git.example.com:acme/x.git is another repository"  # fmt: skip
    assert url_credentials("git@github.com:acme/x.git") == "git@github.com:acme/x.git"
    image = "ghcr.io/acme/app:1.4@sha256:" + "0f" * 32
    assert url_credentials(f"image {image} is pinned") == f"image {image} is pinned"
    assert url_credentials("app:1.4@sha256:" + "0f" * 32) == "app:1.4@sha256:" + "0f" * 32


def test_query_parameters_are_read_with_the_secret_key_list_of_everything_else():
    assert redact.SECRET_KEY is SECRET_KEY  # one definition
    text = ("https://raw.example.com/a.yaml?jwt=eyJhbGciOi.x.y&pass=Hq2w&cookie=sid%3D9&bearer=Kx7&"
            "db_password=Pw9&signature=S1&key=K2&ref=main&mode=fast")  # fmt: skip
    assert url_credentials(text) == (
        "https://raw.example.com/a.yaml?jwt=[redacted]&pass=[redacted]&cookie=[redacted]&bearer=[redacted]&"
        "db_password=[redacted]&signature=[redacted]&key=[redacted]&ref=main&mode=fast")  # fmt: skip
    for word in ("jwt", "pass", "cookie", "bearer", "kubeconfig", "dsn", "mnemonic", "private_key", "otp"):
        assert SECRET_KEY.search(word), word
        assert url_credentials(f"https://h.example.com/x?{word}=Vb3nM7qP") == f"https://h.example.com/x?{word}=[redacted]"


#: RFC 3986 userinfo characters: unreserved, pct-encoded, sub-delims and ':' (and '@', which Go's
#: validUserinfo accepts and its parse reads up to the last one).
_UNRESERVED = string.ascii_letters + string.digits + "-._~"
_SUB_DELIMS = "!$&'()*+,;="
_PIECE = st.one_of(st.sampled_from(_UNRESERVED + _SUB_DELIMS + ":@"),
                   st.tuples(st.sampled_from(string.hexdigits), st.sampled_from(string.hexdigits)).map(
                       lambda pair: "%" + "".join(pair)))  # fmt: skip
_PASSWORD = st.lists(_PIECE, min_size=4, max_size=40).map("".join)
_TEMPLATES = (
    "resources entry '{scheme}://ci:{password}@git.example.com/acme/x.git//base?ref=v1' is remote",
    'repoURL "{scheme}://ci:{password}@git.example.com:8443" is another repository',
    "{scheme}://ci:{password}@git.example.com#main",
    "cannot fetch {scheme}://{password}@charts.example.com/index.yaml: 403",
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PASSWORD, st.sampled_from(("https", "http", "git+ssh", "oci", "ssh", "s3")), st.sampled_from(_TEMPLATES))
def test_no_piece_of_a_userinfo_password_is_printed(password, scheme, template):
    message = template.format(scheme=scheme, password=password)
    shown = url_credentials(message)
    around = template.format(scheme=scheme, password="")
    if "ci:" not in template and ":" in password:  # the whole userinfo: Go's user is up to its first ':'
        user, password = password.split(":", 1)
        shown = shown.replace(f"://{user}:", "://:", 1)  # the user name is shown, as it is no secret
    leaked = [password[i:i + 4] for i in range(len(password) - 3)
              if password[i:i + 4] in shown and password[i:i + 4] not in around]  # fmt: skip
    assert leaked == [], (message, shown)
    assert "[redacted]@" in shown
