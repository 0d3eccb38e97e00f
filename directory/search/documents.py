"""What each kind of record is found by: the text of its four weighted columns.

Builders read plain values in a few queries per chunk of records (no model
instances), so that rebuilding a directory of 100,000 papers takes seconds.
"""

from collections import defaultdict
from collections.abc import Iterable, Iterator

from directory.models import Topic, TopicClosure

CHUNK = 2000


def topic_texts() -> dict[int, str]:
    """For every topic: its name, aliases and the names of the topics above it."""
    topics = dict(Topic.objects.values_list("pk", "name"))
    aliases = dict(Topic.objects.values_list("pk", "aliases"))
    ancestors: dict[int, list[int]] = defaultdict(list)
    for ancestor_id, descendant_id in TopicClosure.objects.order_by(
        "-depth"
    ).values_list("ancestor_id", "descendant_id"):
        ancestors[descendant_id].append(ancestor_id)
    texts = {}
    for pk, name in topics.items():
        names = [topics[a] for a in ancestors.get(pk, [pk]) if a in topics]
        extra = [
            line.strip() for line in (aliases[pk] or "").splitlines() if line.strip()
        ]
        texts[pk] = " · ".join([*(names or [name]), *extra])
    return texts


def _join(*parts: object) -> str:
    return "\n".join(str(p) for p in parts if p)


def _chunks(ids: Iterable[int]) -> Iterator[list[int]]:
    ordered = sorted(set(ids))
    for start in range(0, len(ordered), CHUNK):
        yield ordered[start : start + CHUNK]


def _within(field: str, chunk: list[int]) -> dict[str, object]:
    """The lookup for a chunk of sorted ids: a range when they run without gaps (a
    full rebuild), which spares the ORM preparing thousands of parameters."""
    if chunk[-1] - chunk[0] + 1 == len(chunk):
        return {f"{field}__gte": chunk[0], f"{field}__lte": chunk[-1]}
    return {f"{field}__in": chunk}


def _grouped(rows: Iterable[tuple]) -> dict[int, list[tuple]]:
    """Rows keyed by their first value (the owning record's id)."""
    groups: dict[int, list[tuple]] = defaultdict(list)
    for row in rows:
        groups[row[0]].append(row[1:])
    return groups


def person_documents(ids: Iterable[int], topics: dict[int, str]) -> Iterator[tuple]:
    from people import models as people
    from publications.models import Authorship, Publication

    roles = dict(people.Role.choices)
    for chunk in _chunks(ids):
        rows = people.Person.objects.filter(**_within("pk", chunk)).values_list(
            "pk", "display_name", "given_name", "family_name", "preferred_name",
            "native_name", "headline", "position_title", "role", "team",
            "organization__name", "organization__short_name", "bio", "research_summary",
            "location",
        )  # fmt: skip
        of = _within("person_id", chunk)
        # Related rows in a fixed order, so that the same data always make the
        # same document (a restored backup included), whatever the row order.
        person_topics = _grouped(
            people.Person.topics.through.objects.filter(**of)
            .order_by("person_id", "topic_id")
            .values_list("person_id", "topic_id")
        )
        areas = _grouped(
            people.ResearchArea.objects.filter(**of).values_list(
                "person_id", "title", "subtitle", "items"
            )
        )
        experience = _grouped(
            people.Experience.objects.filter(**of).values_list(
                "person_id", "role", "team", "organization__name", "notes"
            )
        )
        education = _grouped(
            people.Education.objects.filter(**of).values_list(
                "person_id", "degree", "field", "organization__name", "unit"
            )
        )
        others = [
            _grouped(model.objects.filter(**of).values_list("person_id", *fields))
            for model, fields in (
                (people.OpenSourceContribution, ("project", "description")),
                (people.Award, ("title",)),
                (people.Service, ("role", "venue")),
                (people.Skill, ("category", "items")),
                (people.Interest, ("title", "description")),
            )
        ]
        authored = _grouped(
            Authorship.objects.filter(**of).values_list("person_id", "publication_id")
        )
        # The chunk's papers by a subquery, not a list of tens of thousands of ids;
        # each paper's text is joined once, not once per author.
        pub_ids = Authorship.objects.filter(**of).values("publication_id")
        pub_topics = _grouped(
            Publication.topics.through.objects.filter(publication_id__in=pub_ids)
            .order_by("publication_id", "topic_id")
            .values_list("publication_id", "topic_id")
        )
        pub_text = {
            pk: _join(title, summary)
            for pk, title, summary in Publication.objects.filter(
                pk__in=pub_ids
            ).values_list("pk", "title", "summary")
        }
        for (pk, display, given, family, preferred, native, headline, title, role, team,
             org, org_short, bio, summary, location) in rows:  # fmt: skip
            a = _join(display, given, family, preferred, native)
            b = _join(
                *(topics.get(t, "") for (t,) in person_topics.get(pk, ())),
                *(_join(*area) for area in areas.get(pk, ())),
            )
            c = _join(headline, title, roles.get(role, role), team, org, org_short, bio,
                      summary)  # fmt: skip
            d = _join(
                location,
                *(_join(*row) for row in experience.get(pk, ())),
                *(_join(*row) for row in education.get(pk, ())),
                *(pub_text.get(pub, "") for (pub,) in authored.get(pk, ())),
                # The topics of their papers, each once: repeated for every paper
                # they were half of the text of a prolific member's document.
                *(
                    topics.get(t, "")
                    for t in sorted({t for (pub,) in authored.get(pk, ())
                                     for (t,) in pub_topics.get(pub, ())})
                ),
                *(_join(*row) for table in others for row in table.get(pk, ())),
            )  # fmt: skip
            yield pk, a, b, c, d


def publication_documents(
    ids: Iterable[int], topics: dict[int, str]
) -> Iterator[tuple]:
    from publications.models import Authorship, Publication

    kinds = dict(Publication.Kind.choices)
    for chunk in _chunks(ids):
        rows = Publication.objects.filter(**_within("pk", chunk)).values_list(
            "pk", "title", "alternative_title", "summary", "key_results", "venue__name",
            "venue__short_name", "venue_detail", "kind", "doi", "arxiv_id",
        )  # fmt: skip
        authors = _grouped(
            Authorship.objects.filter(**_within("publication_id", chunk))
            .order_by("publication_id", "position")
            .values_list("publication_id", "name")
        )
        pub_topics = _grouped(
            Publication.topics.through.objects.filter(
                **_within("publication_id", chunk)
            )
            .order_by("publication_id", "topic_id")
            .values_list("publication_id", "topic_id")
        )
        for (pk, title, alternative, summary, results, venue, venue_short, detail, kind,
             doi, arxiv) in rows:  # fmt: skip
            yield (
                pk,
                _join(title, alternative),
                _join(*(topics.get(t, "") for (t,) in pub_topics.get(pk, ()))),
                _join(
                    *(name for (name,) in authors.get(pk, ())),
                    summary,
                    results,
                    venue,
                    venue_short,
                ),  # fmt: skip
                _join(detail, kinds.get(kind, kind), doi, arxiv),
            )


def event_documents(ids: Iterable[int], topics: dict[int, str]) -> Iterator[tuple]:
    from events.models import Event

    kinds = dict(Event.Kind.choices)
    for chunk in _chunks(ids):
        rows = Event.objects.filter(**_within("pk", chunk)).values_list(
            "pk",
            "title",
            "description",
            "host",
            "location",
            "kind",
            "publication__title",
        )
        people = _grouped(
            Event.people.through.objects.filter(**_within("event_id", chunk))
            .order_by("event_id", "person_id")
            .values_list("event_id", "person__display_name")
        )
        event_topics = _grouped(
            Event.topics.through.objects.filter(**_within("event_id", chunk))
            .order_by("event_id", "topic_id")
            .values_list("event_id", "topic_id")
        )
        for pk, title, description, host, location, kind, publication in rows:
            yield (
                pk,
                title,
                _join(*(topics.get(t, "") for (t,) in event_topics.get(pk, ()))),
                _join(description, host, *(name for (name,) in people.get(pk, ()))),
                _join(location, kinds.get(kind, kind), publication),
            )
