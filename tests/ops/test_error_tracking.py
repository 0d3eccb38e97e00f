"""Errors reach the error tracker when SENTRY_DSN is set (sentry-sdk installed from
requirements-sentry.txt), here a local HTTP server standing in for Sentry."""

import gzip
import http.server
import subprocess
import threading
from pathlib import Path

import brotli
import pytest

from tests.processes import django_process

BASE_DIR = Path(__file__).resolve().parents[2]
pytest.importorskip("sentry_sdk")

FAILING_REQUEST = (
    "import sentry_sdk; "
    "from django.test import Client; from directory import views; "
    "views.HomeView.get = lambda *a, **k: 1 / 0; "
    "print(Client(raise_request_exception=False).get('/').status_code); "
    "sentry_sdk.flush(5)"
)


@pytest.fixture
def tracker():
    received: list[bytes] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            encoding = self.headers.get("Content-Encoding")
            if encoding == "gzip":
                body = gzip.decompress(body)
            elif encoding == "br":
                body = brotli.decompress(body)
            received.append(body)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://public@127.0.0.1:{server.server_address[1]}/1", received
    server.shutdown()


def run(**env: str) -> subprocess.CompletedProcess:
    return django_process(FAILING_REQUEST, **env)


def test_a_server_error_is_reported_when_a_dsn_is_set(tracker):
    dsn, received = tracker
    done = run(SENTRY_DSN=dsn)
    assert done.stdout.strip() == "500", done.stderr
    assert any(b"ZeroDivisionError" in body for body in received)


def test_nothing_is_reported_without_a_dsn(tracker):
    _, received = tracker
    assert run().stdout.strip() == "500"
    assert received == []
