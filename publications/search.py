"""What a publication is found by, and which writes make its search document stale."""

from collections.abc import Iterable, Iterator

from core.models import Topic, TopicClosure
from people.models import Person
from publications.models import (
    Authorship,
    Publication,
    PublicationSearchDocument,
    Venue,
)
from search.documents import (
    Document,
    cached_topic_texts,
    grouped,
    id_chunks,
    join,
    within,
)
from search.reasons import Source, topic_source
from search.registration import reindex_on, reindex_on_link, searchable

# The texts a paper is found by, in the order publication_sources unpacks them.
TEXT_FIELDS = (
    "pk",
    "title",
    "alternative_title",
    "summary",
    "key_results",
    "venue__name",
    "venue__short_name",
    "venue_detail",
)
PUBLICATION_FIELDS = (*TEXT_FIELDS, "kind", "doi", "arxiv_id")


def publication_documents(
    ids: Iterable[int], topics: dict[int, str]
) -> Iterator[Document]:
    kinds = dict(Publication.Kind.choices)
    for chunk in id_chunks(ids):
        of = within("publication_id", chunk)
        rows = Publication.objects.filter(**within("pk", chunk)).values_list(
            *PUBLICATION_FIELDS, named=True
        )
        authors = grouped(
            Authorship.objects.filter(**of)
            .order_by("publication_id", "position")
            .values_list("publication_id", "name")
        )
        pub_topics = grouped(
            Publication.topics.through.objects.filter(**of)
            .order_by("publication_id", "topic_id")
            .values_list("publication_id", "topic_id")
        )
        for p in rows:
            yield Document(
                p.pk,
                heading=join(p.title, p.alternative_title),
                topics=join(*(topics.get(t, "") for (t,) in pub_topics.get(p.pk, ()))),
                body=join(
                    *(name for (name,) in authors.get(p.pk, ())),
                    p.summary,
                    p.key_results,
                    p.venue__name,
                    p.venue__short_name,
                ),
                extra=join(
                    p.venue_detail,
                    kinds.get(p.kind, p.kind) if p.kind else "",
                    p.doi,
                    p.arxiv_id,
                ),
            )


def publication_sources(ids: list[int]) -> dict[int, list[Source]]:
    """What each paper is found by, labelled as a visitor would say it."""
    texts = cached_topic_texts()
    found: dict[int, list[Source]] = {pk: [] for pk in ids}
    for pk, topic_id, name in Publication.topics.through.objects.filter(
        publication_id__in=ids
    ).values_list("publication_id", "topic_id", "topic__name"):
        found[pk].append(topic_source(name, texts[topic_id]))
    rows = Publication.objects.filter(pk__in=ids).values_list(*TEXT_FIELDS)
    authors = grouped(
        Authorship.objects.filter(publication_id__in=ids)
        .order_by("publication_id", "position")
        .values_list("publication_id", "name")
    )
    for pk, title, alternative, summary, key_results, venue, short, detail in rows:
        found[pk] += [
            *(
                Source(label, text, quote=True)
                for label, text in (("summary", summary), ("key results", key_results))
                if text
            ),
            *(Source("author", name) for (name,) in authors.get(pk, ())),
        ]
        if venue or detail:
            names = tuple(v for v in (short, detail) if v)
            found[pk].append(Source("venue", venue or detail, also=names))
        # Last: the title is shown above the reasons already.
        found[pk].append(
            Source("title", title, also=(alternative,) if alternative else ())
        )
    return found


def _paper(authorship: Authorship) -> list[int]:
    return [authorship.publication_id]


def _papers_at_venue(venue: Venue):
    return Publication.objects.filter(venue=venue).values_list("pk", flat=True)


def _papers_of_member(person: Person):
    return Publication.objects.filter(authorships__person=person).values_list(
        "pk", flat=True
    )


def _papers_under_topic(topic: Topic):
    subtree = TopicClosure.objects.filter(ancestor=topic).values("descendant_id")
    return Publication.objects.filter(topics__in=subtree).values_list("pk", flat=True)


def register() -> None:
    searchable(
        "publication",
        Publication,
        PublicationSearchDocument,
        publication_documents,
        publication_sources,
    )
    reindex_on(Authorship, "publication", _paper)
    # A deleted venue or member leaves its papers by on_delete=SET_NULL, which
    # sends no signal: their papers are named before and re-indexed after.
    reindex_on(Venue, "publication", _papers_at_venue, named_before_delete=True)
    reindex_on(
        Person, "publication", _papers_of_member, named_before_delete=True, saved=False
    )
    reindex_on(Topic, "publication", _papers_under_topic, deleted=False)
    reindex_on_link(Publication.topics.through, "publication")
