"""A chart archive is read only when Go's archive/tar (Helm's loader, Argo CD's ``Untgz``) reads its
members as Python's tarfile does (attacker trial 27, B2 and B3): the fetched chart is HL009 otherwise,
a packaged subchart not read whole; what Go's own ``tar.Writer`` writes (``helm package``) still reads.
Archives are built here byte by byte and served from a loopback server started by the test."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile

import pytest
from typer.testing import CliRunner

sys.path.insert(0, os.path.dirname(__file__))

from fetch_servers import HOOK_JOB, chart_repository, http_server  # noqa: E402

from hooklint.cli import app  # noqa: E402
from hooklint.sources.fetch import FetchError, FetchPolicy, RemoteSource, fetch  # noqa: E402
from hooklint.sources.fetch.net import Hosts  # noqa: E402
from hooklint.config import parse_host_entry  # noqa: E402
from hooklint.sources.repository.charts import packaged_files  # noqa: E402
from hooklint.sources.repository.gotar import Member, go_members, tar_disagreement  # noqa: E402

runner = CliRunner()
CHART = b"apiVersion: v2\nname: hookchart\nversion: 1.2.0\n"
CONFIG_MAP = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: b\n"
GO = "Go's archive/tar (Helm, Argo CD)"


# --- archives written as Go's tar.Writer writes them (src/archive/tar/writer.go) -------------------------


def _field(block: bytearray, at: int, size: int, value: bytes) -> None:
    """Go's ``formatter.formatString``: the value, NUL-terminated when shorter than the field."""
    block[at : at + min(len(value), size)] = value[:size]
    if len(value) < size:
        block[at + len(value)] = 0


def _octal(block: bytearray, at: int, size: int, value: int) -> None:
    """Go's ``formatter.formatOctal``: zero-padded octal digits, then a NUL."""
    _field(block, at, size, format(value, "o").rjust(size - 1, "0").encode())


def _checksummed(block: bytearray, magic: bytes = b"ustar\x0000") -> bytes:
    """Go's ``block.setFormat`` (USTAR and PAX): magic ``ustar\\0``, version ``00``, the checksum
    as six octal digits, NUL, space."""
    block[257:265] = magic
    block[148:156] = b" " * 8
    _octal(block, 148, 7, sum(block))
    block[155:156] = b" "
    return bytes(block)


def _template(name: str, size: int, flag: bytes = b"0", mode: int = 0o644) -> bytearray:
    """Go's ``Writer.templateV7Plus``: name (cut to 100 bytes), mode, uid, gid, size, mtime, type,
    empty uname and gname, devmajor and devminor 0."""
    block = bytearray(512)
    _field(block, 0, 100, name.encode())
    for at, size_, value in ((100, 8, mode), (108, 8, 0), (116, 8, 0), (124, 12, size), (136, 12, 0), (329, 8, 0), (337, 8, 0)):
        _octal(block, at, size_, value)
    block[156:157] = flag
    return block


def _split(name: str) -> tuple[str, str] | None:
    """Go's ``splitUSTARPath``: a prefix of at most 155 bytes and a name of at most 100, at a ``/``."""
    length = len(name)
    if length <= 100 or not name.isascii():
        return None
    if length > 156:
        length = 156
    elif name[length - 1] == "/":
        length -= 1
    i = name[:length].rfind("/")
    if i <= 0 or len(name) - i - 1 > 100 or len(name) - i - 1 == 0 or i > 155:
        return None
    return name[:i], name[i + 1 :]


def _pax_record(key: str, value: str) -> bytes:
    """Go's ``formatPAXRecord``."""
    size = len(key) + len(value) + 3
    size += len(str(size))
    record = f"{size} {key}={value}\n"
    if len(record) != size:
        record = f"{len(record)} {key}={value}\n"
    return record.encode()


def _padded(data: bytes) -> bytes:
    return data + bytes(-len(data) % 512)


def go_member(name: str, data: bytes) -> bytes:
    """One regular file as Go's ``Writer.WriteHeader`` writes the header ``helm package`` gives it
    (``chartutil.Save``: mode 0644, mtime rounded to the second): USTAR for a name of at most 100
    bytes or one ``splitUSTARPath`` splits, else a PAX ``x`` header (``PaxHeaders.0``) holding
    ``path`` before a PAX header whose name field holds the first 100 bytes."""
    if len(name) <= 100 or _split(name):
        prefix, short = _split(name) or ("", name)
        block = _template(short, len(data))
        _field(block, 345, 155, prefix.encode())
        return _checksummed(block) + _padded(data)
    records = _pax_record("path", name)
    folder, _, file = name.rpartition("/")
    pax_name = "/".join(p for p in (folder, "PaxHeaders.0", file) if p)[:100].rstrip("/")
    pax = bytearray(512)
    _field(pax, 0, 100, pax_name.encode())
    for at, size_, value in ((100, 8, 0), (108, 8, 0), (116, 8, 0), (124, 12, len(records)), (136, 12, 0)):
        _octal(pax, at, size_, value)
    pax[156:157] = b"x"
    return _checksummed(pax) + _padded(records) + _checksummed(_template(name, len(data))) + _padded(data)


def go_archive(files: dict[str, bytes]) -> bytes:
    """A ``.tgz`` of ``files`` (name -> bytes) as Go writes it, ended by two zero blocks."""
    return gzip.compress(b"".join(go_member(n, d) for n, d in files.items()) + bytes(1024), mtime=0)


# --- headers Go and Python read otherwise ----------------------------------------------------------------


def header(name: str, size: int, flag: bytes = b"0", magic: bytes = b"ustar\x0000", patch: dict[int, bytes] | None = None) -> bytes:
    """A header of ``magic`` with the bytes ``patch`` (offset -> bytes) written over it, checksummed."""
    block = _template(name, size, flag)
    for at, value in (patch or {}).items():
        block[at : at + len(value)] = value
    return _checksummed(block, magic)


def member(name: str, data: bytes, **kw) -> bytes:
    return header(name, len(data), **kw) + _padded(data)


def pax(records: dict[str, str], flag: bytes = b"x") -> bytes:
    data = b"".join(_pax_record(k, v) for k, v in records.items())
    return header("PaxHeaders.0/x", len(data), flag) + _padded(data)


JOB = HOOK_JOB.encode()
START = member("hookchart/Chart.yaml", CHART)
GNU = b"ustar  \x00"


@pytest.mark.parametrize("raw,why", [
    (START + pax({"path": "hookchart/README.md"}, b"g") + member("hookchart/templates/job.yaml", JOB),
     f"is read otherwise by {GO} than by Python's tarfile: its member 2 is 'hookchart/templates/job.yaml' (file, "
     f"{len(JOB)} bytes at byte 2560) for Go, 'hookchart/README.md' (file, {len(JOB)} bytes at byte 2560) for Python"),
    # GNU magic: Go reads bytes 345.. as atime and ctime ("0" parses), Python as a ustar prefix
    (member("hookchart/Chart.yaml", CHART, magic=GNU, patch={345: b"0"}),
     f"is read otherwise by {GO} than by Python's tarfile: its member 1 is 'hookchart/Chart.yaml' (file, 46 bytes "
     "at byte 512) for Go, '0/hookchart/Chart.yaml' (file, 46 bytes at byte 512) for Python"),
    # V7 (no magic): no prefix at all for Go
    (member("hookchart/Chart.yaml", CHART, magic=bytes(8), patch={345: b"x"}),
     f"is read otherwise by {GO} than by Python's tarfile: its member 1 is 'hookchart/Chart.yaml' (file, 46 bytes "
     "at byte 512) for Go, 'x/hookchart/Chart.yaml' (file, 46 bytes at byte 512) for Python"),
    # GNU magic with another version: V7 for Go
    (member("hookchart/Chart.yaml", CHART, magic=b"ustar 00", patch={345: b"p"}),
     f"is read otherwise by {GO} than by Python's tarfile: its member 1 is 'hookchart/Chart.yaml' (file, 46 bytes "
     "at byte 512) for Go, 'p/hookchart/Chart.yaml' (file, 46 bytes at byte 512) for Python"),
    # star (trailer tar\0 at 508): Go's prefix is 131 bytes, Python's 155
    (member("Chart.yaml", CHART, patch={345: b"h" * 131 + b"0" * 24, 508: b"tar\x00"}),
     f"is read otherwise by {GO} than by Python's tarfile: its member 1 is '{'h' * 131}/Chart.yaml' (file, 46 bytes "
     f"at byte 512) for Go, '{'h' * 131 + '0' * 24}/Chart.yaml' (file, 46 bytes at byte 512) for Python"),
    # two PAX headers: Go keeps the last, Python applies the first over it
    (START + pax({"path": "hookchart/README.md"}) + pax({"path": "hookchart/templates/job.yaml"}) + member("x", JOB),
     f"is read otherwise by {GO} than by Python's tarfile: its member 2 is 'hookchart/templates/job.yaml' (file, "
     f"{len(JOB)} bytes at byte 3584) for Go, 'hookchart/README.md' (file, {len(JOB)} bytes at byte 3584) for Python"),
    # a PAX path after a GNU long name: Go's long name wins, Python's PAX path
    (START + pax({"path": "hookchart/README.md"}) + member("././@LongLink", b"hookchart/templates/job.yaml\x00", flag=b"L")
     + member("x", JOB),
     f"is read otherwise by {GO} than by Python's tarfile: its member 2 is 'hookchart/templates/job.yaml' (file, "
     f"{len(JOB)} bytes at byte 3584) for Go, 'hookchart/README.md' (file, {len(JOB)} bytes at byte 3584) for Python"),
    # a \0 type: a folder for Python by the name before the PAX path, a file for Go by the name after
    (START + pax({"path": "hookchart/templates/job.yaml"}) + member("hookchart/d/", JOB, flag=b"\x00"),
     f"is read otherwise by {GO} than by Python's tarfile: its member 2 is 'hookchart/templates/job.yaml' (file, "
     f"{len(JOB)} bytes at byte 2560) for Go, 'hookchart/templates/job.yaml' (folder) for Python"),
    # GNU magic, a non-ASCII field that does not parse as atime: no prefix for Go
    (member("Chart.yaml", CHART, magic=GNU, patch={345: b"h\xe9"}),
     f"is read otherwise by {GO} than by Python's tarfile: its member 1 is 'Chart.yaml' (file, 46 bytes at byte 512) "
     "for Go, 'h\\\\xe9/Chart.yaml' (file, 46 bytes at byte 512) for Python"),
    # GNU magic, atime and ctime that parse, bytes after them: no prefix for Go, all of 345..500 for Python
    (member("hookchart/Chart.yaml", CHART, magic=GNU, patch={345: b"00000000000\x00", 369: b"zzz"}),
     f"is read otherwise by {GO} than by Python's tarfile: its member 1 is 'hookchart/Chart.yaml' (file, 46 bytes at "
     "byte 512) for Go, '00000000000/hookchart/Chart.yaml' (file, 46 bytes at byte 512) for Python"),
    # a Solaris X header: PAX for Python, a file of unknown type for Go
    (START + pax({"path": "hookchart/README.md"}, b"X") + member("hookchart/templates/job.yaml", JOB),
     "holds a member of type 'X' at byte 1024, which no chart holds"),
    # a FIFO: header-only for both, but no chart holds one
    (START + member("hookchart/templates/job.yaml", b"", flag=b"6"), "holds a member of type '6' at byte 1024, which no chart holds"),
    # a zero block, then more: Python stops at the first, Go fails
    (START + bytes(512) + member("hookchart/templates/job.yaml", JOB),
     f"is not read by {GO} as by Python's tarfile: it holds a zero block at byte 1024 followed by more headers"),
])  # fmt: skip
def test_an_archive_go_reads_otherwise_is_named_so(raw, why):
    assert tar_disagreement(raw + bytes(1024)) == why


def _python_written(fmt: int) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w", format=fmt) as archive:
        for name in ("hookchart/Chart.yaml", "hookchart/templates/" + "a" * 90 + "/" + "b" * 40 + ".yaml", "hookchart/" + "c/" * 150 + "x"):
            info = tarfile.TarInfo(name)
            info.size = len(CHART)
            archive.addfile(info, io.BytesIO(CHART))
    return data.getvalue()


@pytest.mark.parametrize("raw", [
    # GNU magic whose atime does not parse and whose field is ASCII: Go's pre-1.8 fallback reads the prefix too
    member("Chart.yaml", CHART, magic=GNU, patch={345: b"hookchart"}),
    # a global header holding only a comment (git archive writes one): neither applies anything
    pax({"comment": "0123456789abcdef"}, b"g") + START,
    _python_written(tarfile.GNU_FORMAT), _python_written(tarfile.PAX_FORMAT),
])  # fmt: skip
def test_an_archive_both_read_alike_is_read(raw):
    assert tar_disagreement(raw + bytes(1024)) is None


def test_a_checksum_python_cannot_parse_stops_python_where_go_reads_on():
    """A checksum field ``\\0`` + six digits + ``\\0``: Go trims the leading NUL and reads it; Python's
    ``nts`` stops at the first NUL, reads 0, and ends the archive there, silently."""
    job = bytearray(header("hookchart/templates/job.yaml", len(JOB)))
    digits = job[148:154]
    job[148:156] = b"\x00" + digits + b"\x00"
    raw = START + bytes(job) + _padded(JOB) + bytes(1024)
    assert tar_disagreement(raw) == (f"is read otherwise by {GO} than by Python's tarfile: only {GO} reads its member "
                                     f"2, 'hookchart/templates/job.yaml' (file, {len(JOB)} bytes at byte 1536)")  # fmt: skip


def test_what_go_writes_for_helm_package_reads_alike_long_names_included():
    """``helm package`` writes with Go's archive/tar: USTAR, its prefix for names of 101-255 bytes,
    a PAX header for longer ones; Go reads back the names it wrote, and so must hooklint."""
    prefixed = "hookchart/templates/" + "a" * 90 + "/" + "b" * 60 + ".yaml"  # 176 bytes: prefix and name
    long = "hookchart/templates/" + "c" * 120 + "/" + "d" * 150 + ".yaml"  # 296 bytes: a PAX path
    files = {"hookchart/Chart.yaml": CHART, prefixed: CONFIG_MAP, long: JOB}
    raw = gzip.decompress(go_archive(files))
    assert raw[1024 + 345 : 1024 + 345 + 111] == prefixed[:110].encode() + b"\x00"  # the USTAR prefix Go wrote
    assert raw[1024 + 148 : 1024 + 156].endswith(b"\x00 ") and raw[1024 + 257 : 1024 + 265] == b"ustar\x0000"
    assert raw[2048 + 156 : 2048 + 157] == b"x"
    assert tar_disagreement(raw) is None
    assert [(m.kind, m.name.decode()) for m in go_members(raw)] == [("file", n) for n in files]
    with tarfile.open(fileobj=io.BytesIO(raw)) as archive:
        assert archive.getnames() == list(files)


def test_a_go_written_chart_with_long_names_is_fetched_whole(tmp_path):
    long = "templates/" + "c" * 120 + "/" + "d" * 150 + ".yaml"
    archive = go_archive({"hookchart/Chart.yaml": CHART, "hookchart/" + long: JOB})
    with http_server() as served:
        chart_repository(served, archive)
        fetched = fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"), policy(tmp_path, served.port))
    assert open(os.path.join(fetched.folder, long), "rb").read() == JOB


def policy(tmp_path, port: int) -> FetchPolicy:
    return FetchPolicy(hosts=Hosts([parse_host_entry(f"http://127.0.0.1:{port}", command_line=True)]), cache=str(tmp_path / "cache"))


@pytest.mark.parametrize("raw,why", [
    (START + pax({"path": "hookchart/README.md"}, b"g") + member("hookchart/templates/job.yaml", JOB),
     f"chart hookchart 1.2.0 is read otherwise by {GO} than by Python's tarfile: its member 2 is "
     f"'hookchart/templates/job.yaml' (file, {len(JOB)} bytes at byte 2560) for Go, 'hookchart/README.md' (file, "
     f"{len(JOB)} bytes at byte 2560) for Python"),
    (member("hookchart/Chart.yaml", CHART, magic=GNU, patch={345: b"0"})
     + member("hookchart/templates/job.yaml", JOB, magic=GNU, patch={345: b"0"})
     + member("Chart.yaml", CHART, magic=GNU, patch={345: b"0"}) + member("templates/cm.yaml", CONFIG_MAP, magic=GNU, patch={345: b"0"}),
     f"chart hookchart 1.2.0 is read otherwise by {GO} than by Python's tarfile: its member 1 is "
     "'hookchart/Chart.yaml' (file, 46 bytes at byte 512) for Go, '0/hookchart/Chart.yaml' (file, 46 bytes at byte 512) "
     "for Python"),
])  # fmt: skip
def test_a_fetched_archive_go_reads_otherwise_is_refused(tmp_path, raw, why):
    """Attacker trial 27, B2 (a PAX global header renaming the Job) and B3 (GNU headers whose
    atime bytes Python reads as a prefix): before, the fetch unpacked what Python read."""
    with http_server() as served:
        chart_repository(served, gzip.compress(raw + bytes(1024), mtime=0))
        with pytest.raises(FetchError) as info:
            fetch(RemoteSource("helm", served.base, "hookchart", "1.2.0"), policy(tmp_path, served.port))
    assert str(info.value) == why


APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: hc
  namespace: argocd
spec:
  project: prod
  source:
    repoURL: {url}
    chart: hookchart
    targetRevision: 1.2.0
  destination:
    server: https://kubernetes.default.svc
    namespace: hc
"""
GLOBAL_RENAMED = gzip.compress(START + member("hookchart/templates/cm.yaml", CONFIG_MAP) + pax({"path": "hookchart/README.md"}, b"g")
                               + member("hookchart/templates/job.yaml", JOB) + bytes(1024), mtime=0)  # fmt: skip


def test_lint_and_plan_of_a_fetched_chart_hiding_its_job_behind_a_global_header_is_hl009(tmp_path, monkeypatch):
    """Attacker trial 27, B2: ``lint --fetch`` exited 0 and ``plan`` showed only the ConfigMap."""
    root = tmp_path / "repo"
    (root / "apps").mkdir(parents=True)
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", str(tmp_path / "cache"))
    with http_server() as served:
        chart_repository(served, GLOBAL_RENAMED)
        (root / "apps/app.yaml").write_text(APPLICATION.format(url=served.base))
        result = runner.invoke(app, ["lint", "--format", "json", "--fetch", "--fetch-host", served.base, "apps"])
        planned = runner.invoke(app, ["plan", "--fetch", "--fetch-host", served.base, "apps"])
    found = json.loads(result.output)["findings"]
    assert result.exit_code == 1
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in found] == [("HL009", "apps/app.yaml", 10, 5)]
    assert (f"--fetch did not fetch it (chart hookchart 1.2.0 is read otherwise by {GO} than by Python's tarfile: its "
            f"member 3 is 'hookchart/templates/job.yaml' (file, {len(JOB)} bytes at byte 3584) for Go, "
            f"'hookchart/README.md' (file, {len(JOB)} bytes at byte 3584) for Python)") in found[0]["message"]  # fmt: skip
    assert "ConfigMap" not in planned.output


def test_diff_adding_such_a_chart_is_a_new_hl009(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / "apps").mkdir(parents=True)
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOOKLINT_CACHE_DIR", "off")

    def git(*args: str) -> None:
        subprocess.run(["git", *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (root / "apps/cm.yaml").write_text(CONFIG_MAP.decode())
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    with http_server() as served:
        chart_repository(served, GLOBAL_RENAMED)
        (root / "apps/app.yaml").write_text(APPLICATION.format(url=served.base))
        result = runner.invoke(app, ["diff", "--format", "json", "--fetch", "--fetch-host", served.base, "main"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.output[result.output.index("{\n"):])  # after the note on stderr
    assert [(f["rule_id"], f["path"], f["line"], f["column"]) for f in report["new"]] == [("HL009", "apps/app.yaml", 10, 5)]
    assert "is read otherwise by Go's archive/tar (Helm, Argo CD) than by Python's tarfile" in report["new"][0]["message"]


def test_a_packaged_subchart_go_reads_otherwise_is_not_read_whole():
    """The in-repository reader of ``charts/*.tgz`` (redaction) asks the same question (trial 27, B3)."""
    raw = member("sub/Chart.yaml", CHART, magic=GNU, patch={345: b"0"}) + member("sub/values.yaml", b"a: b\n") + bytes(1024)
    assert packaged_files(gzip.compress(raw))[1] is False
    assert packaged_files(go_archive({"sub/Chart.yaml": CHART, "sub/values.yaml": b"a: b\n"})) == (
        [("sub/Chart.yaml", CHART), ("sub/values.yaml", b"a: b\n")], True)


def test_member_is_the_shape_both_readers_are_compared_in():
    assert go_members(gzip.decompress(go_archive({"c/Chart.yaml": CHART}))) == [Member("file", b"c/Chart.yaml", b"", 46, 512)]


def _pax_numbered(records: dict[str, str]) -> bytes:
    """A one-file archive whose member has PAX ``records``, as Python's tarfile writes it."""
    buf = io.BytesIO()
    info = tarfile.TarInfo("hookchart/Chart.yaml")
    info.size, info.pax_headers = len(CHART), records
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as archive:
        archive.addfile(info, io.BytesIO(CHART))
    return buf.getvalue()


@pytest.mark.parametrize("records, why", [
    ({"size": "1" * 5000}, "is not read by Go's archive/tar (Helm, Argo CD) as by Python's tarfile: it holds a PAX "
                           "number Go cannot parse (b'1111111111111111111111111111111111111111')"),
    ({"uid": "9" * 20}, "is not read by Go's archive/tar (Helm, Argo CD) as by Python's tarfile: it holds a PAX "
                        "number Go cannot parse (b'99999999999999999999')"),
    ({"size": "0" * 5000 + "46"}, f"is read otherwise by {GO} than by Python's tarfile: its member 1 is "
                                  "'hookchart/Chart.yaml' (file, 46 bytes at byte 6144) for Go, 'hookchart/Chart.yaml' "
                                  "(file, 0 bytes at byte 6144) for Python"),
    ({"uid": "-0007"}, None),
])  # fmt: skip
def test_a_pax_number_of_thousands_of_digits_is_read_as_go_reads_it(records, why):
    """Go's ``strconv.ParseInt``: out of range past int64, leading zeros read; Python's ``int()``
    refuses more than 4,300 digits (a ValueError out of the check: attacker trial 27, helmint's kind)."""
    assert tar_disagreement(_pax_numbered(records)) == why
