"""Which existing records and members what a source lists is."""

from collections import defaultdict

from core.models import Topic
from people.models import Person
from publications.models import Publication
from publications.services import Members, fold, printed_name
from sources.models import Candidate, Target
from sources.records import AuthorRecord, PersonRecord, WorkRecord


class PublicationIndex:
    """Publications by DOI, OpenAlex id, ORCID put-code, arXiv id, title and year."""

    def __init__(self) -> None:
        self.by_doi: dict[str, int] = {}
        self.by_openalex: dict[str, int] = {}
        self.by_put_code: dict[int, int] = {}
        self.by_arxiv: dict[str, int] = {}
        self.by_title: dict[tuple[str, int], list[int]] = defaultdict(list)
        for row in Publication.objects.values_list(
            "pk", "doi", "openalex_id", "orcid_put_codes", "arxiv_id", "title", "year"
        ):
            self.add(*row)

    def add(self, pk, doi, openalex_id, put_codes, arxiv_id, title, year) -> None:
        if doi:
            self.by_doi.setdefault(doi, pk)
        if openalex_id:
            self.by_openalex.setdefault(openalex_id, pk)
        for code in put_codes or []:
            self.by_put_code.setdefault(code, pk)
        if arxiv_id:
            self.by_arxiv.setdefault(arxiv_id, pk)
        self.by_title[(fold(title), year)].append(pk)

    def find(self, work: WorkRecord) -> tuple[int | None, str, list[int]]:
        """The record a work is, what matched it, and every title-and-year match.

        Identifiers settle it; a title with year alone only suggests a duplicate."""
        for found, what in (
            (work.doi and self.by_doi.get(work.doi), "DOI"),
            (
                work.openalex_id and self.by_openalex.get(work.openalex_id),
                "OpenAlex id",
            ),
            (
                work.put_code is not None and self.by_put_code.get(work.put_code),
                "put-code",
            ),
            (work.arxiv_id and self.by_arxiv.get(work.arxiv_id), "arXiv id"),
        ):
            if found:
                return found, what, []
        if work.date is None:
            return None, "", []
        return None, "", list(self.by_title.get((fold(work.title), work.date.year), []))


class MemberMatcher:
    """Members by ORCID iD, OpenAlex id, then the names they go by."""

    def __init__(self) -> None:
        people = list(Person.objects.all())
        self.by_orcid = {p.orcid: p for p in people if p.orcid}
        self.by_openalex = {p.openalex_id: p for p in people if p.openalex_id}
        self.names = Members(people)

    def match(self, author: AuthorRecord) -> tuple[Person | None, list[Person]]:
        """The one member an author is, or None and the members the name fits."""
        if author.orcid and author.orcid in self.by_orcid:
            return self.by_orcid[author.orcid], []
        if author.openalex_id and author.openalex_id in self.by_openalex:
            return self.by_openalex[author.openalex_id], []
        if not author.name:
            return None, []
        found, _ = self.names.candidates(printed_name(author.name))
        if author.orcid:
            # An author with an iD can only be a member whose iD we do not know.
            found = [p for p in found if not p.orcid]
        return (found[0], []) if len(found) == 1 else (None, found)

    def match_person(self, record: PersonRecord) -> tuple[Person | None, list[Person]]:
        """The member a researcher's record describes, by iD and then by names."""
        if record.orcid in self.by_orcid:
            return self.by_orcid[record.orcid], []
        if record.openalex_id in self.by_openalex:
            return self.by_openalex[record.openalex_id], []
        fits: dict[int, Person] = {}
        for name in dict.fromkeys([record.display_name, *record.other_names]):
            if name:
                found, _ = self.names.candidates(printed_name(name))
                fits.update((p.pk, p) for p in found)
        people = list(fits.values())
        return (people[0], []) if len(people) == 1 else (None, people)

    def loosely(self, name: str, person: Person) -> bool:
        return self.names.loosely(printed_name(name), person)


class TopicMap:
    """Existing topics by name and by alias, case and accents aside."""

    def __init__(self) -> None:
        self.lookup: dict[str, int] = {}
        for topic in Topic.objects.all():
            for name in (topic.name, *topic.alias_list):
                self.lookup.setdefault(fold(name), topic.pk)

    def get(self, name: str) -> int | None:
        return self.lookup.get(fold(name))


class QueuedWorks:
    """Works already proposed for creation, pending or rejected, by the same keys as
    PublicationIndex: a work another source proposed is not proposed twice."""

    def __init__(self) -> None:
        self.lookup: dict[tuple, Candidate] = {}
        for candidate in Candidate.objects.filter(
            target=Target.PUBLICATION,
            kind=Candidate.Kind.CREATE,
            status__in=[Candidate.Status.PENDING, Candidate.Status.REJECTED],
        ).order_by("pk"):
            self.add(candidate)

    @staticmethod
    def keys(values: dict) -> list[tuple]:
        found = [
            (name, values.get(name))
            for name in ("doi", "openalex_id", "put_code", "arxiv_id")
            if values.get(name) not in (None, "")
        ]
        return [*found, ("title", fold(values["title"]), values["year"])]

    def add(self, candidate) -> None:
        for key in self.keys(candidate.values):
            self.lookup.setdefault(key, candidate)

    def find(self, values: dict):
        return next(
            (self.lookup[k] for k in self.keys(values) if k in self.lookup), None
        )
