"""Refresh one member from the sources they are connected to (ORCID, OpenAlex)."""

import logging
from dataclasses import dataclass, field

from django.db import DatabaseError

from jobs.registry import Progress
from people.models import Person
from sources.clients import fetch_openalex_author, fetch_orcid_record
from sources.http import SourceError, new_session
from sources.importer import (
    ImportProblem,
    ImportReport,
    import_openalex,
    import_orcid_record,
)
from sources.targets import WriteError

logger = logging.getLogger(__name__)


@dataclass
class SyncReport:
    person: str
    created: int = 0
    updated: int = 0
    candidates: int = 0
    unchanged: int = 0
    errors: int = 0
    messages: list[str] = field(default_factory=list)

    def add(self, report: ImportReport) -> None:
        self.created += len(report.created)
        self.updated += len(report.updated)
        self.candidates += len(report.candidates)
        self.unchanged += report.unchanged
        self.errors += len(report.errors)
        self.messages.append(report.summary())

    def summary(self) -> str:
        head = (
            f"{self.person}: {self.created} created, {self.updated} updated, "
            f"{self.candidates} for review, {self.unchanged} unchanged, "
            f"{self.errors} error{'' if self.errors == 1 else 's'}"
        )
        return "\n".join([head, *self.messages])


def sync_person(person: Person, *, progress: Progress | None = None) -> SyncReport:
    """Read the member's ORCID record and OpenAlex works; queue what is new for
    review and refresh citation counts. One source failing does not stop the other."""
    report = SyncReport(person.display_name)
    steps = []
    if person.orcid:
        steps.append(("ORCID", _sync_orcid))
    if person.openalex_id:
        steps.append(("OpenAlex", _sync_openalex))
    if not steps:
        report.messages.append("no ORCID iD or OpenAlex id: nothing to read")
        return report
    session = new_session()
    for done, (name, step) in enumerate(steps):
        if progress:
            progress(done, len(steps), f"{person.display_name}: {name}")
        try:
            report.add(step(person, session, progress))
        except (SourceError, ImportProblem, WriteError, DatabaseError) as exc:
            report.errors += 1
            report.messages.append(f"{name}: {exc}")
        except Exception as exc:
            # A record no check foresaw must not stop the other source, nor the
            # members synced after this one: one line here, the traceback logged.
            logger.exception("sync of %s from %s failed", person.slug, name)
            report.errors += 1
            report.messages.append(f"{name}: unexpected error: {exc!r}")
    if progress:
        progress(len(steps), len(steps), f"{person.display_name}: done")
    return report


def _sync_orcid(person: Person, session, progress: Progress | None) -> ImportReport:
    record = fetch_orcid_record(person.orcid, session=session)
    return import_orcid_record(record, person=person)


def _sync_openalex(person: Person, session, progress: Progress | None) -> ImportReport:
    author, works, errors = fetch_openalex_author(
        person.openalex_id, session=session, progress=progress
    )
    return import_openalex(works, [author], person=person, errors=errors)
