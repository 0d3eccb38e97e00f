"""What a member is found by, and which writes make their search document stale."""

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from django.db.models import Count

from core.models import Organization, Topic, TopicClosure
from events.models import Event
from people import models as people
from publications.models import Authorship, Publication
from search.documents import (
    Document,
    cached_topic_texts,
    grouped,
    id_chunks,
    join,
    within,
)
from search.reasons import Source, topic_source
from search.registration import (
    Evidence,
    reindex_on,
    reindex_on_link,
    reindex_on_link_targets,
    searchable,
)

# Profile sections that count toward a member's least weighted text, by the fields
# read from each: their career before their papers, the rest after.
CAREER_SECTIONS = (
    (people.Experience, ("role", "team", "organization__name", "notes")),
    (people.Education, ("degree", "field", "organization__name", "unit")),
)
OTHER_SECTIONS = (
    (people.OpenSourceContribution, ("project", "description")),
    (people.Award, ("title", "detail", "granting_body")),
    (people.Service, ("role", "venue")),
    (people.Skill, ("category", "items")),
    (people.Interest, ("title", "description")),
)
PERSON_FIELDS = (
    "pk",
    "display_name",
    "given_name",
    "family_name",
    "preferred_name",
    "native_name",
    "headline",
    "position_title",
    "role",
    "team",
    "organization__name",
    "organization__short_name",
    "bio",
    "research_summary",
    "location",
)


def person_documents(ids: Iterable[int], topics: dict[int, str]) -> Iterator[Document]:
    roles = dict(people.Role.choices)
    for chunk in id_chunks(ids):
        related = _related_rows(chunk)
        rows = people.Person.objects.filter(**within("pk", chunk)).values_list(
            *PERSON_FIELDS, named=True
        )
        for p in rows:
            papers = related["authored"].get(p.pk, ())
            paper_topics = {
                t for (pub,) in papers for (t,) in related["pub_topics"].get(pub, ())
            }
            yield Document(
                p.pk,
                heading=join(
                    p.display_name,
                    p.given_name,
                    p.family_name,
                    p.preferred_name,
                    p.native_name,
                ),
                topics=join(
                    *(topics.get(t, "") for (t,) in related["topics"].get(p.pk, ())),
                    *(join(*area) for area in related["areas"].get(p.pk, ())),
                ),
                body=join(
                    p.headline,
                    p.position_title,
                    roles.get(p.role, p.role),
                    p.team,
                    p.organization__name,
                    p.organization__short_name,
                    p.bio,
                    p.research_summary,
                    # Their papers: a paper on a subject says more than a line
                    # of their career that mentions it, less than an interest.
                    *(related["pub_text"].get(pub, "") for (pub,) in papers),
                    # The topics of their papers, each once: repeated for every
                    # paper they were half of the text of a prolific member's.
                    *(topics.get(t, "") for t in sorted(paper_topics)),
                ),
                extra=join(
                    p.location,
                    *(
                        join(*row)
                        for section in related["career"]
                        for row in section.get(p.pk, ())
                    ),
                    *(
                        join(*row)
                        for section in related["other"]
                        for row in section.get(p.pk, ())
                    ),
                    # Their news, talks and awards: often the only place a new
                    # paper or prize is mentioned yet.
                    *(join(*row) for row in related["events"].get(p.pk, ())),
                ),
            )


def _related_rows(chunk: list[int]) -> dict:
    """A chunk of members' related rows, grouped by member, in a fixed order (so
    the same data always make the same document, a restored backup included)."""
    of = within("person_id", chunk)
    # The chunk's papers by a subquery, not a list of tens of thousands of ids;
    # each paper's text is read once, not once per author.
    pub_ids = Authorship.objects.filter(**of).values("publication_id")
    pubs = Publication.objects.filter(pk__in=pub_ids)
    return {
        "topics": grouped(
            people.Person.topics.through.objects.filter(**of)
            .order_by("person_id", "topic_id")
            .values_list("person_id", "topic_id")
        ),
        "areas": grouped(
            people.ResearchArea.objects.filter(**of).values_list(
                "person_id", "title", "subtitle", "items"
            )
        ),
        "career": [
            grouped(model.objects.filter(**of).values_list("person_id", *fields))
            for model, fields in CAREER_SECTIONS
        ],
        "other": [
            grouped(model.objects.filter(**of).values_list("person_id", *fields))
            for model, fields in OTHER_SECTIONS
        ],
        "authored": grouped(
            Authorship.objects.filter(**of).values_list("person_id", "publication_id")
        ),
        "pub_topics": grouped(
            Publication.topics.through.objects.filter(publication_id__in=pub_ids)
            .order_by("publication_id", "topic_id")
            .values_list("publication_id", "topic_id")
        ),
        "events": grouped(
            Event.people.through.objects.filter(**of)
            .order_by("person_id", "-event__date", "event_id")
            .values_list(
                "person_id", "event__title", "event__host", "event__description"
            )
        ),
        "pub_text": {
            pk: join(title, summary)
            for pk, title, summary in pubs.values_list("pk", "title", "summary")
        },
    }


def person_sources(ids: list[int]) -> dict[int, list[Source]]:
    """What each member is found by, labelled as a visitor would say it."""
    texts = cached_topic_texts()
    of = {"person_id__in": ids}
    found: dict[int, list[Source]] = {pk: [] for pk in ids}
    for pk, topic_id, name in people.Person.topics.through.objects.filter(
        **of
    ).values_list("person_id", "topic_id", "topic__name"):
        found[pk].append(topic_source(name, texts[topic_id], "research interest"))
    for pk, *area in people.ResearchArea.objects.filter(**of).values_list(
        "person_id", "title", "subtitle", "items"
    ):
        found[pk].append(Source("research area", area[0], hidden=join(*area[1:])))
    papers = Publication.objects.filter(authorships__person_id__in=ids)
    paper_topics = grouped(
        Publication.topics.through.objects.filter(publication__in=papers)
        .order_by("publication_id", "topic_id")
        .values_list("publication_id", "topic_id")
    )
    for pk, paper, title, summary in (
        Authorship.objects.filter(**of)
        .order_by("person_id", "-publication__year", "publication__title")
        .values_list(
            "person_id", "publication_id", "publication__title", "publication__summary"
        )
    ):
        topics = (texts[t] for (t,) in paper_topics.get(paper, ()))
        found[pk].append(Source("paper", title, hidden=join(summary, *topics)))
    for pk, kind, title, host, description in (
        Event.people.through.objects.filter(**of)
        .order_by("person_id", "-event__date")
        .values_list(
            "person_id",
            "event__kind",
            "event__title",
            "event__host",
            "event__description",
        )
    ):
        label, plural = ("talk", "talks") if kind in Event.TALK_KINDS else ("news",) * 2
        found[pk].append(
            Source(label, title, hidden=join(host, description), plural=plural)
        )
    for pk, *texts_of, organization, team in people.Person.objects.filter(
        pk__in=ids
    ).values_list(
        "pk", "headline", "bio", "research_summary", "organization__name", "team"
    ):
        found[pk] += [
            Source(label, text, quote=True)
            for label, text in zip(PROFILE_TEXTS, texts_of, strict=True)
            if text
        ]
        found[pk] += [Source("organisation", o) for o in (organization, team) if o]
    for section, pk, shown, rest in _section_rows(of, reasons_only=True):
        found[pk].append(
            Source(section.label, shown, hidden=join(*rest), terse=section.terse)
        )
    return found


def _section_rows(of: dict, *, reasons_only: bool = False) -> Iterator[tuple]:
    """(section, member, first field, other fields) of the members' sections."""
    for section in SECTIONS:
        if reasons_only and not section.reason:
            continue
        for pk, shown, *rest in section.model.objects.filter(**of).values_list(
            "person_id", *section.fields
        ):
            yield section, pk, shown, rest


PROFILE_TEXTS = ("headline", "bio", "research summary")


class Section(NamedTuple):
    """A profile section a member is found by: its label, model and fields (the
    first one shown), its weight as evidence (search.evidence: a line that
    mentions a subject counts less than a paper on it by one of five authors),
    whether that first field is too terse to say why it matched ("experience:
    First Author") when the others did, and whether "why it matched" names it."""

    label: str
    model: type
    fields: tuple[str, ...]
    weight: float
    terse: bool = False
    reason: bool = True


# In the order "why it matched" names them, after papers and news.
SECTIONS = (
    Section("award", people.Award, ("title", "detail", "granting_body"), 0.3),
    Section(
        "experience",
        people.Experience,
        ("role", "organization__name", "team", "notes"),
        0.3,
        terse=True,
    ),
    Section(
        "education",
        people.Education,
        # A terse section: its unit, hidden, never explains a match on its own.
        ("degree", "field", "organization__name", "unit"),
        0.3,
        terse=True,
    ),
    Section(
        "open source", people.OpenSourceContribution, ("project", "description"), 0.5
    ),
    Section("skills", people.Skill, ("category", "items"), 0.3, reason=False),
    Section("service", people.Service, ("role", "venue"), 0.3, reason=False),
    Section(
        "teaching",
        people.Teaching,
        ("course_title", "course_code"),
        0.3,
        reason=False,
    ),
    Section(
        "off-duty interest",
        people.Interest,
        ("title", "description"),
        0.1,
        reason=False,
    ),
)


# How strongly each kind of passage belongs to a member (search.evidence): what
# they chose to say they work on first, a paper by its place among the authors,
# what they mention in passing least.
PASSAGE_WEIGHTS = {
    "name": 1.0,
    "research interest": 1.0,
    "research area": 1.0,
    "headline": 0.8,
    "research summary": 0.8,
    "bio": 0.6,
    "talk": 0.7,
    "news": 0.4,
    "organisation": 0.5,
}
# A paper's weight for an author who is neither first nor last: 1/√(authors),
# never below this.
LEAST_PAPER_WEIGHT = 0.2


def paper_weight(position: int, authors: int, *, equal: bool, unknown: bool) -> float:
    """How strongly a paper belongs to one of its authors: the first (or an equal
    first) 1, the last of three or more 0.8, the others by the number of authors."""
    if unknown:
        return max(LEAST_PAPER_WEIGHT, authors**-0.5)
    if position == 1 or equal or authors == 1:
        return 1.0
    if position == authors and authors >= 3:
        return 0.8
    return max(LEAST_PAPER_WEIGHT, authors**-0.5)


def person_passages(ids: Iterable[int]) -> Iterator[Evidence]:
    """Each member's passages: what search.evidence ranks them by."""
    texts = cached_topic_texts()
    of = {"person_id__in": list(ids)}
    yield from _profile_passages(of["person_id__in"])
    for pk, topic_id, name in people.Person.topics.through.objects.filter(
        **of
    ).values_list("person_id", "topic_id", "topic__name"):
        yield _passage(pk, "research interest", name, texts.get(topic_id, name))
    for pk, *area in people.ResearchArea.objects.filter(**of).values_list(
        "person_id", "title", "subtitle", "items"
    ):
        yield _passage(pk, "research area", area[0], join(*area))
    yield from _paper_passages(of)
    for pk, event, kind, title in Event.people.through.objects.filter(**of).values_list(
        "person_id", "event_id", "event__kind", "event__title"
    ):
        label = "talk" if kind in Event.TALK_KINDS else "news"
        yield _passage(pk, label, title, record=("event", event))
    for section, pk, shown, rest in _section_rows(of):
        text = join(shown, *rest)
        yield Evidence(pk, section.label, str(shown or text), text, section.weight)


def _passage(owner: int, label: str, shown: str, text: str = "", **kwargs) -> Evidence:
    return Evidence(owner, label, shown, text, PASSAGE_WEIGHTS[label], **kwargs)


def _profile_passages(ids: list[int]) -> Iterator[Evidence]:
    rows = people.Person.objects.filter(pk__in=ids).values_list(
        *PERSON_FIELDS, named=True
    )
    for p in rows:
        names = join(
            p.display_name, p.given_name, p.family_name, p.preferred_name, p.native_name
        )
        yield _passage(p.pk, "name", p.display_name, names, embed=False)
        for label, text in (
            ("headline", p.headline or p.position_title),
            ("research summary", p.research_summary),
        ):
            if text:
                yield _passage(p.pk, label, text, text)
        for paragraph in _paragraphs(p.bio):
            yield _passage(p.pk, "bio", paragraph, paragraph)
        organisation = join(p.organization__name, p.organization__short_name, p.team)
        if organisation:
            yield _passage(
                p.pk, "organisation", organisation, organisation, embed=False
            )


def _paragraphs(text: str, size: int = 600) -> list[str]:
    """A text in paragraphs, long ones cut at sentence ends near `size` letters."""
    out = []
    for paragraph in (text or "").split("\n\n"):
        paragraph = " ".join(paragraph.split())
        while len(paragraph) > size:
            cut = paragraph.rfind(". ", 0, size)
            cut = cut + 1 if cut > size // 3 else size
            out.append(paragraph[:cut])
            paragraph = paragraph[cut:].strip()
        if paragraph:
            out.append(paragraph)
    return out


def _paper_passages(of: dict) -> Iterator[Evidence]:
    mine = Authorship.objects.filter(**of)
    authors = dict(
        Authorship.objects.filter(publication_id__in=mine.values("publication_id"))
        .values("publication_id")
        .annotate(n=Count("id"))
        .values_list("publication_id", "n")
    )
    for pk, paper, title, position, equal, unknown in mine.values_list(
        "person_id",
        "publication_id",
        "publication__title",
        "position",
        "equal_contribution",
        "position_unknown",
    ):
        weight = paper_weight(
            position, authors.get(paper, 1), equal=equal, unknown=unknown
        )
        yield Evidence(pk, "paper", title, weight=weight, record=("publication", paper))


def authors_of(publication_ids: Iterable[int]) -> set[int]:
    """The members among the authors of these publications."""
    return set(
        Authorship.objects.filter(
            publication_id__in=publication_ids, person__isnull=False
        ).values_list("person_id", flat=True)
    )


def _owner(row) -> list[int]:
    return [row.person_id]


def _authors_of_publication(publication: Publication) -> set[int]:
    return authors_of([publication.pk])


def _author(authorship: Authorship) -> list[int | None]:
    return [authorship.person_id]


def _people_of_event(event: Event):
    return Event.people.through.objects.filter(event=event).values_list(
        "person_id", flat=True
    )


def _members_of_organization(organization: Organization):
    return people.Person.objects.filter(organization=organization).values_list(
        "pk", flat=True
    )


def _members_under_topic(topic: Topic) -> set[int]:
    """Members with the topic or one below it, in their interests or their papers."""
    subtree = TopicClosure.objects.filter(ancestor=topic).values("descendant_id")
    papers = Publication.objects.filter(topics__in=subtree).values_list("pk", flat=True)
    interested = people.Person.objects.filter(topics__in=subtree)
    return set(interested.values_list("pk", flat=True)) | authors_of(papers)


def register() -> None:
    searchable(
        "person",
        people.Person,
        people.PersonSearchDocument,
        person_documents,
        person_sources,
        passages=person_passages,
    )
    for section in (
        people.ResearchArea,
        people.Teaching,
        *(model for model, _ in CAREER_SECTIONS + OTHER_SECTIONS),
    ):
        reindex_on(section, "person", _owner)
    reindex_on(Publication, "person", _authors_of_publication)
    reindex_on(Authorship, "person", _author)
    reindex_on(Organization, "person", _members_of_organization, deleted=False)
    reindex_on(Topic, "person", _members_under_topic, deleted=False)
    reindex_on_link(people.Person.topics.through, "person")
    reindex_on_link(Publication.topics.through, "person", authors_of)
    reindex_on(Event, "person", _people_of_event, named_before_delete=True)
    reindex_on_link_targets(Event.people.through, "person")
