"""A real nginx running ``deploy/nginx.conf`` in front of a test's server, for the tests of the
shipped proxy (``test_hardening.py``, ``test_slow_http.py``). The file is changed only in where
nginx listens, where its upstream is, where it finds its certificate and keeps its files, and in
the ``changes`` a test asks for (shorter timeouts); its certificate is a self-signed one made by
``deploy/tls-cert.sh``, as on a deployment's first start."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from server.config import REPO
from tests.live import free_port

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
needs_nginx = pytest.mark.skipif(not Path(NGINX).exists(), reason="needs nginx (.ci/run)")
CERTS = "/etc/nginx/certs/"  # where deploy/nginx.conf reads fullchain.pem and privkey.pem
TEMP_PATHS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


@dataclass
class Nginx:
    """A running nginx: its plain HTTP and its HTTPS base URLs, access log and certificate."""

    http: str  # http://127.0.0.1:PORT, the shipped config's port 80
    https: str  # https://127.0.0.1:PORT, its port 443
    log: Path
    certificate: Path  # self-signed, for 127.0.0.1 among others

    def tls(self) -> ssl.SSLContext:
        """A client context that trusts this nginx's certificate (and nothing else)."""
        return ssl.create_default_context(cafile=self.certificate)

    @property
    def https_port(self) -> int:
        return int(self.https.rsplit(":", 1)[1])

    @property
    def http_port(self) -> int:
        return int(self.http.rsplit(":", 1)[1])


@contextmanager
def nginx_before(app: str, changes: dict[str, str] | None = None) -> Iterator[Nginx]:
    """A real nginx running ``deploy/nginx.conf`` in front of the server at ``app``
    (``http://host:port``), reaching it from 127.0.0.2 (the trusted proxy's address), with each
    of ``changes`` (text of the file: its replacement) made too."""
    assert shutil.which("openssl"), "the proxy tests make their certificate with openssl"
    http_port, https_port = free_port(), free_port()
    while https_port == http_port:
        https_port = free_port()
    work = Path(tempfile.mkdtemp(prefix="junqi-nginx-"))
    work.chmod(0o755)  # nginx's workers (not root) keep request bodies under it
    certs = work / "certs"
    # the certificate a first start makes (docker-compose.yml's `certs` service)
    subprocess.run(["sh", str(REPO / "deploy/tls-cert.sh"), str(certs)], check=True)
    log = work / "access.log"
    conf = (REPO / "deploy/nginx.conf").read_text()
    upstream = app.removeprefix("http://")
    for old, new in {
        "        server app1:8000 max_fails=1 fail_timeout=5s;\n": f"server {upstream};\n",
        "        server app2:8000 max_fails=1 fail_timeout=5s;\n": "",
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        "listen 443 ssl;": f"listen 127.0.0.1:{https_port} ssl;",
        CERTS: f"{certs}/",
        "/var/log/nginx/access.log": str(log),
        "proxy_pass http://junqi;": "proxy_pass http://junqi;\n proxy_bind 127.0.0.2;",
        "http {": "http {\n" + "".join(f" {k}_temp_path {work / k};" for k in TEMP_PATHS),
        **(changes or {}),
    }.items():
        assert old in conf, old
        conf = conf.replace(old, new)
    (work / "nginx.conf").write_text(conf)
    globals_ = f"daemon off; pid {work / 'nginx.pid'}; error_log {work / 'error.log'};"
    process = subprocess.Popen([NGINX, "-p", str(work), "-c", "nginx.conf", "-g", globals_])
    try:
        for port in (http_port, https_port):
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert process.poll() is None, (work / "error.log").read_text()
                    time.sleep(0.05)
        yield Nginx(
            http=f"http://127.0.0.1:{http_port}",
            https=f"https://127.0.0.1:{https_port}",
            log=log,
            certificate=certs / "fullchain.pem",
        )
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(work, ignore_errors=True)
