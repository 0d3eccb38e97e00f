"""A realistic generated directory for scale tests: deterministic for a given seed."""

import contextlib
import datetime
import itertools
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.core.management.color import no_style
from django.db import connection, transaction
from django.utils import timezone
from django.utils.text import slugify

from core.bulk import insert_rows
from core.models import Organization, Topic, TopicClosure
from events.models import Event
from labdata.vocabulary import (
    CHINESE,
    CITIES,
    JAPANESE,
    KOREAN,
    LATIN,
    NOUNS,
    ORG_KINDS,
    ORG_SUFFIXES,
    ROOT_TOPICS,
    SUB_WORDS,
    TITLE_TEMPLATES,
)
from people.models import Education, Experience, Person
from publications.models import Authorship, Publication, Venue

SCALES = {
    "small": (1_000, 10_000, 2_000),
    "medium": (5_000, 50_000, 10_000),
    "large": (10_000, 100_000, 20_000),
}
FIRST_YEAR, LAST_YEAR = 1990, 2026
MAX_PAPERS_PER_PERSON = 1_000


@dataclass
class Counts:
    people: int
    publications: int
    events: int


def _zipf_weights(n: int, s: float = 1.1) -> list[float]:
    return [1 / (rank**s) for rank in range(1, n + 1)]


# The tables generate() writes, in the order it writes them.
GENERATED = [
    Organization,
    Venue,
    Topic,
    TopicClosure,
    Person,
    Person.topics.through,
    Education,
    Experience,
    Publication,
    Authorship,
    Publication.topics.through,
    Event,
    Event.people.through,
    Event.topics.through,
]


@transaction.atomic
def generate(*, people: int, publications: int, events: int, seed: int = 1) -> Counts:
    """Write a whole generated directory in bulk, into an empty database."""
    with _foreign_keys_checked_once([m._meta.db_table for m in GENERATED]):
        return _generate(
            people=people, publications=publications, events=events, seed=seed
        )


@contextlib.contextmanager
def _foreign_keys_checked_once(tables: list[str]) -> Iterator[None]:
    """PostgreSQL: set these tables' foreign keys aside and add them back at the end.

    Django's foreign keys are checked at commit, one locking look-up per row
    written: a large share of the time a full lab takes to write. Added back
    (same names, same definitions), each key is checked by one join over its
    table. Inside the transaction: a failure restores them.
    """
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) "
            "FROM pg_constraint WHERE contype = 'f' "
            "AND conrelid = ANY(%s::text[]::regclass[]) ORDER BY conrelid, conname",
            [tables],
        )
        keys = cursor.fetchall()
        for table, name, _ in keys:
            cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
    yield
    with connection.cursor() as cursor:
        for table, name, definition in keys:
            cursor.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')


def _generate(*, people: int, publications: int, events: int, seed: int) -> Counts:
    # Each table draws from the one generator in turn: reordering the calls, or the
    # draws within one, gives another lab for the same seed.
    rng = random.Random(seed)
    now = timezone.now()
    orgs = _organizations(rng, max(30, people // 30))
    venues = _venues(rng)
    topics = _topics(rng)
    persons, groups = _people(rng, people, orgs, topics)
    _profile_rows(rng, persons, orgs)
    papers = _publications(rng, now, publications, persons, groups, venues, topics)
    shown = _events(rng, now, events, people, orgs, topics)
    _reset_sequences()
    return Counts(len(persons), papers, shown)


T = TypeVar("T")
Group = tuple[list[int], list[Topic]]  # member ids, focus topics


class _Weighted(Generic[T]):
    """Items drawn with fixed weights."""

    def __init__(self, items: Sequence[T], weights: Iterable[float]) -> None:
        self.items = items
        # Cumulative weights, summed once: random.choices would sum them on every
        # call (same draws either way).
        self.cumulative = list(itertools.accumulate(weights))

    def draw(self, rng: random.Random, k: int = 1) -> list[T]:
        return rng.choices(self.items, cum_weights=self.cumulative, k=k)

    def one(self, rng: random.Random) -> T:
        return self.draw(rng)[0]


def _organizations(rng: random.Random, count: int) -> list[Organization]:
    orgs = [
        Organization(
            id=i + 1,
            name=f"{rng.choice(CITIES)} {ORG_SUFFIXES[i % 4]} {i + 1}",
            slug=f"org-{i + 1}",
            kind=rng.choice(ORG_KINDS),
            location=rng.choice(CITIES),
        )
        for i in range(count)
    ]
    Organization.objects.bulk_create(orgs, batch_size=2000)
    return orgs


def _venues(rng: random.Random) -> list[Venue]:
    venues = [
        Venue(id=1, name="arXiv", short_name="arXiv", slug="arxiv", kind="preprint")
    ]
    for i in range(2, 152):
        short = f"{''.join(w[0] for w in rng.choice(ROOT_TOPICS).split()).upper()}{i}"
        venues.append(
            Venue(
                id=i,
                name=f"Conference on {rng.choice(ROOT_TOPICS)} {i}",
                short_name=short,
                slug=f"venue-{i}",
                kind=rng.choice(["conference", "journal", "workshop"]),
            )
        )
    Venue.objects.bulk_create(venues, batch_size=2000)
    return venues


def _topics(rng: random.Random) -> _Weighted[Topic]:
    """Write the topic tree and its closure; return the leaves, a few drawn most."""
    topics: list[Topic] = []
    tid = itertools.count(1)
    for root_name in ROOT_TOPICS:
        root = Topic(id=next(tid), name=root_name, slug=_slug(root_name))
        topics.append(root)
        for word in rng.sample(SUB_WORDS, 5):
            child_name = f"{word.capitalize()} {root_name.lower()}"
            child = Topic(
                id=next(tid), name=child_name, slug=_slug(child_name), parent_id=root.id
            )
            topics.append(child)
            for noun in rng.sample(NOUNS, 3):
                leaf_name = f"{word.capitalize()} {noun} ({root_name.lower()})"
                topics.append(
                    Topic(
                        id=next(tid),
                        name=leaf_name,
                        slug=_slug(leaf_name),
                        parent_id=child.id,
                        aliases=f"{word} {noun}",
                    )
                )
    # Bulk writes skip Topic.save(), so the closure is rebuilt once here.
    Topic.objects.bulk_create(topics, batch_size=2000)
    TopicClosure.rebuild()
    leaves = [t for t in topics if t.parent_id is not None]
    rng.shuffle(leaves)
    return _Weighted(leaves, _zipf_weights(len(leaves)))


def _people(
    rng: random.Random, count: int, orgs: list[Organization], topics: _Weighted[Topic]
) -> tuple[list[Person], list[Group]]:
    """Write the people and their topics, in research groups of 5-30 members."""
    persons, person_topics, groups = [], [], []
    pid = 0
    while pid < count:
        size = min(rng.randint(5, 30), count - pid)
        focus = topics.draw(rng, k=4)
        org = rng.choice(orgs)
        members = []
        for k in range(size):
            pid += 1
            persons.append(_person(rng, pid, org, lead=(k == 0)))
            members.append(pid)
            chosen = {t.id for t in rng.sample(focus, rng.randint(1, 3))}
            chosen |= {t.id for t in topics.draw(rng, k=rng.randint(0, 2))}
            person_topics += [(pid, t) for t in chosen]
        groups.append((members, focus))
    Person.objects.bulk_create(persons, batch_size=2000)
    insert_rows(Person.topics.through, ["person", "topic"], person_topics)
    return persons, groups


class _Authors:
    """Who writes a paper: a group by its output, its lead by theirs, co-authors."""

    def __init__(
        self, rng: random.Random, persons: list[Person], groups: list[Group]
    ) -> None:
        # Productivity is heavy-tailed (median about 10, capped near 1,000).
        productivity = {p.id: min(rng.paretovariate(1.2), 200.0) for p in persons}
        self.rng, self.persons, self.groups = rng, persons, groups
        self.papers_of = dict.fromkeys(productivity, 0)
        self.group = _Weighted(
            range(len(groups)),
            (sum(productivity[m] for m in members) for members, _ in groups),
        )
        self.member = [
            _Weighted(members, (productivity[m] for m in members))
            for members, _ in groups
        ]
        self.size = _Weighted(range(2, 13), [8, 10, 9, 7, 5, 3, 2, 1, 1, 1, 1])

    def draw(self) -> tuple[list[int], list[Topic], int]:
        """Return a paper's authors from one group, that group's focus, and its size."""
        rng = self.rng
        g = self.group.one(rng)
        members, focus = self.groups[g]
        lead = self.member[g].one(rng)
        if self.papers_of[lead] >= MAX_PAPERS_PER_PERSON:
            lead = rng.choice(members)
        size = self.size.one(rng)
        coauthors = [
            m for m in rng.sample(members, min(len(members), size)) if m != lead
        ]
        return [lead, *coauthors[: max(0, size - 1 - rng.randint(0, 2))]], focus, size

    def rows(self, paper: int, members: list[int], size: int) -> list[tuple]:
        """Return the authorships: the members in a random order, then outsiders."""
        order = list(members)
        self.rng.shuffle(order)
        rows = []
        for member in order:
            self.papers_of[member] += 1
            name = self.persons[member - 1].display_name
            rows.append((paper, len(rows) + 1, name, member))
        for _ in range(size - len(order)):
            given, family = self.rng.choice(LATIN)[:2]
            rows.append((paper, len(rows) + 1, f"{given} {family}", None))
        return rows


def _publications(
    rng: random.Random,
    now: datetime.datetime,
    count: int,
    persons: list[Person],
    groups: list[Group],
    venues: list[Venue],
    topics: _Weighted[Topic],
) -> int:
    """Write the papers with their authorships and topics; return how many."""
    authors = _Authors(rng, persons, groups)
    years = range(FIRST_YEAR, LAST_YEAR + 1)
    year = _Weighted(years, (1.08 ** (y - FIRST_YEAR) for y in years))
    papers, authorships, paper_topics = [], [], []
    for n in range(1, count + 1):
        members, focus, size = authors.draw()
        topic = rng.choice(focus)
        papers.append(_paper(rng, n, topic, year.one(rng), venues, now))
        authorships += authors.rows(n, members, size)
        paper_topics.append((n, topic.id))
        if rng.random() < 0.5:
            extra = topics.one(rng)
            if extra.id != topic.id:
                paper_topics.append((n, extra.id))
    insert_rows(Publication, PAPER_FIELDS, papers)
    author_fields = ["publication", "position", "name", "person"]
    insert_rows(
        Authorship,
        [*author_fields, "equal_contribution", "corresponding"],
        [(*a, False, False) for a in authorships],
    )
    insert_rows(Publication.topics.through, ["publication", "topic"], paper_topics)
    return len(papers)


# A generated paper's columns, in the order _paper gives them.
PAPER_FIELDS = [
    "id",
    "title",
    "slug",
    "year",
    "venue",
    "status",
    "kind",
    "summary",
    "updated_at",
    "authors_complete",
    "selected",
]


def _paper(
    rng: random.Random,
    n: int,
    topic: Topic,
    published: int,
    venues: list[Venue],
    now: datetime.datetime,
) -> tuple:
    """Return paper `n`'s row, in the order of PAPER_FIELDS."""
    status = "published"
    if published == LAST_YEAR:
        status = rng.choice(["published", "accepted", "under_review", "preprint"])
    summary = (
        f"We study {topic.name.lower()} and report {rng.randint(2, 40)}× "
        f"gains in {rng.choice(NOUNS)}."
    )
    venue_id = rng.choice(venues).id if rng.random() < 0.9 else None
    return (
        n,
        _title(rng, topic),
        f"paper-{n}",
        published,
        venue_id,
        status,
        "conference_paper",
        summary,
        now,
        True,
        False,
    )


def _events(
    rng: random.Random,
    now: datetime.datetime,
    count: int,
    people: int,
    orgs: list[Organization],
    topics: _Weighted[Topic],
) -> int:
    """Write the events with their people and topics; return how many."""
    evs, event_people, event_topics = [], [], []
    start = datetime.date(2000, 1, 1)
    span = (datetime.date(2027, 12, 31) - start).days
    kinds = ["news", "talk", "paper", "award", "release", "seminar"]
    for n in range(1, count + 1):
        kind = rng.choices(kinds, weights=[5, 4, 3, 1, 1, 1])[0]
        topic = topics.one(rng)
        host = rng.choice(orgs).name if kind in ("talk", "seminar") else ""
        date = start + datetime.timedelta(days=rng.randint(0, span))
        evs.append(
            (
                n,
                kind,
                f"event-{n}",
                f"{kind.capitalize()}: {topic.name}",
                date,
                "day",
                host,
                now,
            )
        )
        for person in {rng.randint(1, people) for _ in range(rng.randint(1, 3))}:
            event_people.append((n, person))
        event_topics.append((n, topic.id))
    event_fields = [
        "id",
        "kind",
        "slug",
        "title",
        "date",
        "date_precision",
        "host",
        "updated_at",
    ]
    insert_rows(Event, event_fields, evs)
    insert_rows(Event.people.through, ["event", "person"], event_people)
    insert_rows(Event.topics.through, ["event", "topic"], event_topics)
    return len(evs)


def _slug(text: str) -> str:
    return slugify(text)[:120]


def _person(rng: random.Random, pid: int, org: Organization, *, lead: bool) -> Person:
    pick = rng.random()
    native = ""
    if pick < 0.35:
        given, family, native_given, native_family = rng.choice(CHINESE)
        native = f"{native_family}{native_given}"
    elif pick < 0.45:
        given, family, native_given, native_family = rng.choice(JAPANESE)
        native = f"{native_family}{native_given}"
    elif pick < 0.52:
        given, family, native_given, native_family = rng.choice(KOREAN)
        native = f"{native_family}{native_given}"
    else:
        given, family = rng.choice(LATIN)
    role = (
        "faculty"
        if lead
        else rng.choices(
            ["phd_student", "postdoc", "researcher", "masters_student", "engineer"],
            weights=[10, 3, 3, 2, 1],
        )[0]
    )
    return Person(
        id=pid,
        given_name=given,
        family_name=family,
        display_name=f"{given} {family}",
        native_name=native,
        slug=f"{_slug(given)}-{_slug(family)}-{pid}",
        role=role,
        organization_id=org.id,
        status="current" if rng.random() < 0.8 else "alumni",
        headline=f"Works on {rng.choice(SUB_WORDS)} {rng.choice(NOUNS)}",
    )


def _profile_rows(
    rng: random.Random, persons: list[Person], orgs: list[Organization]
) -> None:
    education, experience = [], []
    for person in persons:
        year = rng.randint(1995, 2022)
        education.append(
            Education(
                person_id=person.id,
                organization_id=rng.choice(orgs).id,
                degree=rng.choice(["B.Sc.", "M.Sc.", "Ph.D."]),
                field="Computer Science",
                start_date=datetime.date(year, 9, 1),
                end_date=datetime.date(year + 4, 6, 1),
            )
        )
        for k in range(rng.randint(0, 2)):
            experience.append(
                Experience(
                    person_id=person.id,
                    organization_id=rng.choice(orgs).id,
                    kind="internship",
                    role="Research intern",
                    position=k,
                    start_date=datetime.date(
                        rng.randint(2000, 2025), rng.randint(1, 12), 1
                    ),
                    notes=f"Worked on {rng.choice(SUB_WORDS)} {rng.choice(NOUNS)}.",
                )
            )
    Education.objects.bulk_create(education, batch_size=5000)
    Experience.objects.bulk_create(experience, batch_size=5000)


def _title(rng: random.Random, topic: Topic) -> str:
    template = rng.choice(TITLE_TEMPLATES)
    a, b = rng.sample(SUB_WORDS, 2)
    return template.format(
        A=a.capitalize(),
        a=a,
        b=b,
        n=rng.choice(NOUNS),
        t=topic.name.split(" (")[0].lower(),
    )


def _reset_sequences() -> None:
    """Explicit ids leave PostgreSQL's sequences behind; move them past the data."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), GENERATED):
            cursor.execute(sql)
