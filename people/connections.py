"""How two members are connected: shared papers, topics and organisations, and the
shortest chain of co-authors between them (at most three papers long)."""

import datetime
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef
from django.http import Http404
from django.utils import timezone

from core.models import Organization, Topic, TopicClosure
from people.models import Education, Experience, Person
from publications.models import Authorship, Publication

MAX_STEPS = 3
SHOWN_PAPERS = 20
PAPERS_PER_STEP = 3


@dataclass
class Place:
    """An organisation both members were at, and when they were there together."""

    organization: Organization
    together: str  # "2019 – 2021", "now", or "" when the dates do not say
    overlap: bool | None  # None: the dates do not say


@dataclass
class Step:
    """One co-authorship on the path: from one member to the next, by these papers."""

    person: Person
    other: Person
    papers: list[Publication]
    paper_count: int


@dataclass
class Connection:
    person: Person
    other: Person
    shared_papers: list[Publication]
    shared_paper_count: int
    shared_topics: list[Topic]
    places: list[Place]
    path: list[Step] = field(default_factory=list)


def two_members(slug: str, other: str) -> tuple[Person, Person]:
    """The members named by two slugs (404 when either is unknown, or both name
    the same member)."""
    found = Person.objects.for_cards().in_bulk([slug, other], field_name="slug")
    if slug == other or len(found) < 2:
        raise Http404("No such pair of members.")
    return found[slug], found[other]


def connection_between(person: Person, other: Person) -> Connection:
    """Everything two members share, and the shortest co-authorship path."""
    both = Publication.objects.filter(
        Exists(Authorship.objects.filter(publication=OuterRef("pk"), person=person)),
        Exists(Authorship.objects.filter(publication=OuterRef("pk"), person=other)),
    )
    return Connection(
        person=person,
        other=other,
        shared_papers=list(both.with_authors().newest_first()[:SHOWN_PAPERS]),
        shared_paper_count=both.count(),
        shared_topics=shared_topics(person.pk, other.pk),
        places=shared_places(person, other),
        path=coauthor_path(person.pk, other.pk),
    )


def shared_topics(a: int, b: int) -> list[Topic]:
    """The most specific topics both work on (interests or papers), by name."""
    own = Person.topics.through.objects.filter(person_id__in=[a, b]).values_list(
        "person_id", "topic_id"
    )
    on_papers = (
        Publication.topics.through.objects.filter(
            publication__authorships__person_id__in=[a, b]
        )
        .values_list("publication__authorships__person_id", "topic_id")
        .distinct()
    )
    held: dict[int, set[int]] = defaultdict(set)
    for person_id, topic_id in [*own, *on_papers]:
        held[person_id].add(topic_id)
    closure = TopicClosure.objects.filter(descendant_id__in=held[a] | held[b])
    above: dict[int, set[int]] = defaultdict(set)
    for ancestor, descendant in closure.values_list("ancestor_id", "descendant_id"):
        above[descendant].add(ancestor)
    expanded = [
        {t for held_topic in held[pk] for t in above.get(held_topic, {held_topic})}
        for pk in (a, b)
    ]
    common = expanded[0] & expanded[1]
    # A topic above another shared one says less: keep the most specific.
    general = {t for c in common for t in above.get(c, ()) if t != c}
    return list(Topic.objects.filter(pk__in=common - general).order_by("name"))


def _stints(
    people: list[Person],
) -> dict[int, list[tuple[int, datetime.date | None, datetime.date | None]]]:
    """Per member, (organisation, from, to) of every place they have been: from
    is None when unknown, to is today for an ongoing one."""
    today = timezone.localdate()
    stints = {p.pk: [] for p in people}
    for p in people:
        if p.organization_id:
            stints[p.pk].append((p.organization_id, None, today))
    for model in (Education, Experience):
        rows = model.objects.filter(person__in=people, organization__isnull=False)
        for pk, org, start, end, ongoing in rows.values_list(
            "person_id", "organization_id", "start_date", "end_date", "is_ongoing"
        ):
            stints[pk].append((org, start, today if ongoing else (end or start)))
    return stints


def shared_places(person: Person, other: Person) -> list[Place]:
    """The organisations both were at, each with the time they overlapped."""
    mine, theirs = defaultdict(list), defaultdict(list)
    stints = _stints([person, other])
    for places_of, member in ((mine, person), (theirs, other)):
        for org, start, end in stints[member.pk]:
            places_of[org].append((start, end))
    common = set(mine) & set(theirs)
    organizations = Organization.objects.in_bulk(common)
    today = timezone.localdate()
    places = []
    for org in sorted(common, key=lambda pk: organizations[pk].name):
        periods, apart = [], False
        for start, end in mine[org]:
            for other_start, other_end in theirs[org]:
                if end == other_end == today and None in (start, other_start):
                    periods.append((today, today))  # both there now, since unknown
                elif None not in (start, other_start, end, other_end):
                    begin, finish = max(start, other_start), min(end, other_end)
                    if begin <= finish:
                        periods.append((begin, finish))
                    else:
                        apart = True
        if not periods:
            places.append(Place(organizations[org], "", False if apart else None))
            continue
        begin, finish = max(
            periods, key=lambda period: (period[1], period[1] - period[0])
        )
        together = "now" if begin == finish == today else _years(begin, finish, today)
        places.append(Place(organizations[org], together, True))
    return places


def _years(begin: datetime.date, finish: datetime.date, today: datetime.date) -> str:
    if finish == today:
        return f"since {begin.year}"
    if begin.year == finish.year:
        return str(begin.year)
    return f"{begin.year} – {finish.year}"


def _coauthors(person_ids: set[int]) -> dict[int, Counter]:
    """For each of these members: their co-authors among members, with how many
    papers they share."""
    theirs = Authorship.objects.filter(person_id__in=person_ids).values(
        "publication_id"
    )
    by_paper: dict[int, set[int]] = defaultdict(set)
    for paper, member in Authorship.objects.filter(
        publication_id__in=theirs, person__isnull=False
    ).values_list("publication_id", "person_id"):
        by_paper[paper].add(member)
    found: dict[int, Counter] = {pk: Counter() for pk in person_ids}
    for members in by_paper.values():
        for pk in members & person_ids:
            found[pk].update(members - {pk})
    return found


def coauthor_path(a: int, b: int) -> list[Step]:
    """The shortest chain of co-authors from `a` to `b` (at most MAX_STEPS papers
    long; [] when there is none), its strongest links preferred."""
    ends = _coauthors({a, b})
    near_a, near_b = ends[a], ends[b]
    if b in near_a:
        return _steps([a, b])
    middle = set(near_a) & set(near_b)
    if middle:
        best = max(middle, key=lambda c: (min(near_a[c], near_b[c]), -c))
        return _steps([a, best, b])
    if MAX_STEPS < 3 or not near_a or not near_b:
        return []
    # Three steps: a co-author of a who wrote with a co-author of b.
    inner = _coauthors(set(near_a) - {b})
    links = [
        (min(near_a[c], inner[c][d], near_b[d]), -c, -d, c, d)
        for c in inner
        for d in inner[c]
        if d in near_b and d not in (a, b)
    ]
    if not links:
        return []
    *_, c, d = max(links)
    return _steps([a, c, d, b])


def _steps(chain: list[int]) -> list[Step]:
    """The steps of a chain of member ids, each with a few of its papers."""
    people = Person.objects.in_bulk(chain)
    pairs = list(zip(chain, chain[1:], strict=False))
    authors = Authorship.objects.filter(person_id__in=chain).values_list(
        "publication_id", "person_id"
    )
    papers_of: dict[int, set[int]] = defaultdict(set)
    for paper, member in authors:
        papers_of[member].add(paper)
    shared = {pair: papers_of[pair[0]] & papers_of[pair[1]] for pair in pairs}
    shown = Publication.objects.only("title", "slug", "year").in_bulk(
        {pk for ids in shared.values() for pk in ids}
    )
    steps = []
    for pair in pairs:
        papers = sorted(
            (shown[pk] for pk in shared[pair]), key=lambda p: (-p.year, p.title)
        )
        steps.append(
            Step(
                people[pair[0]], people[pair[1]], papers[:PAPERS_PER_STEP], len(papers)
            )
        )
    return steps
