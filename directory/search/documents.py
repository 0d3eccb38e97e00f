"""What each kind of record is found by: the text of its four weighted columns."""

from collections.abc import Iterable, Iterator

from django.db.models import Prefetch

from directory.models import Topic, TopicClosure

CHUNK = 500


def topic_texts() -> dict[int, str]:
    """For every topic: its name, aliases and the names of the topics above it."""
    topics = {t.pk: t for t in Topic.objects.all()}
    ancestors: dict[int, list[int]] = {}
    for ancestor_id, descendant_id in TopicClosure.objects.values_list(
        "ancestor_id", "descendant_id"
    ):
        ancestors.setdefault(descendant_id, []).append(ancestor_id)
    texts = {}
    for pk, topic in topics.items():
        names = [topics[a].name for a in ancestors.get(pk, [pk]) if a in topics]
        texts[pk] = " · ".join([*names, *topic.alias_list])
    return texts


def _join(*parts: object) -> str:
    return "\n".join(str(p) for p in parts if p)


def _chunks(ids: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


def person_documents(ids: Iterable[int], topics: dict[int, str]) -> Iterator[tuple]:
    from people.models import Experience, Person
    from publications.models import Authorship

    for chunk in _chunks(sorted(set(ids))):
        people = Person.objects.filter(pk__in=chunk).select_related("organization")
        people = people.prefetch_related(
            "topics",
            "research_areas",
            "education__organization",
            Prefetch(
                "experience", queryset=Experience.objects.select_related("organization")
            ),
            "open_source",
            "awards",
            "service",
            "skills",
            "interests",
            Prefetch(
                "authorships",
                queryset=Authorship.objects.select_related(
                    "publication"
                ).prefetch_related("publication__topics"),
            ),
        )
        for p in people:
            org = p.organization
            a = _join(
                p.display_name,
                p.given_name,
                p.family_name,
                p.preferred_name,
                p.native_name,
            )
            b = _join(
                *(topics.get(t.pk, t.name) for t in p.topics.all()),
                *(_join(r.title, r.subtitle, r.items) for r in p.research_areas.all()),
            )
            c = _join(
                p.headline,
                p.position_title,
                p.get_role_display(),
                p.team,
                org and org.name,
                org and org.short_name,
                p.bio,
                p.research_summary,
            )
            d = _join(
                p.location,
                *(
                    _join(
                        e.role, e.team, e.organization and e.organization.name, e.notes
                    )
                    for e in p.experience.all()
                ),
                *(
                    _join(e.degree, e.field, e.organization.name, e.unit)
                    for e in p.education.all()
                ),
                *(
                    _join(
                        a.publication.title,
                        a.publication.summary,
                        *(topics.get(t.pk, t.name) for t in a.publication.topics.all()),
                    )
                    for a in p.authorships.all()
                ),
                *(_join(o.project, o.description) for o in p.open_source.all()),
                *(aw.title for aw in p.awards.all()),
                *(_join(s.role, s.venue) for s in p.service.all()),
                *(_join(s.category, s.items) for s in p.skills.all()),
                *(_join(i.title, i.description) for i in p.interests.all()),
            )
            yield p.pk, a, b, c, d


def publication_documents(
    ids: Iterable[int], topics: dict[int, str]
) -> Iterator[tuple]:
    from publications.models import Publication

    for chunk in _chunks(sorted(set(ids))):
        publications = (
            Publication.objects.filter(pk__in=chunk)
            .select_related("venue")
            .prefetch_related("topics", "authorships")
        )
        for pub in publications:
            venue = pub.venue
            a = _join(pub.title, pub.alternative_title)
            b = _join(*(topics.get(t.pk, t.name) for t in pub.topics.all()))
            c = _join(
                *(author.name for author in pub.authorships.all()),
                pub.summary,
                pub.key_results,
                venue and venue.name,
                venue and venue.short_name,
            )
            d = _join(pub.venue_detail, pub.get_kind_display(), pub.doi, pub.arxiv_id)
            yield pub.pk, a, b, c, d


def event_documents(ids: Iterable[int], topics: dict[int, str]) -> Iterator[tuple]:
    from events.models import Event

    for chunk in _chunks(sorted(set(ids))):
        events = (
            Event.objects.filter(pk__in=chunk)
            .select_related("publication")
            .prefetch_related("topics", "people")
        )
        for event in events:
            a = event.title
            b = _join(*(topics.get(t.pk, t.name) for t in event.topics.all()))
            c = _join(
                event.description,
                event.host,
                *(person.display_name for person in event.people.all()),
            )
            d = _join(
                event.location,
                event.get_kind_display(),
                event.publication and event.publication.title,
            )
            yield event.pk, a, b, c, d
