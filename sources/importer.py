"""Records from ORCID and OpenAlex into the directory: written at once with
`accept`, else queued as candidates for review. All or nothing per import."""

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction

from core.lib.dates import iso_partial
from core.slugs import unique_slug
from core.validation import validation_messages
from jobs.registry import Progress
from people.models import Education, Experience, Person, PersonLink, Role
from publications.models import Publication
from publications.services import Venues, fold, publication_refresh_source_facts
from search.indexing import deferred
from sources import targets
from sources.matching import MemberMatcher, PublicationIndex, QueuedWorks, TopicMap
from sources.models import Candidate, Target
from sources.records import AffiliationRecord, PartialDate, PersonRecord, WorkRecord
from sources.review import field_diff, propose, remember


class ImportProblem(Exception):
    """An import that cannot go ahead; nothing was written."""


@dataclass
class ImportReport:
    source: str
    dry_run: bool = False
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)
    unchanged: int = 0
    ambiguous: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unmapped_topics: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # records left out, and why

    def summary(self) -> str:
        head = (
            f"{self.source}: {len(self.created)} created, {len(self.updated)} "
            f"updated, {len(self.candidates)} for review, {self.unchanged} unchanged"
        )
        lines = [head + (" (dry run: nothing written)" if self.dry_run else "")]
        lines += [f"  created: {x}" for x in self.created]
        lines += [f"  updated: {x}" for x in self.updated]
        lines += [f"  for review: {x}" for x in self.candidates]
        lines += [f"  ambiguous: {x}" for x in self.ambiguous]
        if self.unmapped_topics:
            lines.append(
                "  topics with no match here (not created): "
                + ", ".join(sorted(set(self.unmapped_topics)))
            )
        lines += [f"  note: {x}" for x in self.notes]
        lines += [f"  warning: {x}" for x in self.warnings]
        lines += [f"  error: {x}" for x in self.errors]
        return "\n".join(lines)


def import_orcid_record(
    record: PersonRecord,
    *,
    person: Person | None = None,
    create: bool = False,
    accept: bool = False,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """A member's ORCID record: names, interests, links, positions, education, works."""
    importer = Importer("orcid", accept=accept, dry_run=dry_run, progress=progress)
    importer.report.errors += record.errors
    with importer.writing():
        member = importer.member_for_orcid(record, person, create=create)
        importer.person_record(record, member)
        importer.works(record.works, member)
    return importer.report


def import_openalex(
    works: list[WorkRecord],
    authors: list[PersonRecord],
    *,
    person: Person | None = None,
    accept: bool = False,
    dry_run: bool = False,
    progress: Progress | None = None,
    errors: list[str] = (),
) -> ImportReport:
    """OpenAlex authors (their ids on the member) and works (publications);
    `errors`: the works that could not be read, reported with the rest."""
    importer = Importer("openalex", accept=accept, dry_run=dry_run, progress=progress)
    importer.report.errors += errors
    with importer.writing():
        for author in authors:
            member = importer.member_for_author(author, person)
            if member is not None:
                importer.person_record(author, member)
        importer.works(works, person)
    return importer.report


class Importer:
    def __init__(
        self, source: str, *, accept: bool, dry_run: bool, progress: Progress | None
    ) -> None:
        self.source = source
        self.accept = accept
        self.dry_run = dry_run
        self.progress = progress
        self.report = ImportReport(source, dry_run=dry_run)

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """One transaction (rolled back for a dry run), re-indexing once at the end."""
        with transaction.atomic():
            with deferred():
                self.index = PublicationIndex()
                self.members = MemberMatcher()
                self.topics = TopicMap()
                self.queued = QueuedWorks()
                self.venues = Venues()
                yield
            if self.dry_run:
                transaction.set_rollback(True)

    # Members

    def member_for_orcid(
        self, record: PersonRecord, person: Person | None, *, create: bool
    ) -> Person:
        if not record.orcid:
            raise ImportProblem("the record has no valid ORCID iD")
        if person is not None:
            if person.orcid and person.orcid != record.orcid:
                raise ImportProblem(
                    f"the record is {record.orcid}, but {person} has the ORCID iD "
                    f"{person.orcid}"
                )
            return person
        found = Person.objects.filter(orcid=record.orcid).first()
        if found:
            return found
        if not create:
            raise ImportProblem(
                f"no member has the ORCID iD {record.orcid}: name one with "
                "--person SLUG, or pass --create to add them"
            )
        return self._create_member(record)

    def _create_member(self, record: PersonRecord) -> Person:
        display = record.display_name or record.orcid
        given, family = record.given_name, record.family_name
        if not family:
            given, _, family = display.rpartition(" ")
        taken = set(Person.objects.values_list("slug", flat=True))
        member = Person(
            given_name=given[:100],
            family_name=family[:100],
            display_name=display[:200],
            slug=unique_slug(display, taken, 120, fallback=record.orcid),
            role=Role.RESEARCHER,
            orcid=record.orcid,
        )
        try:
            member.full_clean()
        except ValidationError as exc:
            raise ImportProblem(f"{display}: {validation_messages(exc)}") from None
        member.save()
        self.members = MemberMatcher()  # the authors of their works include them
        self.report.created.append(f"member {display} ({record.orcid})")
        return member

    def member_for_author(
        self, author: PersonRecord, person: Person | None
    ) -> Person | None:
        if person is not None:
            return person
        found, fits = self.members.match_person(author)
        if found is None:
            if fits:
                self.report.ambiguous.append(
                    f"OpenAlex author {author.display_name} ({author.openalex_id}) "
                    f"could be {', '.join(p.display_name for p in fits)}"
                )
            else:
                self.report.warnings.append(
                    f"no member is OpenAlex author {author.display_name} "
                    f"({author.openalex_id}); name one with --person"
                )
        return found

    # A researcher's own record

    def person_record(self, record: PersonRecord, person: Person) -> None:
        label = f"{person.display_name}: names and identifiers"
        proposed = {"orcid": record.orcid, "openalex_id": record.openalex_id}
        if self.source == "orcid":
            proposed |= {
                "given_name": record.given_name,
                "family_name": record.family_name,
                "display_name": record.credit_name,
            }
        proposed = {k: v for k, v in proposed.items() if v}
        source_id = record.orcid if self.source == "orcid" else record.openalex_id
        self.update(Target.PERSON, person, proposed, person, source_id, label)
        if record.affiliations:
            self.report.notes.append(
                f"{person.display_name}: OpenAlex lists the affiliations "
                + "; ".join(record.affiliations)
            )
        self.report.warnings += record.warnings
        self._interests(record, person)
        self._links(record, person)
        for target, rows in (
            (Target.EXPERIENCE, record.employments),
            (Target.EDUCATION, record.educations),
        ):
            for row in rows:
                self._affiliation(target, row, person)

    def _interests(self, record: PersonRecord, person: Person) -> None:
        have = set(person.topics.values_list("pk", flat=True))
        for keyword in record.keywords:
            pk = self.topics.get(keyword)
            if pk is None:
                self.report.unmapped_topics.append(keyword)
            elif pk not in have:
                have.add(pk)
                self.create(
                    Target.INTEREST,
                    {"topic": pk, "name": keyword},
                    person,
                    f"keyword:{fold(keyword)}",
                    f"{person.display_name}: research interest {keyword}",
                )

    def _links(self, record: PersonRecord, person: Person) -> None:
        have = {_url_key(u) for u in person.links.values_list("url", flat=True)}
        for link in record.links:
            if _url_key(link.url) in have:
                continue
            have.add(_url_key(link.url))
            self.create(
                Target.LINK,
                {"kind": _link_kind(link.url), "label": link.label, "url": link.url},
                person,
                link.url,
                f"{person.display_name}: link {link.label or link.url}",
            )

    def _affiliation(self, target: str, row: AffiliationRecord, person: Person) -> None:
        education = target == Target.EDUCATION
        values = {
            "organization": row.organization,
            "unit" if education else "team": row.department[:200],
            "degree" if education else "role": (
                row.role or ("Studies" if education else "Position")
            )[:200],
            "start": _iso(row.start),
            "end": _iso(row.end) if row.end else ("present" if row.start else ""),
            "location": row.location[:200],
        }
        what = values.get("degree") or values.get("role")
        label = f"{person.display_name}: {target} {what}, {row.organization}"
        if not row.organization:
            self.report.warnings.append(f"{label}: no organisation; skipped")
            return
        source_id = str(row.put_code or "")
        model = Education if education else Experience
        rows = model.objects.filter(person=person).select_related("organization")
        match = (
            rows.filter(source=self.source, source_id=source_id).first()
            if source_id
            else None
        )
        if match is None:
            start_year = row.start.year if row.start else None
            match = next(
                (
                    r
                    for r in rows
                    if r.organization
                    and fold(r.organization.name) == fold(row.organization)
                    and (r.start_date.year if r.start_date else None) == start_year
                ),
                None,
            )
        if match is None:
            self.create(target, values, person, source_id, label)
        else:
            self.update(target, match, values, person, source_id, label)

    # Works

    def works(self, works: list[WorkRecord], owner: Person | None) -> None:
        for done, work in enumerate(works, start=1):
            self.work(work, owner)
            if self.progress:
                self.progress(done, len(works), work.title[:60])

    def work(self, work: WorkRecord, owner: Person | None) -> None:
        if not work.title or work.date is None:
            self.report.warnings.append(
                f"{self.source} work {work.source_id}: "
                + ("no title" if not work.title else f"{work.title!r} has no date")
                + "; skipped"
            )
            return
        values = self._work_values(work, owner)
        label = f"{work.title} ({work.date.year})"
        pk, _, similar = self.index.find(work)
        if pk is not None:
            pub = Publication.objects.get(pk=pk)
            publication_refresh_source_facts(publication=pub, values=values)
            self.update(Target.PUBLICATION, pub, values, owner, work.source_id, label)
        elif similar:
            pub = Publication.objects.get(pk=similar[0])
            diff = field_diff(Target.PUBLICATION, pub, values, self.source)
            self._queue(
                Candidate.Kind.DUPLICATE,
                Target.PUBLICATION,
                owner,
                pub,
                work.source_id,
                label,
                values,
                diff,
                note=f"same title and year as “{pub.title}”, but no shared identifier",
            )
        elif (queued := self.queued.find(values)) is not None:
            self._merge_queued(queued, values)
        else:
            created = self.create(
                Target.PUBLICATION, values, owner, work.source_id, label
            )
            if created is not None:
                self.index.add(
                    created.pk,
                    created.doi,
                    created.openalex_id,
                    created.orcid_put_codes,
                    created.arxiv_id,
                    created.title,
                    created.year,
                )

    def _merge_queued(self, candidate: Candidate, values: dict) -> None:
        """Add what this source knows of a work another source proposed."""
        self.report.unchanged += 1
        if candidate.status != Candidate.Status.PENDING:
            return  # rejected, whichever source proposes it
        merged = dict(candidate.values)
        for name, value in values.items():
            if merged.get(name) in (None, "", []) and value not in (None, "", []):
                merged[name] = value
        if values.get("cited_by_count") is not None:
            merged["cited_by_count"] = values["cited_by_count"]
            merged["counts_by_year"] = values["counts_by_year"]
        if merged != candidate.values:
            candidate.values = merged
            candidate.save(update_fields=["values"])

    def _work_values(self, work: WorkRecord, owner: Person | None) -> dict:
        authors = []
        for author in work.authors:
            member, fits = self.members.match(author)
            if member is None and fits:
                self.report.ambiguous.append(
                    f"{work.title}: author {author.name} could be "
                    + ", ".join(p.display_name for p in fits)
                )
            authors.append(
                {"name": author.name, "person": member.pk if member else None}
            )
        complete = bool(authors)
        if owner is not None and owner.pk not in {a["person"] for a in authors}:
            loose = [
                a
                for a in authors
                if a["person"] is None and self.members.loosely(a["name"], owner)
            ]
            if len(loose) == 1:
                loose[0]["person"] = owner.pk
            elif not authors:
                # ORCID's summaries name no authors: the work is the member's own.
                authors = [{"name": owner.display_name, "person": owner.pk}]
            else:
                self.report.warnings.append(
                    f"{work.title}: {owner.display_name} is not among its authors"
                )
        topics = []
        for name in work.topics:
            pk = self.topics.get(name)
            if pk is None:
                self.report.unmapped_topics.append(name)
            elif pk not in topics:
                topics.append(pk)
        return {
            "title": work.title[:500],
            "kind": work.kind,
            "year": work.date.year,
            "month": work.date.month,
            "venue": work.venue[:300],
            "venue_kind": work.venue_kind,
            "doi": work.doi,
            "openalex_id": work.openalex_id,
            "arxiv_id": work.arxiv_id,
            "abstract": work.abstract,
            "authors": authors,
            "authors_complete": complete,
            "topics": sorted(topics),
            "oa_url": work.oa_url,
            "cited_by_count": work.cited_by_count,
            "counts_by_year": work.counts_by_year,
            "put_code": work.put_code,
        }

    # What happens to a record

    def create(self, target: str, values: dict, person, source_id: str, label: str):
        if self.accept:
            written = targets.write(
                target,
                values,
                person=person,
                source=self.source,
                source_id=source_id,
                venues=self.venues,
            )
            if target in (Target.PUBLICATION, Target.EDUCATION, Target.EXPERIENCE):
                remember(target, written, values, self.source)
            self.report.created.append(label)
            return written
        self._queue(
            Candidate.Kind.CREATE, target, person, None, source_id, label, values
        )
        return None

    def update(
        self, target: str, obj, values: dict, person, source_id: str, label: str
    ):
        current = targets.current_values(target, obj)
        diff = field_diff(target, obj, values, self.source, current)
        applied = []
        if self.accept:
            applied = [d["field"] for d in diff if not d["edited"]]
            if applied:
                targets.write(
                    target,
                    {**values, **{d["field"]: d["proposed"] for d in diff}},
                    person=person,
                    obj=obj,
                    fields=applied,
                    source=self.source,
                    source_id=source_id,
                    venues=self.venues,
                )
                self.report.updated.append(f"{label}: {', '.join(applied)}")
                current = None  # written: read again
            # A field edited by hand is never overwritten: it goes to review.
            diff = [d for d in diff if d["edited"]]
        remember(target, obj, values, self.source, current)
        if diff:
            self._queue(
                Candidate.Kind.UPDATE,
                target,
                person,
                obj,
                source_id,
                label,
                values,
                diff,
            )
        elif not applied:
            self.report.unchanged += 1

    def _queue(
        self, kind, target, person, obj, source_id, label, values, diff=None, note=""
    ):
        candidate = propose(
            kind=kind,
            target=target,
            person=person,
            obj=obj,
            source=self.source,
            source_id=source_id,
            label=label,
            values=values,
            diff=diff,
            note=note,
        )
        if candidate is None:
            self.report.unchanged += 1
            return
        self.report.candidates.append(f"{candidate.get_kind_display()}: {label}")
        if kind == Candidate.Kind.CREATE and target == Target.PUBLICATION:
            self.queued.add(candidate)


def _iso(value: PartialDate | None) -> str:
    return iso_partial(value.date, value.precision) if value else ""


def _url_key(url: str) -> str:
    return (
        url.strip().lower().rstrip("/").removeprefix("https://").removeprefix("http://")
    )


_LINK_KINDS = {
    "github.com": PersonLink.Kind.GITHUB,
    "scholar.google": PersonLink.Kind.SCHOLAR,
    "linkedin.com": PersonLink.Kind.LINKEDIN,
    "twitter.com": PersonLink.Kind.TWITTER,
    "x.com": PersonLink.Kind.TWITTER,
    "orcid.org": PersonLink.Kind.ORCID,
}


def _link_kind(url: str) -> str:
    host = _url_key(url).split("/")[0]
    for marker, kind in _LINK_KINDS.items():
        if marker in host:
            return kind
    return PersonLink.Kind.HOMEPAGE
