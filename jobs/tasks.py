from celery import shared_task

from jobs import services


@shared_task(name="jobs.requeue_unavailable")
def requeue_unavailable() -> int:
    """Queue again the jobs asked for while the broker was unreachable."""
    return services.requeue_unavailable()
