"""`make serve` as a deployment runs it: gunicorn over real HTTP, static files by
whitenoise under hashed names, cached for ever and compressed."""

import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parents[2]
FOREVER = "max-age=315360000, public, immutable"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, **headers: str):
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.headers, response.read()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", str(tmp)),
        "PORT": str(port),
        "WORKERS": "1",
        "DEBUG": "0",
        "SECRET_KEY": "serve-test-0123456789abcdefghijklmnopqrstuvwxyz-0123456789",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": f"sqlite:///{tmp / 'site.sqlite3'}",
        "STATIC_ROOT": str(tmp / "static"),
        "MEDIA_ROOT": str(tmp / "media"),
    }
    log = (tmp / "serve.log").open("w")
    process = subprocess.Popen(
        ["make", "--no-print-directory", "serve"],
        cwd=BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # make, gunicorn and its workers: one group to stop
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                get(f"{base}/robots.txt")
                break
            except (urllib.error.URLError, ConnectionError):
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail((tmp / "serve.log").read_text()[-3000:])
                time.sleep(0.5)
        yield base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        log.close()


def stylesheet(base: str) -> str:
    status, _, body = get(f"{base}/")
    assert status == 200
    return re.search(rb'href="(/static/css/site\.[0-9a-f]{12}\.css)"', body)[1].decode()


def test_pages_link_static_files_by_their_hashed_names(served):
    path = stylesheet(served)
    status, headers, body = get(served + path)
    assert status == 200
    assert headers["Cache-Control"] == FOREVER
    assert body == (BASE_DIR / "static/css/site.css").read_bytes()


@pytest.mark.parametrize("encoding", ["br", "gzip"])
def test_static_files_are_sent_compressed_to_clients_that_accept_it(served, encoding):
    path = stylesheet(served)
    _, plain_headers, _ = get(served + path)
    _, headers, body = get(served + path, **{"Accept-Encoding": encoding})
    assert headers["Content-Encoding"] == encoding
    assert headers["Vary"] == "Accept-Encoding"
    assert headers["Cache-Control"] == FOREVER
    assert len(body) < int(plain_headers["Content-Length"]) / 2


def test_unhashed_names_are_served_but_not_cached_for_ever(served):
    status, headers, _ = get(f"{served}/static/css/site.css")
    assert status == 200
    assert "immutable" not in headers["Cache-Control"]
