"""The kinds of long work the apps offer, registered from their AppConfig.ready().

Each kind is a Celery task of the same name, taking the id of its Job row (or
nothing, when the schedule starts it).
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.db import models

from jobs import runner

# How long work reports how far it has come: progress(done, total, message).
Progress = Callable[[int, int, str], None]
# A running job silent for longer than its kind's time limit (no progress since
# it started or last reported) is taken as lost: its process ended without it.
DEFAULT_TIME_LIMIT = timedelta(hours=6)


@dataclass(frozen=True)
class JobKind:
    name: str
    label: str
    # Does the work on the target (None for a kind without one) and returns a
    # one-line summary; reports progress as progress(done, total, message).
    run: Callable[[Any, Progress], str]
    task: Any
    target_model: type[models.Model] | None = None
    # The permission that may start it; None leaves it to superusers.
    permission: str | None = None
    applies_to: Callable[[Any], bool] | None = None
    time_limit: timedelta = DEFAULT_TIME_LIMIT

    def allowed(self, user) -> bool:
        if self.permission is None:
            return user.is_active and user.is_superuser
        return user.has_perm(self.permission)

    def applicable(self, target: Any) -> bool:
        return self.applies_to is None or self.applies_to(target)


_kinds: dict[str, JobKind] = {}


def register(
    name: str,
    *,
    label: str,
    run: Callable[[Any, Progress], str],
    target_model: type[models.Model] | None = None,
    permission: str | None = None,
    applies_to: Callable[[Any], bool] | None = None,
    time_limit: timedelta = DEFAULT_TIME_LIMIT,
) -> JobKind:
    """Offer a kind of job under `name`, which is also its Celery task's name."""

    def perform(job_id: int | None = None) -> str:
        # Looked up when it runs, so that registering a name again takes effect.
        return runner.execute(_kinds[name], job_id)

    perform.__name__ = perform.__qualname__ = name.replace(".", "_")
    kind = JobKind(
        name=name,
        label=label,
        run=run,
        task=shared_task(name=name)(perform),
        target_model=target_model,
        permission=permission,
        applies_to=applies_to,
        time_limit=time_limit,
    )
    _kinds[name] = kind
    return kind


def get_kind(name: str) -> JobKind:
    """Return the kind registered as `name`; LookupError if there is none."""
    try:
        return _kinds[name]
    except KeyError:
        raise LookupError(f"No kind of job is registered as {name!r}.") from None


def kinds() -> dict[str, JobKind]:
    return dict(_kinds)
