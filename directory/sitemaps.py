"""sitemap.xml: every page a search engine should know, with its last change."""

from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from core.models import Topic
from events.models import Event
from people.models import Person
from publications.models import Publication


class StaticSitemap(Sitemap):
    priority = 0.8
    changefreq = "weekly"

    def items(self) -> list[str]:
        return ["home", "people:list", "publications:list", "events:list"]

    def location(self, item: str) -> str:
        return reverse(item)


class PersonSitemap(Sitemap):
    priority = 0.7

    def items(self):
        return Person.objects.order_by("slug")

    def lastmod(self, item: Person):
        return item.updated_at


class PublicationSitemap(Sitemap):
    priority = 0.6

    def items(self):
        return Publication.objects.order_by("slug")

    def lastmod(self, item: Publication):
        return item.updated_at


class EventSitemap(Sitemap):
    priority = 0.5

    def items(self):
        return Event.objects.order_by("slug")

    def lastmod(self, item: Event):
        return item.updated_at


class TopicSitemap(Sitemap):
    priority = 0.4

    def items(self):
        return Topic.objects.order_by("slug")


SITEMAPS = {
    "pages": StaticSitemap,
    "people": PersonSitemap,
    "publications": PublicationSitemap,
    "events": EventSitemap,
    "topics": TopicSitemap,
}
