"""Feeds of the lab's events: Atom news for readers, iCalendar for calendars."""

import datetime
import re
from collections.abc import Callable, Iterable

import icalendar
from django.contrib.syndication.views import Feed
from django.http import HttpRequest, HttpResponse
from django.http.request import split_domain_port
from django.urls import reverse
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed

from core.dates import Precision
from core.lib.dates import format_partial
from core.lib.text import render_markdown
from core.models import Lab
from core.structured_data import plain_text
from events.models import Event

FEED_SIZE = 50
# Control characters XML 1.0 cannot carry; Django refuses to write a feed holding
# one (a vertical tab is how Word writes a line break into pasted text).
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(" ", text)


class NewsFeed(Feed):
    """The lab's news (everything but talks), newest first, as Atom."""

    feed_type = Atom1Feed

    def title(self) -> str:
        lab = Lab.objects.current()
        return f"{lab.name}: news" if lab else "News"

    def subtitle(self) -> str:
        lab = Lab.objects.current()
        return lab.description if lab else ""

    def link(self) -> str:
        return reverse("events:list")

    def feed_url(self) -> str:
        return reverse("events:feed")

    def items(self):
        return (
            Event.objects.news()
            .prefetch_related("people", "topics")
            .order_by("-date", "-id")[:FEED_SIZE]
        )

    def item_title(self, item: Event) -> str:
        return _xml_text(item.title)

    def item_description(self, item: Event) -> str:
        return _xml_text(render_markdown(item.description))

    def item_pubdate(self, item: Event) -> datetime.datetime:
        # Atom wants an instant; a date known to the day or less starts at midnight.
        return timezone.make_aware(
            datetime.datetime.combine(item.date, datetime.time())
        )

    def item_updateddate(self, item: Event) -> datetime.datetime:
        return item.updated_at

    def item_author_name(self, item: Event) -> str | None:
        names = ", ".join(p.display_name for p in item.people.all())
        return _xml_text(names) or None

    def item_categories(self, item: Event) -> list[str]:
        return [_xml_text(topic.name) for topic in item.topics.all()]


def _site_host(request: HttpRequest) -> str:
    domain, _port = split_domain_port(request.get_host())
    return domain or "localhost"


def _first_of_next_month(value: datetime.date) -> datetime.date:
    return (value.replace(day=28) + datetime.timedelta(days=4)).replace(day=1)


def _span(event: Event) -> tuple[datetime.date, datetime.date] | None:
    """All-day start and exclusive end; None when the date is known only to a year."""
    last = event.end_date or event.date
    if event.date_precision == Precision.DAY:
        return event.date, last + datetime.timedelta(days=1)
    if event.date_precision == Precision.MONTH:
        # Known to the month: the entry covers the month without claiming a day.
        return event.date.replace(day=1), _first_of_next_month(last)
    # A year-long entry would only clutter a calendar; pages and the feed list it.
    return None


def vevent(
    event: Event, *, host: str, absolute: Callable[[str], str]
) -> icalendar.Event | None:
    """One event as a VEVENT with a UID that survives edits, or None if undatable."""
    span = _span(event)
    if span is None:
        return None
    url = absolute(event.get_absolute_url())
    lines = []
    if event.date_precision != Precision.DAY:
        lines.append(
            f"Date known to the month: {format_partial(event.date, Precision.MONTH)}."
        )
    if event.host:
        lines.append(f"Host: {event.host}")
    if event.description:
        lines.append(plain_text(event.description))
    lines.append(url)
    stamp = event.updated_at.astimezone(datetime.UTC)
    return icalendar.Event.new(
        # The primary key never changes, unlike the title or slug.
        uid=f"event-{event.pk}@{host}",
        summary=event.title,
        start=span[0],
        end=span[1],
        stamp=stamp,
        last_modified=stamp,
        url=url,
        location=event.location or None,
        description="\n\n".join(lines),
        categories=[event.get_kind_display()],
        # A talk on a known day takes the time of those who go; news, and a
        # month-wide entry, only mark the calendar.
        transparency="OPAQUE"
        if event.is_talk and event.date_precision == Precision.DAY
        else "TRANSPARENT",
    )


def calendar(
    events: Iterable[Event], *, name: str, key: str, request: HttpRequest
) -> bytes:
    """An RFC 5545 calendar of the events, byte-identical until one changes."""
    host = _site_host(request)
    cal = icalendar.Calendar.new(
        prodid="-//Lab directory//EN",
        # icalendar writes the name as is, not escaped as text: a line break in
        # a member's name would end the content line and fail the whole calendar.
        name=" ".join(name.split()),
        # Without a UID icalendar makes a random one: every request would differ.
        uid=f"{key}@{host}",
        url=request.build_absolute_uri(request.path),
        calscale="GREGORIAN",
    )
    for event in events:
        component = vevent(event, host=host, absolute=request.build_absolute_uri)
        if component is not None:
            cal.add_component(component)
    return cal.to_ical()


def calendar_response(
    request: HttpRequest,
    events: Iterable[Event],
    *,
    name: str,
    key: str,
    filename: str,
) -> HttpResponse:
    response = HttpResponse(
        calendar(events, name=name, key=key, request=request),
        content_type="text/calendar; charset=utf-8",
    )
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response
