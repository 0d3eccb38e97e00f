import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

SAMPLES = Path(__file__).parent / "samples"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


@dataclass
class Recorded:
    """Answers by path, given in turn (the last one repeats), and the requests seen."""

    url: str = ""
    routes: dict[str, list[tuple[int, dict, bytes]]] = field(default_factory=dict)
    requests: list[dict] = field(default_factory=list)

    def add(self, path: str, *answers) -> None:
        """Queue answers for a path: a sample's file name, a dict (served as JSON)
        or a tuple (status, headers, body)."""
        self.routes[path] = [self._answer(a) for a in answers]

    @staticmethod
    def _answer(answer) -> tuple[int, dict, bytes]:
        if isinstance(answer, tuple):
            status, headers, body = answer
            return status, headers, body.encode() if isinstance(body, str) else body
        body = answer if isinstance(answer, str) else json.dumps(answer)
        if isinstance(answer, str) and answer.endswith((".json", ".xml")):
            body = sample(answer)
        return 200, {"Content-Type": "application/json"}, body.encode()


@pytest.fixture
def source_server():
    """A loopback HTTP server serving recorded responses; nothing leaves the host."""
    recorded = Recorded()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            parts = urlsplit(self.path)
            recorded.requests.append(
                {
                    "path": parts.path,
                    "query": parts.query,
                    "headers": dict(self.headers),
                }
            )
            queue = recorded.routes.get(parts.path)
            if not queue:
                status, headers, body = 404, {}, b'{"error": "not found"}'
            else:
                status, headers, body = queue.pop(0) if len(queue) > 1 else queue[0]
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    recorded.url = f"http://127.0.0.1:{server.server_port}"
    yield recorded
    server.shutdown()
    server.server_close()
