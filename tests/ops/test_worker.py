"""A job through a real Celery worker, with the machine's Redis as broker."""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import redis

BASE_DIR = Path(__file__).resolve().parents[2]
BROKER = "redis://127.0.0.1:6379/13"
SAMPLES = BASE_DIR / "tests" / "sources" / "samples"

ORCID = "0000-0002-1825-0097"
# Starts jobs as the admin would, one after the other, and waits for the worker to
# finish each.
START_AND_WAIT = f"""
import json, time
from jobs.services import start_job
from tests import factories
member = factories.person(display_name="Josiah Carberry", orcid="{ORCID}")
for kind, target in [("sources.sync_person", member), ("search.rebuild_index", None)]:
    job = start_job(kind, target).job
    states = [job.state]
    deadline = time.monotonic() + 90
    while job.is_open and time.monotonic() < deadline:
        time.sleep(0.2)
        job.refresh_from_db()
        states.append(job.state)
    print(json.dumps({{
        "kind": kind,
        "states": sorted(set(states), key=states.index),
        "done": [job.done, job.total],
        "summary": job.summary,
        "error": job.error,
        "foreground": job.ran_in_foreground,
        "queued_at": str(job.queued_at),
    }}))
"""


@pytest.fixture
def orcid_server(tmp_path) -> Iterator[str]:
    """ORCID's public API on loopback, serving one recorded record."""
    root = tmp_path / "orcid"
    (root / ORCID).mkdir(parents=True)
    shutil.copy(SAMPLES / "orcid_record.json", root / ORCID / "record")
    handler = partial(QuietHandler, directory=str(root))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{server.server_port}"
        server.shutdown()


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def site_env(scratch_database, orcid_server, tmp_path) -> Iterator[dict[str, str]]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "DEBUG": "0",
        "SECRET_KEY": "worker-test-0123456789abcdefghijklmnopqrstuvwxyz-0123456789",
        "DATABASE_URL": scratch_database("worker"),
        "CELERY_BROKER_URL": BROKER,
        # A queue of its own: nothing else on the machine's Redis takes its jobs.
        "CELERY_QUEUE": f"test-worker-{uuid.uuid4().hex}",
        "MEDIA_ROOT": str(tmp_path / "media"),
        "ORCID_API_URL": orcid_server,
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=BASE_DIR,
        env=env,
        check=True,
        timeout=300,
    )
    yield env
    redis.Redis.from_url(BROKER).delete(env["CELERY_QUEUE"])


@pytest.fixture
def worker(site_env, tmp_path):
    log_path = tmp_path / "worker.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "directory", "worker"]
            + ["--pool", "solo", "--without-gossip", "--without-mingle"]
            + ["--loglevel", "INFO"],
            cwd=BASE_DIR,
            env=site_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield log_path
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


def test_a_worker_runs_queued_jobs_and_records_their_progress(site_env, worker):
    run = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", START_AND_WAIT],
        cwd=BASE_DIR,
        env=site_env,
        capture_output=True,
        text=True,
        timeout=240,
    )

    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    sync, rebuild = (json.loads(line) for line in lines)
    log = worker.read_text()
    order = ["queued", "running", "done"]
    for outcome in (sync, rebuild):
        # Queued, then taken by the worker. A fast worker may have taken the job
        # before start_job read it back: the states seen follow that order.
        assert outcome["queued_at"] != "None", outcome
        assert outcome["states"] == sorted(outcome["states"], key=order.index), log
        assert outcome["states"][-1] == "done", (outcome, log)
        assert not outcome["foreground"]
    assert sync["summary"].startswith("Josiah Carberry: ")
    assert "0 errors" in sync["summary"]
    assert sync["done"][0] == sync["done"][1] > 0
    assert rebuild["done"] == [3, 3]
    assert rebuild["summary"].startswith("Indexed 0 event, 1 person, ")
    assert "sources.sync_person" in log and "search.rebuild_index" in log
