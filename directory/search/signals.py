"""Signal handlers: which documents a write makes stale."""

from django.db.models.signals import m2m_changed, post_delete, post_save

from directory.models import Organization, Topic, TopicClosure
from directory.search.indexing import schedule


def _people_of_publications(publication_ids) -> set[int]:
    from publications.models import Authorship

    return set(
        Authorship.objects.filter(
            publication_id__in=publication_ids, person__isnull=False
        ).values_list("person_id", flat=True)
    )


def person_changed(sender, instance, **kwargs) -> None:
    from events.models import Event

    schedule("person", [instance.pk])
    if kwargs.get("signal") is post_save:
        schedule(
            "event", Event.objects.filter(people=instance).values_list("pk", flat=True)
        )


def profile_row_changed(sender, instance, **kwargs) -> None:
    schedule("person", [instance.person_id])


def publication_changed(sender, instance, **kwargs) -> None:
    schedule("publication", [instance.pk])
    schedule("person", _people_of_publications([instance.pk]))


def authorship_changed(sender, instance, **kwargs) -> None:
    schedule("publication", [instance.publication_id])
    schedule("person", [instance.person_id])


def event_changed(sender, instance, **kwargs) -> None:
    schedule("event", [instance.pk])


def venue_changed(sender, instance, **kwargs) -> None:
    from publications.models import Publication

    ids = list(Publication.objects.filter(venue=instance).values_list("pk", flat=True))
    schedule("publication", ids)


def organization_changed(sender, instance, **kwargs) -> None:
    from people.models import Person

    schedule(
        "person",
        Person.objects.filter(organization=instance).values_list("pk", flat=True),
    )


def topic_changed(sender, instance, **kwargs) -> None:
    from events.models import Event
    from people.models import Person
    from publications.models import Publication

    subtree = TopicClosure.objects.filter(ancestor=instance).values("descendant_id")
    publications = list(
        Publication.objects.filter(topics__in=subtree).values_list("pk", flat=True)
    )
    schedule("publication", publications)
    schedule(
        "person", Person.objects.filter(topics__in=subtree).values_list("pk", flat=True)
    )
    schedule("person", _people_of_publications(publications))
    schedule(
        "event", Event.objects.filter(topics__in=subtree).values_list("pk", flat=True)
    )


def m2m_handler(kind: str, *, also_authors: bool = False):
    """A handler for one many-to-many relation (connect it with weak=False)."""

    def handler(sender, instance, action, reverse, pk_set, **kwargs) -> None:
        if not action.startswith("post_"):
            return
        ids = set(pk_set or ()) if reverse else {instance.pk}
        if reverse and action == "post_clear":
            return  # the related side's own save re-indexes what it needs
        schedule(kind, ids)
        if also_authors:
            schedule("person", _people_of_publications(ids))

    return handler


def connect() -> None:
    from events.models import Event
    from people import models as people
    from publications.models import Authorship, Publication, Venue

    for signal in (post_save, post_delete):
        signal.connect(
            person_changed, sender=people.Person, dispatch_uid=f"s-person-{signal}"
        )
        for row in (
            people.ResearchArea,
            people.Education,
            people.Experience,
            people.Award,
            people.Service,
            people.Teaching,
            people.OpenSourceContribution,
            people.Skill,
            people.Interest,
        ):
            signal.connect(
                profile_row_changed, sender=row, dispatch_uid=f"s-{row}-{signal}"
            )
        signal.connect(
            publication_changed, sender=Publication, dispatch_uid=f"s-pub-{signal}"
        )
        signal.connect(
            authorship_changed, sender=Authorship, dispatch_uid=f"s-auth-{signal}"
        )
        signal.connect(event_changed, sender=Event, dispatch_uid=f"s-event-{signal}")
    post_save.connect(venue_changed, sender=Venue, dispatch_uid="s-venue")
    post_save.connect(organization_changed, sender=Organization, dispatch_uid="s-org")
    post_save.connect(topic_changed, sender=Topic, dispatch_uid="s-topic")
    m2m_changed.connect(
        m2m_handler("person"),
        sender=people.Person.topics.through,
        dispatch_uid="s-pt",
        weak=False,
    )
    m2m_changed.connect(
        m2m_handler("publication", also_authors=True),
        sender=Publication.topics.through,
        dispatch_uid="s-pubt",
        weak=False,
    )
    m2m_changed.connect(
        m2m_handler("event"),
        sender=Event.topics.through,
        dispatch_uid="s-et",
        weak=False,
    )
    m2m_changed.connect(
        m2m_handler("event"),
        sender=Event.people.through,
        dispatch_uid="s-ep",
        weak=False,
    )
