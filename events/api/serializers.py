from rest_framework import serializers

from core.api.fields import SlugIdentityField, SlugRelatedLinkField, slug_url
from core.api.serializers import (
    BuiltOnceMixin,
    ModelCleanMixin,
    SlugRelatedField,
    TopicBriefSerializer,
)
from core.models import Topic
from events.models import Event, EventLink
from people.api.serializers import PersonBriefSerializer
from people.models import Person
from publications.models import Publication


class EventLinkSerializer(serializers.ModelSerializer):
    class Meta:
        model = EventLink
        fields = ["kind", "label", "url"]


class EventSerializer(BuiltOnceMixin, serializers.HyperlinkedModelSerializer):
    url = SlugIdentityField(view_name="api:event-detail", lookup_field="slug")
    people = PersonBriefSerializer(many=True)
    publication = SlugRelatedLinkField(
        view_name="api:publication-detail",
        lookup_field="slug",
        read_only=True,
        allow_null=True,
    )
    topics = TopicBriefSerializer(many=True)
    links = EventLinkSerializer(many=True)
    date_display = serializers.CharField(read_only=True)
    html_url = serializers.SerializerMethodField()

    class Meta:
        model = Event
        fields = [
            "url",
            "slug",
            "kind",
            "title",
            "date",
            "date_precision",
            "date_display",
            "end_date",
            "location",
            "host",
            "description",
            "people",
            "publication",
            "topics",
            "links",
            "html_url",
        ]

    def get_html_url(self, event: Event) -> str:
        return slug_url(self.context["request"], "events:detail", event.slug)


class EventWriteSerializer(ModelCleanMixin, serializers.ModelSerializer):
    people = SlugRelatedField(
        slug_field="slug", queryset=Person.objects.all(), many=True, required=False
    )
    topics = SlugRelatedField(
        slug_field="slug", queryset=Topic.objects.all(), many=True, required=False
    )
    publication = SlugRelatedField(
        slug_field="slug",
        queryset=Publication.objects.all(),
        allow_null=True,
        required=False,
    )

    class Meta:
        model = Event
        fields = [
            "slug",
            "kind",
            "title",
            "date",
            "date_precision",
            "end_date",
            "location",
            "host",
            "description",
            "people",
            "publication",
            "topics",
        ]
