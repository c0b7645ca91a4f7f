"""Secret values of a chart's plain-text files that a template prints with ``fail (.Files.Get
...)`` (attacker trial 25): the file reader worked line by line on single-line forms, so these were
printed as written.

- B1: multi-line values (TOML ``\"\"\"`` and ``'''``, an INI continuation line, a properties ``\\``
  continuation, a quoted multi-line env value, a ``password: |`` block, a Terraform here-document)
  and the values of a TOML or INI section whose name names a secret (``[users.password]``);
- B2: XML forms: CDATA, a namespace prefix, line breaks inside tags and before an attribute's
  ``=``, a comment inside the element, Java's ``<entry key="db.password">`` and Hadoop's
  ``<name>``/``<value>``;
- B3: a file whose extension names a secret (``db.password``, ``api.token``, ``users.htpasswd``), a
  file in a folder that names one (``secrets/db.txt``, ``credentials/db``);
- B4: ``.npmrc``'s ``//registry.npmjs.org/:_authToken=...``;
- B15: a Dockerfile's ``ENV``, PHP's ``define``, a command line's ``--password``, a JavaScript
  object, commented-out lines, a private key block in any file.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import write
from hooklint.cli import app
from hooklint.sources.render import redact
from hooklint.sources.render.helm import find_helm
from hooklint.sources.render.redact import SecretValues, secret_values

needs_helm = pytest.mark.skipif(find_helm() is None, reason="no Helm: neither a helm binary nor helm-python-sdk")

SECRET = "Zq9xW7vK2mPLr4"
CHART = "apiVersion: v2\nname: c\nversion: 1.0.0\n"
HEAD = "c/templates/a.yaml:1:3: error HL007 render-failed: Rendering failed: execution error at (c/templates/a.yaml:1:3): boom "
TAIL = (". Argo CD's repo server fails the same way, so the application cannot sync; nothing of it is checked "
        "until it renders.")  # fmt: skip


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _plain(name: str, text: str, folders: tuple[str, ...] = ()) -> dict[str, str]:
    found = SecretValues()
    if folders:
        redact._plain_text(name, text, found, folders)
    else:
        redact._plain_text(name, text, found)
    assert found.incomplete == []
    return found.secrets


def _printed(repo, name: str, text: str) -> tuple[int, str]:
    """The exit code and first line of ``hooklint lint c`` on a chart whose template fails with
    the text of ``files/NAME``; the output must not hold the secret."""
    write(repo, {"c/Chart.yaml": CHART, f"c/files/{name}": text,
                 "c/templates/a.yaml": '{{ fail (printf "boom %s" (.Files.Get "files/' + name + '")) }}\n'})  # fmt: skip
    result = CliRunner().invoke(app, ["lint", "--no-cache", "c"])
    assert SECRET not in result.output
    return result.exit_code, result.output.splitlines()[0]


# B1: multi-line values


@pytest.mark.parametrize("name, text, expected", [
    ("app.toml", f'password = """\n{SECRET}\n"""\n', {SECRET: "password"}),  # t1
    ("app.toml", f"password = '''\n{SECRET}'''\n", {SECRET: "password"}),  # t2
    ("app.ini", f"[db]\npassword =\n    {SECRET}\nuser = app\n", {SECRET: "password"}),  # i1
    ("app.properties", f"password = \\\n    {SECRET}\nuser = app\n", {SECRET: "password"}),  # p1
    (".env", f'PASSWORD="abc\n{SECRET}"\nUSER=app\n', {f"abc\n{SECRET}": "PASSWORD"}),  # e1
    ("app.conf", f"db:\n  password: |\n    {SECRET}\n  user: app\n", {SECRET: "password"}),  # c1
    ("app.txt", f"password: >-\n  {SECRET}\n\nuser: app-user-1\n", {SECRET: "password"}),  # c2, ended by a blank line
    ("main.tf", f'variable "x" {{\n  password = <<EOT\n{SECRET}\nEOT\n}}\n', {SECRET: "password"}),  # h1
    ("main.tf", f'password = <<-"EOT"\n  {SECRET}\n  EOT\nuser = "app-user-1"\n', {SECRET: "password"}),
    ("app.toml", f'[[users]]\nname="a"\n[users.password]\nvalue = "{SECRET}"\n[other]\nvalue = "app-user-1"\n',
     {SECRET: "value"}),  # t6
    ("app.ini", f"[credentials]\nadmin = {SECRET}\n", {SECRET: "admin"}),
    ("app.ini", f"[db]\npassword = abc\n    {SECRET}\nuser = app\n", {f"abc\n{SECRET}": "password"}),  # configparser
    ("app.toml", f'password = """\n\n{SECRET}\n"""\n', {SECRET: "password"}),  # a blank first line
    ("app.ini", f"db_pin = {SECRET}\n", {SECRET: "db_pin"}),  # a key SECRET_KEY matches at its end only
    (".env", f'PASSWORD="abc\\"\n{SECRET}"\nUSER=app\n', {f'abc\\"\n{SECRET}': "PASSWORD"}),  # an escaped quote
    ("app.conf", f"password: |\n  line-one\n\n  {SECRET}\nuser: app\n", {f"line-one\n{SECRET}": "password"}),
    ("app.ini", f"[db]\npassword =\n\n    {SECRET}\nuser = app\n", {SECRET: "password"}),  # blank lines inside
    ("app.conf", "password = x\n\n  user = app-user-1\n", {}),  # a blank line after a value of one line ends it
    ("app.json5", f'{{\n  "password":\n      "{SECRET}",\n  "user": "app-user-1"\n}}\n', {SECRET: "password"}),
])  # fmt: skip
def test_multi_line_values_and_secret_sections_are_read(name, text, expected):
    assert _plain(name, text) == expected


def test_a_value_that_never_closes_is_read_within_bounds():
    """At most 1,000 lines a value; a file of values that open and never close is read in linear
    time, and left incomplete past the budget (the renderer's message is then not shown)."""
    assert _plain("app.toml", 'password = """\n' + "".join(f"line-{i:06d}\n" for i in range(1500))) == {
        "\n".join(f"line-{i:06d}" for i in range(1000)): "password"}
    found = SecretValues()
    redact._plain_text("app.conf", "password = <<EOF\n" * 60_000, found)
    assert found.incomplete == ["app.conf opens more multi-line values than hooklint reads"]


@needs_helm
def test_a_multi_line_value_is_not_printed(repo):
    assert _printed(repo, "app.toml", f'password = """\n{SECRET}\n"""\n') == (
        1, f'{HEAD}password = """ [the value of `password`] """{TAIL}')


# B2: XML


@pytest.mark.parametrize("text, expected", [
    (f"<c><password><![CDATA[{SECRET}]]></password></c>", {SECRET: "password"}),  # x1
    (f'<c><ns:password xmlns:ns="u">{SECRET}</ns:password></c>', {SECRET: "password"}),  # x8
    (f"<c>\n<password\n>{SECRET}</password\n></c>", {SECRET: "password"}),  # x6
    (f'<c password\n="{SECRET}"/>', {SECRET: "password"}),  # x10
    (f"<c><pass>{SECRET}<!-- c --></pass></c>", {SECRET: "pass"}),  # x9
    (f'<properties><entry key="db.password">{SECRET}</entry><entry key="user">app-user-1</entry></properties>',
     {SECRET: "db.password"}),  # x2
    (f"<configuration><property><name>db.password</name><value>{SECRET}</value></property>"
     "<property><name>db.user</name><value>app-user-1</value></property></configuration>", {SECRET: "db.password"}),  # x3
    (f"<property>\n  <name>db.password</name>\n  <description>the one</description>\n  <value>{SECRET}</value>\n"
     "</property>", {SECRET: "db.password"}),
    (f"<c><token><![CDATA[a<b]]>{SECRET}</token><!-- <password>x</password> --></c>", {f"a<b{SECRET}": "token"}),
    (f"<c><!-- <password>{SECRET}</password> --></c>", {SECRET: "password"}),  # commented out
    (f"<c><password><string>{SECRET}</string></password></c>", {SECRET: "password"}),  # its only child's text
    (f'<beans><property name="password" value="{SECRET}"/><property name="dbPassword"><value>{SECRET}B</value>'
     "</property></beans>", {SECRET: "password", f"{SECRET}B": "dbPassword"}),  # Spring
])  # fmt: skip
def test_xml_forms_are_read(text, expected):
    assert _plain("app.xml", text) == expected


def test_xml_is_read_in_linear_time():
    """A count, not a timing: unclosed CDATA sections, comments and start tags find nothing."""
    assert _plain("app.xml", "<![CDATA[" * 20_000 + "<!--" * 20_000 + "<password " * 20_000) == {}


@needs_helm
def test_an_xml_cdata_value_is_not_printed(repo):
    assert _printed(repo, "app.xml", f"<c><password><![CDATA[{SECRET}]]></password></c>\n") == (
        1, f"{HEAD}<c><password><![CDATA[[the value of `password`]]]></password></c>{TAIL}")


# B3: file and folder names


@pytest.mark.parametrize("name, folders, text, expected", [
    ("db.password", (), f"{SECRET}\n", {f"{SECRET}\n": "db.password"}),  # n3
    ("api.token", (), f"{SECRET}\n", {f"{SECRET}\n": "api.token"}),  # n15
    ("users.htpasswd", (), f"admin:{SECRET}\n", {f"admin:{SECRET}\n": "users.htpasswd"}),  # n5
    ("db.txt", ("c", "files", "secrets"), f"{SECRET}\n", {f"{SECRET}\n": "secrets"}),  # n1
    ("db", ("c", "files", "credentials"), f"{SECRET}\n", {f"{SECRET}\n": "credentials"}),  # n2
    ("db.txt", ("c", "files", "docs"), f"{SECRET}\n", {}),
    ("deploy.ppk", (), f"PuTTY-User-Key-File-2: ssh-rsa\nPrivate-Lines: 1\n{SECRET}\n",
     {f"PuTTY-User-Key-File-2: ssh-rsa\nPrivate-Lines: 1\n{SECRET}\n": "deploy"}),
])  # fmt: skip
def test_a_file_named_or_filed_as_a_secret_is_one_whole(name, folders, text, expected):
    assert {value.strip(): key for value, key in _plain(name, text, folders).items()} == {
        value.strip(): key for value, key in expected.items()}


def test_the_folders_are_those_of_the_path_from_the_repository_top(tmp_path):
    """``_file_text`` passes the folders of the input's path inside the repository, not above it."""
    write(tmp_path / "secrets", {"repo/c/files/credentials/db": f"{SECRET}\n", "repo/c/files/db.txt": "other-value-1\n"})
    root = tmp_path / "secrets" / "repo"
    found = secret_values([str(root / "c/files/credentials/db"), str(root / "c/files/db.txt")], str(root))
    assert found.secrets == {SECRET: "credentials"}


@needs_helm
@pytest.mark.parametrize("name, shown", [("db.password", "db.password"), ("secrets/db.txt", "secrets")])
def test_a_file_named_as_a_secret_is_not_printed(repo, name, shown):
    assert _printed(repo, name, f"{SECRET}\n") == (1, f"{HEAD}[the value of `{shown}`]{TAIL}")


# B4: .npmrc


@pytest.mark.parametrize("line, key", [
    (f"//registry.npmjs.org/:_authToken={SECRET}", "_authToken"),  # n11
    (f"x:_authToken={SECRET}", "x:_authToken"),  # n19: the key up to the first =
])  # fmt: skip
def test_an_npmrc_token_is_read(line, key):
    assert _plain(".npmrc", f"{line}\nregistry=https://registry.npmjs.org/\n") == {SECRET: key}


@needs_helm
def test_an_npmrc_token_is_not_printed(repo):
    assert _printed(repo, ".npmrc", f"//registry.npmjs.org/:_authToken={SECRET}\n") == (
        1, f"{HEAD}//registry.npmjs.org/:_authToken=[the value of `_authToken`]{TAIL}")


# B15: other spellings


@pytest.mark.parametrize("name, text, expected", [
    ("Dockerfile", f"FROM x\nENV DB_PASSWORD {SECRET}\nENV API_TOKEN={SECRET}B\n",
     {SECRET: "DB_PASSWORD", f"{SECRET}B": "ENV API_TOKEN"}),  # d1
    ("wp-config.php", f"<?php define('DB_PASSWORD', '{SECRET}'); define('DB_USER', 'app-user-1');",
     {SECRET: "DB_PASSWORD"}),  # w1
    ("backup.sh", f"mysqldump --password {SECRET} db\ncurl --token={SECRET}C x\n",
     {SECRET: "password", f"{SECRET}C x": "curl --token", f"{SECRET}C": "token"}),  # w5
    ("config.js", f'const config = {{ password: "{SECRET}", user: "app-user-1" }};', {SECRET: "password"}),  # w9
    ("app.properties", f"# password={SECRET}\nuser=app-user-1\n", {SECRET: "password"}),  # cm2
    ("deploy_key", f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}AAAA\n-----END OPENSSH PRIVATE KEY-----\n",
     {f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}AAAA\n-----END OPENSSH PRIVATE KEY-----": "private key"}),  # n7
    ("notes.txt", f"see\n-----BEGIN RSA PRIVATE KEY-----\n{SECRET}\n-----END RSA PRIVATE KEY-----\ndone\n",
     {f"-----BEGIN RSA PRIVATE KEY-----\n{SECRET}\n-----END RSA PRIVATE KEY-----": "private key"}),
])  # fmt: skip
def test_other_spellings_are_read(name, text, expected):
    assert _plain(name, text) == expected


def test_a_commented_out_line_of_a_yaml_file_is_read(tmp_path):
    """cm1: the parse drops comments; the renderer prints the file with them."""
    write(tmp_path, {"c/files/app.yaml": f"db:\n  # password: {SECRET}\n  user: app-user-1 # token: {SECRET}B\n"})
    assert secret_values([str(tmp_path / "c/files/app.yaml")], str(tmp_path)).secrets == {
        SECRET: "password", f"{SECRET}B": "token"}


@needs_helm
@pytest.mark.parametrize("name, text, printed", [
    ("Dockerfile", f"FROM x\nENV DB_PASSWORD {SECRET}\n", "FROM x ENV DB_PASSWORD [the value of `DB_PASSWORD`]"),
    ("app.yaml", f"db:\n  # password: {SECRET}\n  user: app\n", "db: # password: [the value of `password`] user: app"),
    ("deploy_key", f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}AAAA\n-----END OPENSSH PRIVATE KEY-----\n",
     "[redacted]"),
])  # fmt: skip
def test_other_spellings_are_not_printed(repo, name, text, printed):
    assert _printed(repo, name, text) == (1, f"{HEAD}{printed}{TAIL}")
