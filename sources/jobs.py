"""Syncing members from ORCID and OpenAlex as jobs: one member, or all of them."""

from datetime import timedelta

from django.db.models import Q

from jobs.registry import Progress, register
from jobs.runner import JobFailed
from people.models import Person
from sources.sync import SyncReport, sync_person

PERMISSION = "people.change_person"


def connected_members():
    """The members with an ORCID iD or an OpenAlex id, in slug order."""
    return Person.objects.filter(~Q(orcid="") | ~Q(openalex_id="")).order_by("slug")


def is_connected(person: Person) -> bool:
    return bool(person.orcid or person.openalex_id)


def sync_one(person: Person, progress: Progress) -> str:
    report = sync_person(person, progress=progress)
    if report.errors:
        raise JobFailed(report.summary())
    return report.summary()


def sync_all(_target: None, progress: Progress) -> str:
    """Sync every connected member in turn; one failing does not stop the rest."""
    members = list(connected_members())
    total = SyncReport(f"{len(members)} member{'' if len(members) == 1 else 's'}")
    for done, person in enumerate(members):
        progress(done, len(members), person.display_name)
        report = sync_person(person)
        for count in ("created", "updated", "candidates", "unchanged", "errors"):
            setattr(total, count, getattr(total, count) + getattr(report, count))
        if report.errors:
            total.messages.append(report.summary())
    progress(len(members), len(members), "All members synced")
    if total.errors:
        raise JobFailed(total.summary())
    return total.summary()


def register_jobs() -> None:
    register(
        "sources.sync_person",
        label="Sync from ORCID and OpenAlex",
        run=sync_one,
        target_model=Person,
        permission=PERMISSION,
        applies_to=is_connected,
        # Two sources, each call bounded by its timeouts and retries.
        time_limit=timedelta(minutes=15),
    )
    register(
        "sources.sync_all",
        label="Sync all members from ORCID and OpenAlex",
        run=sync_all,
        permission=PERMISSION,
        time_limit=timedelta(minutes=30),  # progress is reported after each member
    )
