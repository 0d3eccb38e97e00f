"""What an event is found by, and which writes make its search document stale."""

from collections.abc import Iterable, Iterator

from core.models import Topic, TopicClosure
from events.models import Event, EventSearchDocument
from people.models import Person
from search.documents import Document, grouped, id_chunks, join, within
from search.registration import reindex_on, reindex_on_link, searchable

EVENT_FIELDS = (
    "pk",
    "title",
    "description",
    "host",
    "location",
    "kind",
)


def event_documents(ids: Iterable[int], topics: dict[int, str]) -> Iterator[Document]:
    kinds = dict(Event.Kind.choices)
    for chunk in id_chunks(ids):
        of = within("event_id", chunk)
        rows = Event.objects.filter(**within("pk", chunk)).values_list(
            *EVENT_FIELDS, named=True
        )
        people = grouped(
            Event.people.through.objects.filter(**of)
            .order_by("event_id", "person_id")
            .values_list("event_id", "person__display_name")
        )
        titles = grouped(
            Event.publications.through.objects.filter(**of)
            .order_by("event_id", "publication_id")
            .values_list("event_id", "publication__title")
        )
        event_topics = grouped(
            Event.topics.through.objects.filter(**of)
            .order_by("event_id", "topic_id")
            .values_list("event_id", "topic_id")
        )
        for e in rows:
            named_topics = (topics.get(t, "") for (t,) in event_topics.get(e.pk, ()))
            yield Document(
                e.pk,
                heading=e.title,
                topics=join(*named_topics),
                body=join(
                    e.description, e.host, *(name for (name,) in people.get(e.pk, ()))
                ),
                extra=join(
                    e.location,
                    kinds.get(e.kind, e.kind),
                    *(title for (title,) in titles.get(e.pk, ())),
                ),
            )


def _events_of_person(person: Person):
    return Event.objects.filter(people=person).values_list("pk", flat=True)


def _events_under_topic(topic: Topic):
    subtree = TopicClosure.objects.filter(ancestor=topic).values("descendant_id")
    return Event.objects.filter(topics__in=subtree).values_list("pk", flat=True)


def register() -> None:
    searchable("event", Event, EventSearchDocument, event_documents)
    # A member's name is part of their events' text.
    reindex_on(Person, "event", _events_of_person, deleted=False)
    reindex_on(Topic, "event", _events_under_topic, deleted=False)
    reindex_on_link(Event.topics.through, "event")
    reindex_on_link(Event.people.through, "event")
    reindex_on_link(Event.publications.through, "event")
