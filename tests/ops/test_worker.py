"""A job through a real Celery worker, with the machine's Redis as broker."""

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis

BASE_DIR = Path(__file__).resolve().parents[2]
BROKER = "redis://127.0.0.1:6379/13"

# Starts a job as the admin would, then waits for the worker to finish it.
START_AND_WAIT = """
import json, time
from jobs.models import Job
from jobs.services import start_job
from tests import factories
factories.person(display_name="Grace Hopper")
job = start_job("search.rebuild_index").job
states = [job.state]
deadline = time.monotonic() + 90
while job.is_open and time.monotonic() < deadline:
    time.sleep(0.2)
    job.refresh_from_db()
    states.append(job.state)
print(json.dumps({
    "states": sorted(set(states), key=states.index),
    "done": [job.done, job.total],
    "summary": job.summary,
    "foreground": job.ran_in_foreground,
}))
"""


@pytest.fixture
def site_env(scratch_database, tmp_path) -> dict[str, str]:
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


def test_a_worker_runs_a_queued_job_and_records_its_progress(site_env, worker):
    run = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", START_AND_WAIT],
        cwd=BASE_DIR,
        env=site_env,
        capture_output=True,
        text=True,
        timeout=150,
    )

    assert run.returncode == 0, run.stderr
    outcome = json.loads(run.stdout.strip().splitlines()[-1])
    log = worker.read_text()
    assert outcome["states"][0] == "queued", log
    assert outcome["states"][-1] == "done", log
    assert outcome == {
        "states": outcome["states"],
        "done": [3, 3],
        "summary": "Indexed 0 event, 1 person, 0 publication.",
        "foreground": False,
    }
    assert "search.rebuild_index" in log
    assert "succeeded" in log
