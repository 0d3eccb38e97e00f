"""A member as a vCard 4.0 (RFC 6350), written by icalendar's content-line code."""

import datetime
from collections.abc import Callable

from icalendar import Component
from icalendar.prop import vN, vOrg, vText, vUri

from core.models import Lab
from people.models import Person


def person_vcard(person: Person, absolute: Callable[[str], str]) -> bytes:
    """The member's contact card: names, organisation, title, links, and email
    only where the member's record says it may be published."""
    card = Component()
    card.name = "VCARD"
    # RFC 6350 wants VERSION straight after BEGIN; properties stay in this order.
    card.add("VERSION", vText("4.0"))
    card.add("PRODID", vText("-//Lab directory//EN"))
    card.add("KIND", vText("individual"))
    card.add("FN", vText(person.display_name))
    card.add("N", vN((person.family_name, person.given_name, "", "", "")))
    if person.preferred_name:
        card.add("NICKNAME", vText(person.preferred_name))
    if person.organization or person.team:
        lab = Lab.objects.current()
        group = lab.name if lab and lab.has_members else ""
        org = person.organization.name if person.organization else group
        # vOrg separates units with ";" without escaping one inside a unit.
        units = [unit.replace(";", ",") for unit in (org, person.team) if unit]
        card.add("ORG", vOrg(tuple(units)))
    title = person.position_title or person.get_role_display()
    card.add("TITLE", vText(title))
    # Pages write addresses obfuscated; a plain one here would undo that for crawlers.
    if person.publish_email:
        for address in (person.email, person.secondary_email):
            if address:
                card.add("EMAIL", vText(address))
    card.add("URL", vUri(absolute(person.get_absolute_url())))
    for link in person.links.all():
        if link.url:
            card.add("URL", vUri(link.url))
    if person.photo:
        card.add("PHOTO", vUri(absolute(person.photo.url)))
    if person.headline:
        card.add("NOTE", vText(person.headline))
    revised = person.updated_at.astimezone(datetime.UTC)
    card.add("REV", vText(revised.strftime("%Y%m%dT%H%M%SZ")))
    return card.to_ical(sorted=False)
