"""An event as schema.org JSON-LD."""

from typing import Any

from core.lib.dates import iso_partial
from core.structured_data import SCHEMA, Absolute, clean, person_ref, plain_text


def event_jsonld(event, absolute: Absolute) -> dict[str, Any]:
    """An event (talk, news item) as a schema.org Event."""
    url = absolute(event.get_absolute_url())
    people = [
        person_ref(person.display_name, person, absolute)
        for person in event.people.all()
    ]
    return clean(
        {
            "@context": SCHEMA,
            "@type": "Event",
            "@id": url,
            "url": url,
            "name": event.title,
            "startDate": iso_partial(event.date, event.date_precision),
            "endDate": iso_partial(event.end_date, event.date_precision),
            "description": plain_text(event.description),
            "location": clean(
                {"@type": "Place", "name": event.location, "address": event.location}
            )
            if event.location
            else None,
            "organizer": {"@type": "Organization", "name": event.host}
            if event.host
            else None,
            "performer": people,
            "about": [
                clean(
                    {
                        "@type": "ScholarlyArticle",
                        "name": publication.title,
                        "url": absolute(publication.get_absolute_url()),
                    }
                )
                for publication in event.publications.all()
            ],
            "keywords": [topic.name for topic in event.topics.all()],
        }
    )
