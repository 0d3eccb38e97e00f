"""The topics each member is on: their research interests and their papers' topics.

A visitor looking for who works on a topic means both: a member whose three papers
are on KV-cache quantization works on it whether or not they listed it as an
interest. `PersonTopic` holds one row per member and topic with the reason (an
interest, a count of papers); it is recomputed for the members the search index
re-indexes, which every write that changes either already does (people/search.py).
"""

from collections import Counter
from collections.abc import Iterable

from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet

from people.models import Person, PersonTopic
from publications.models import Authorship, Publication
from search.documents import id_chunks, within


@transaction.atomic
def refresh(person_ids: Iterable[int]) -> None:
    """Recompute the topics of these members (those that no longer exist have none)."""
    for chunk in id_chunks(person_ids):
        interests = set(
            Person.topics.through.objects.filter(
                **within("person_id", chunk)
            ).values_list("person_id", "topic_id")
        )
        # Each paper once per author and topic, however often its author is listed.
        authored = set(
            Authorship.objects.filter(**within("person_id", chunk))
            .values_list("person_id", "publication_id")
            .distinct()
        )
        papers = {pk for _, pk in authored}
        topics_of: dict[int, list[int]] = {}
        for publication_id, topic_id in Publication.topics.through.objects.filter(
            publication_id__in=papers
        ).values_list("publication_id", "topic_id"):
            topics_of.setdefault(publication_id, []).append(topic_id)
        counts = Counter(
            (person_id, topic_id)
            for person_id, publication_id in authored
            for topic_id in topics_of.get(publication_id, ())
        )
        PersonTopic.objects.filter(**within("person_id", chunk)).delete()
        PersonTopic.objects.bulk_create(
            [
                PersonTopic(
                    person_id=person_id,
                    topic_id=topic_id,
                    interest=(person_id, topic_id) in interests,
                    papers=counts[person_id, topic_id],
                )
                for person_id, topic_id in sorted(interests | counts.keys())
            ],
            batch_size=1000,
        )


def rebuild() -> str:
    """Recompute every member's topics; report how many links there are."""
    refresh(Person.objects.values_list("pk", flat=True))
    return f"Linked members to topics {PersonTopic.objects.count()} times."


def interested_in(topic_ids: QuerySet) -> Exists:
    """Whether a member (the outer query's row) lists one of these topics (ids, or
    a subquery of them) as an interest."""
    return Exists(
        PersonTopic.objects.filter(
            person=OuterRef("pk"), topic__in=topic_ids, interest=True
        )
    )


def on_topics(queryset: QuerySet, topic_ids: QuerySet) -> QuerySet:
    """The members of `queryset` on any of these topics, by interest or papers,
    with `interested`: whether they list one of them as an interest."""
    return queryset.filter(
        pk__in=PersonTopic.objects.filter(topic__in=topic_ids).values("person_id")
    ).annotate(interested=interested_in(topic_ids))
