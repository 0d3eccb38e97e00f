"""What asking for a job costs the request that asks, per broker, and the health
check's time: `python bench/jobs.py` (brokers on this machine; results to
bench/results/jobs.md). Run with a scratch DATABASE_URL; it writes jobs there."""

import os
import socket
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")
os.environ.setdefault("DEBUG", "1")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from directory.celery import app  # noqa: E402
from jobs.health import broker_check  # noqa: E402
from jobs.models import Job  # noqa: E402
from jobs.registry import register  # noqa: E402
from jobs.services import start_job  # noqa: E402

RUNS = 30
QUEUE = f"bench-jobs-{os.getpid()}"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def use(broker: str | None) -> None:
    app.conf.update(broker_url=broker, task_default_queue=QUEUE)
    # Celery keeps its pool of connections to the first broker URL it was given.
    app._pool = None
    app.amqp._producer_pool = None


def ms(samples: list[float]) -> str:
    cuts = statistics.quantiles(samples, n=20)
    return f"{statistics.median(samples) * 1000:.1f} | {cuts[18] * 1000:.1f}"


def main() -> None:
    call_command("migrate", verbosity=0)
    register("bench.noop", label="Nothing", run=lambda target, progress: "")
    brokers = {
        "none (a thread here)": None,
        "Redis 127.0.0.1:6379": "redis://127.0.0.1:6379/12",
        "RabbitMQ 127.0.0.1:5672": "amqp://guest:guest@127.0.0.1:5672//",
        "Redis, closed port": f"redis://127.0.0.1:{closed_port()}/0",
        "RabbitMQ, closed port": f"amqp://guest:guest@127.0.0.1:{closed_port()}//",
    }
    rows = []
    for name, url in brokers.items():
        use(url)
        starts, checks, states = [], [], set()
        for _ in range(RUNS):
            began = time.perf_counter()
            job = start_job("bench.noop").job
            starts.append(time.perf_counter() - began)
            states.add(job.state)
            Job.objects.filter(pk=job.pk).update(state=Job.State.DONE)
            began = time.perf_counter()
            status = broker_check()["status"]
            checks.append(time.perf_counter() - began)
        rows.append(
            f"| {name} | {ms(starts)} | {', '.join(sorted(states))} | "
            f"{ms(checks)} | {status} |"
        )
    use("redis://127.0.0.1:6379/12")
    app.connection_for_write().default_channel.queue_delete(QUEUE)
    use("amqp://guest:guest@127.0.0.1:5672//")
    app.connection_for_write().default_channel.queue_delete(QUEUE)
    report = "\n".join(
        [
            f"# Asking for a job ({time.strftime('%Y-%m-%d %H:%M')} UTC, "
            f"{os.cpu_count()} cores, {RUNS} runs each, a job that does nothing)",
            "",
            "`start_job` as the admin's button calls it (a row written, then the "
            "message published; without a broker a thread of this process started), and "
            "`jobs.health.broker_check()` as /readyz calls it. ms:",
            "",
            "| broker | start p50 | p95 | job state | health p50 | p95 | health |",
            "|---|---:|---:|---|---:|---:|---|",
            *rows,
            "",
        ]
    )
    (ROOT / "bench" / "results" / "jobs.md").write_text(report)
    print(report)


if __name__ == "__main__":
    main()
