"""Real HTTP: gunicorn on loopback, driven by wrk.

Run by bench/run.py against the full-size database of each vendor:
- throughput: 2 sync workers (persistent database connections), wrk with 4
  connections and no pause, for the API list and a faceted HTML page (the median
  of three runs); then the
  resident memory of each worker after at least 1,000 requests;
- load: `make serve`'s worker count, 50 users (connections) for LOAD_SECONDS, each
  pausing 0.5-1.5 s between requests, over a mix of search, profile, API list and
  detail pages (bench/load.lua). The acceptance is zero errors.
Prints one JSON document.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = str(Path(sys.executable).parent / "gunicorn")
LOAD_SECONDS = int(os.environ.get("LOAD_SECONDS", "60"))
THROUGHPUT_SECONDS = int(os.environ.get("THROUGHPUT_SECONDS", "10"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, workers: int) -> None:
        self.port = free_port()
        env = {
            **os.environ,
            "DEBUG": "0",
            "SECURE_SSL_REDIRECT": "0",
            "ALLOWED_HOSTS": "127.0.0.1",
            # Both throttles key anonymous clients by address; lift both.
            "API_ANON_RATE": "100000000/minute",
            "API_USER_RATE": "100000000/minute",
        }
        self.process = subprocess.Popen(
            [GUNICORN, "directory.wsgi:application", "--workers", str(workers),
             "--bind", f"127.0.0.1:{self.port}", "--preload", "--log-level", "warning"],
            cwd=ROOT, env=env,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("gunicorn did not start")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def worker_rss_mb(self) -> list[float]:
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        sizes = []
        for pid in children.read_text().split():
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes.append(round(int(line.split()[1]) / 1024, 1))
        return sizes

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def wrk(
    server: Server, paths: list[str], seconds: int, connections: int, think: str
) -> dict:
    done = subprocess.run(
        ["wrk", "--threads", "2", "--connections", str(connections),
         "--duration", f"{seconds}s", "--timeout", "10s", "--latency",
         "--script", str(ROOT / "bench" / "load.lua"), server.url("/"), "--", *paths],
        env={**os.environ, "THINK_MS": think}, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    line = next(x for x in done.stdout.splitlines() if x.startswith("JSON "))
    return json.loads(line[5:])


def median_run(server: Server, path: str) -> dict:
    """Three runs of THROUGHPUT_SECONDS; the one with the median rate, and all rates.

    The machines here are shared: the same run varies by a fifth from minute to
    minute."""
    runs = sorted(
        (wrk(server, [path], THROUGHPUT_SECONDS, 4, "0-0") for _ in range(3)),
        key=lambda run: run["rps"],
    )
    return {**runs[1], "all_rps": [run["rps"] for run in runs]}


def main() -> None:
    paths = json.loads(os.environ["BENCH_PATHS"])
    report = {}
    server = Server(workers=2)
    try:
        # Warm both workers (caches, connections) before measuring.
        for path in (paths["api_list"], paths["faceted"]):
            wrk(server, [path], 3, 4, "0-0")
        report["throughput"] = {
            name: median_run(server, paths[name]) for name in ("api_list", "faceted")
        }
        report["throughput"]["paths"] = {k: paths[k] for k in ("api_list", "faceted")}
        report["worker_rss_mb"] = server.worker_rss_mb()
    finally:
        server.stop()
    workers = 2 * (os.cpu_count() or 1) + 1
    server = Server(workers=workers)
    try:
        wrk(server, paths["mix"], 5, 10, "0-0")
        report["load"] = {
            "workers": workers,
            "users": 50,
            "think_ms": "500-1500",
            **wrk(server, paths["mix"], LOAD_SECONDS, 50, "500-1500"),
            "paths": paths["mix"],
        }
    finally:
        server.stop()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
