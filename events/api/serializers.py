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
    publications = SlugRelatedLinkField(
        view_name="api:publication-detail",
        lookup_field="slug",
        read_only=True,
        many=True,
    )
    # The first related publication, for clients written when there was one.
    publication = serializers.SerializerMethodField()
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
            "publications",
            "publication",
            "topics",
            "links",
            "html_url",
        ]

    def get_publication(self, event: Event) -> str | None:
        first = next(iter(event.publications.all()), None)
        if first is None:
            return None
        request = self.context["request"]
        return slug_url(request, "api:publication-detail", first.slug)

    def get_html_url(self, event: Event) -> str:
        return slug_url(self.context["request"], "events:detail", event.slug)


class EventWriteSerializer(ModelCleanMixin, serializers.ModelSerializer):
    people = SlugRelatedField(
        slug_field="slug", queryset=Person.objects.all(), many=True, required=False
    )
    topics = SlugRelatedField(
        slug_field="slug", queryset=Topic.objects.all(), many=True, required=False
    )
    publications = SlugRelatedField(
        slug_field="slug",
        queryset=Publication.objects.all(),
        many=True,
        required=False,
    )
    # Still accepted: one publication, written as the list of that one.
    publication = SlugRelatedField(
        slug_field="slug",
        queryset=Publication.objects.all(),
        allow_null=True,
        required=False,
        write_only=True,
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
            "publications",
            "publication",
            "topics",
        ]

    def validate(self, attrs: dict) -> dict:
        if "publication" in attrs:
            one = attrs.pop("publication")
            if "publications" in attrs:
                raise serializers.ValidationError(
                    {"publication": "Give publication or publications, not both."}
                )
            attrs["publications"] = [one] if one else []
        return super().validate(attrs)
