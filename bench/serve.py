"""Real HTTP: gunicorn on loopback, driven by wrk.

Run by bench/run.py against the full-size database of each vendor:
- throughput: 2 sync workers (persistent database connections), wrk with 4
  connections and no pause, for the API list and a faceted HTML page (the median
  of three runs); then the
  resident memory of each worker after at least 1,000 requests;
- load: `make serve`'s worker count, 50 users (connections) for LOAD_SECONDS, each
  pausing 0.5-1.5 s between requests, over a mix of search, profile, API list and
  detail pages (bench/load.lua). The acceptance is zero errors;
- load with the cache cut: the same load with Redis as the cache (CACHE_URL)
  behind tests/ops/faultproxy.py, refused from OUTAGE_FROM to OUTAGE_TO seconds
  (20-40 of 60): zero 5xx required; the request log (JSON lines) gives the
  figures before, during and after the outage.
Prints one JSON document.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = str(Path(sys.executable).parent / "gunicorn")
LOAD_SECONDS = int(os.environ.get("LOAD_SECONDS", "60"))
THROUGHPUT_SECONDS = int(os.environ.get("THROUGHPUT_SECONDS", "10"))
REDIS_PORT = int(os.environ.get("BENCH_REDIS_PORT", "6379"))
OUTAGE_FROM, OUTAGE_TO = 20, 40


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, workers: int, log=None, **extra_env: str) -> None:
        self.port = free_port()
        env = {
            **os.environ,
            **extra_env,
            "DEBUG": "0",
            "SECURE_SSL_REDIRECT": "0",
            "ALLOWED_HOSTS": "127.0.0.1",
            # Both throttles key anonymous clients by address; lift both.
            "API_ANON_RATE": "100000000/minute",
            "API_USER_RATE": "100000000/minute",
        }
        self.process = subprocess.Popen(
            [
                GUNICORN,
                "directory.wsgi:application",
                "--workers",
                str(workers),
                "--bind",
                f"127.0.0.1:{self.port}",
                "--preload",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
            stderr=log,
        )
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
        [
            "wrk",
            "--threads",
            "2",
            "--connections",
            str(connections),
            "--duration",
            f"{seconds}s",
            "--timeout",
            "10s",
            "--latency",
            "--script",
            str(ROOT / "bench" / "load.lua"),
            server.url("/"),
            "--",
            *paths,
        ],
        env={**os.environ, "THINK_MS": think},
        capture_output=True,
        text=True,
        check=True,
    )
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


def outage_load(paths: list[str], workers: int) -> dict:
    """The load run with Redis as the cache, cut in the middle of it."""
    sys.path.insert(0, str(ROOT))
    import redis

    from tests.ops.faultproxy import FaultProxy

    redis.Redis(port=REDIS_PORT, db=11).flushdb()
    with FaultProxy(REDIS_PORT) as proxy, tempfile.TemporaryFile("w+") as log:
        server = Server(
            workers,
            log=log,
            LOG_FORMAT="json",
            CACHE_URL=proxy.url("redis://127.0.0.1:{port}/11"),
        )
        try:
            wrk(server, paths, 5, 10, "0-0")
            log.truncate(0)
            started = time.time()
            cut = threading.Timer(OUTAGE_FROM, proxy.cut)
            restore = threading.Timer(OUTAGE_TO, proxy.restore)
            cut.start(), restore.start()
            overall = wrk(server, paths, LOAD_SECONDS, 50, "500-1500")
        finally:
            server.stop()
        log.seek(0)
        lines = [json.loads(x) for x in log if x.startswith("{")]
    requests = [x for x in lines if x["logger"] == "core.requests"]
    phases = {}
    for name, low, high in (
        ("before", 0, OUTAGE_FROM),
        ("during", OUTAGE_FROM, OUTAGE_TO),
        ("after", OUTAGE_TO, LOAD_SECONDS + 5),
    ):
        times = sorted(
            x["duration_ms"]
            for x in requests
            if low <= datetime.fromisoformat(x["time"]).timestamp() - started < high
        )
        phases[name] = {
            "requests": len(times),
            "p50_ms": times[len(times) // 2] if times else None,
            "p99_ms": times[int(len(times) * 0.99)] if times else None,
        }
    return {
        "workers": workers,
        "users": 50,
        "think_ms": "500-1500",
        "outage_s": [OUTAGE_FROM, OUTAGE_TO],
        **overall,
        "status_5xx": sum(1 for x in requests if x["status"] >= 500),
        "cache_warnings": sum(1 for x in lines if x["logger"] == "core.cache"),
        "phases": phases,
    }


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
    report["load_cache_cut"] = outage_load(paths["mix"], workers)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
