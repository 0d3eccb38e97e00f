"""A member's profile as schema.org JSON-LD."""

from typing import Any

from django.urls import reverse
from django.utils import timezone

from core.lib.identifiers import openalex_url, orcid_url
from core.models import Lab
from core.structured_data import SCHEMA, Absolute, clean, identified, organization


def person_jsonld(person, absolute: Absolute) -> dict[str, Any]:
    """A member's profile as a schema.org Person."""
    url = absolute(person.get_absolute_url())
    # A study still under way (ongoing, or ending later than today) is not alumni.
    today = timezone.localdate()
    alumni, seen = [], set()
    for row in person.education.all():
        if row.is_ongoing or (row.end_date and row.end_date > today):
            continue
        if row.organization_id not in seen:
            seen.add(row.organization_id)
            alumni.append(organization(row.organization))
    return clean(
        {
            "@context": SCHEMA,
            "@type": "Person",
            "@id": f"{url}#person",
            "url": url,
            "name": person.display_name,
            "givenName": person.given_name,
            "familyName": person.family_name,
            "alternateName": [
                n for n in (person.native_name, person.preferred_name) if n
            ],
            "jobTitle": person.position_title or person.get_role_display(),
            "description": person.headline,
            "image": absolute(person.photo.url) if person.photo else "",
            "affiliation": organization(person.organization)
            if person.organization
            else None,
            "memberOf": group(Lab.objects.current(), absolute),
            "alumniOf": alumni,
            "knowsAbout": [topic.name for topic in person.topics.all()],
            **identified(
                [
                    ("ORCID", person.orcid, orcid_url(person.orcid)),
                    ("OpenAlex", person.openalex_id, openalex_url(person.openalex_id)),
                ],
                [link.url for link in person.links.all() if link.url],
            ),
        }
    )


def group(lab: Lab | None, absolute: Absolute) -> dict[str, Any] | None:
    """The research group the member belongs to, if the lab record is one."""
    if lab is None or not lab.has_members:
        return None
    return clean(
        {
            "@type": "ResearchOrganization",
            "name": lab.name,
            "url": lab.url or absolute(reverse("home")),
            "email": lab.email,
        }
    )
