"""Loopback servers for the fetch tests: a chart repository, an OCI registry and a listener that
records connections, all on 127.0.0.1, each stopped by its context manager (and bounded in time)."""

from __future__ import annotations

import hashlib
import io
import json
import socket
import tarfile
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterator

HOOK_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/sync-wave: "-1"
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: {{ .Values.image }}
          securityContext:
            privileged: true
"""


def chart_archive(name: str = "hookchart", version: str = "1.2.0", files: dict[str, bytes] | None = None,
                  links: dict[str, str] | None = None) -> bytes:  # fmt: skip
    """A chart ``.tgz`` as ``helm package`` writes it: every member under ``NAME/``."""
    members = {"Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: {version}\n".encode(),
               "values.yaml": b"image: busybox:latest\n", "templates/job.yaml": HOOK_JOB.encode()}  # fmt: skip
    members.update(files or {})
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, data in members.items():
            info = tarfile.TarInfo(f"{name}/{path}" if not path.startswith("!") else path[1:])
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
        for path, target in (links or {}).items():
            info = tarfile.TarInfo(f"{name}/{path}")
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return buffer.getvalue()


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Served:
    """What a server answers (``routes``: path -> (status, headers, body)) and what it was asked."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.port = 0
        self.hook: Callable[[str, dict[str, str]], tuple[int, dict[str, str], bytes] | None] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def http_server() -> Iterator[Served]:
    """A threaded HTTP server on 127.0.0.1 (a free port) answering :class:`Served` routes."""
    served = Served()

    class Handler(BaseHTTPRequestHandler):
        timeout = 10

        def do_GET(self) -> None:  # noqa: N802
            headers = {k.lower(): v for k, v in self.headers.items()}
            served.requests.append((self.path, headers))
            answer = served.hook(self.path, headers) if served.hook else None
            status, extra, body = answer or served.routes.get(self.path.split("?")[0], (404, {}, b"not found"))
            try:
                self.send_response(status)
                for key, value in extra.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:  # the client gave up (a limit under test)
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    served.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def chart_repository(served: Served, archive: bytes, name: str = "hookchart", version: str = "1.2.0",
                     digest: str | None = None, more: list[str] = ()) -> None:  # type: ignore[assignment]  # fmt: skip
    """Serve ``index.yaml`` listing ``archive`` as ``NAME VERSION`` (and the versions ``more``) and the archive."""
    entries = [{"version": version, "urls": [f"charts/{name}-{version}.tgz"], "digest": (digest or sha256(archive))[7:]}]
    entries += [{"version": v, "urls": [f"charts/{name}-{v}.tgz"]} for v in more]
    index = {"apiVersion": "v1", "entries": {name: entries}}
    served.routes["/index.yaml"] = (200, {"Content-Type": "text/yaml"}, json.dumps(index).encode())
    served.routes[f"/charts/{name}-{version}.tgz"] = (200, {}, archive)


def oci_registry(served: Served, archive: bytes, repository: str = "charts/hookchart", tag: str = "1.2.0",
                 layer_digest: str | None = None) -> str:  # fmt: skip
    """Serve ``archive`` as a Helm chart artifact ``REPOSITORY:TAG``; returns the manifest's digest."""
    config = json.dumps({"name": repository.rsplit("/", 1)[-1], "version": tag}).encode()
    manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                           "config": {"mediaType": "application/vnd.cncf.helm.config.v1+json",
                                      "digest": sha256(config), "size": len(config)},
                           "layers": [{"mediaType": "application/vnd.cncf.helm.chart.content.v1.tar+gzip",
                                       "digest": layer_digest or sha256(archive), "size": len(archive)}]}).encode()  # fmt: skip
    kind = {"Content-Type": "application/vnd.oci.image.manifest.v1+json"}
    served.routes[f"/v2/{repository}/tags/list"] = (200, {}, json.dumps({"name": repository, "tags": [tag.replace("+", "_")]}).encode())
    served.routes[f"/v2/{repository}/manifests/{tag.replace('+', '_')}"] = (200, {**kind, "Docker-Content-Digest": sha256(manifest)}, manifest)
    served.routes[f"/v2/{repository}/manifests/{sha256(manifest)}"] = (200, kind, manifest)
    served.routes[f"/v2/{repository}/blobs/{layer_digest or sha256(archive)}"] = (200, {}, archive)
    return sha256(manifest)


class Listener:
    """A TCP listener's ``port`` and the peers of the connections made to it (``seen``)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.seen: list[tuple[str, int]] = []


@contextmanager
def recording_listener() -> Iterator[Listener]:
    """A TCP listener on 127.0.0.1 that records every connection made to it and answers nothing."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.05)
    listener = Listener(sock.getsockname()[1])
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, peer = sock.accept()
            except OSError:
                continue
            listener.seen.append(peer)
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener
    finally:
        stop.set()
        thread.join(5)
        sock.close()
