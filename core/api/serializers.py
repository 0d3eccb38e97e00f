import copy

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.functional import cached_property
from rest_framework import serializers
from rest_framework.fields import SkipField
from rest_framework.relations import PKOnlyObject

from core.api.fields import SlugIdentityField, slug_url
from core.models import Organization, Topic


class ModelCleanMixin:
    """Run the model's own validation (constraints, clean) as the admin does."""

    def validate(self, attrs: dict) -> dict:
        attrs = super().validate(attrs)
        model = self.Meta.model
        instance = copy.copy(self.instance) if self.instance else model()
        many = {
            f.name for f in model._meta.get_fields() if f.many_to_many or f.one_to_many
        }
        for key, value in attrs.items():
            if key not in many:
                setattr(instance, key, value)
        try:
            instance.full_clean(exclude=sorted(many), validate_unique=True)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        return attrs


class BuiltOnceMixin:
    """Derive a ModelSerializer's fields from its model once per class.

    DRF derives them on every instantiation, a large share of the time spent
    serialising a page; a copy of the fields built once is cheaper.
    """

    def get_fields(self) -> dict:
        cls = type(self)
        built = cls.__dict__.get("_built_fields")
        if built is None:
            built = super().get_fields()
            cls._built_fields = built
        return copy.deepcopy(built)

    @cached_property
    def readable_fields(self) -> list[serializers.Field]:
        return [field for field in self.fields.values() if not field.write_only]

    def to_representation(self, instance) -> dict:
        # DRF's own loop, over the readable fields listed once per serializer
        # rather than filtered again for every record of a page.
        representation = {}
        for field in self.readable_fields:
            try:
                attribute = field.get_attribute(instance)
            except SkipField:
                continue
            if isinstance(attribute, PKOnlyObject):
                value = attribute.pk
            else:
                value = attribute
            representation[field.field_name] = (
                None if value is None else field.to_representation(attribute)
            )
        return representation


class SlugRelatedField(serializers.SlugRelatedField):
    """A record named by its slug; a NUL character is an invalid value.

    DRF looks the slug up first, and PostgreSQL refuses NUL in a query string
    with an error DRF does not catch (a 500 where a 400 is due).
    """

    def to_internal_value(self, data):
        if isinstance(data, str) and "\x00" in data:
            self.fail("invalid")
        return super().to_internal_value(data)


class TopicBriefSerializer(BuiltOnceMixin, serializers.HyperlinkedModelSerializer):
    url = SlugIdentityField(view_name="api:topic-detail", lookup_field="slug")

    class Meta:
        model = Topic
        fields = ["url", "slug", "name"]


class OrganizationBriefSerializer(
    BuiltOnceMixin, serializers.HyperlinkedModelSerializer
):
    url = SlugIdentityField(view_name="api:organization-detail", lookup_field="slug")

    class Meta:
        model = Organization
        fields = ["url", "slug", "name", "short_name"]


class TopicSerializer(ModelCleanMixin, serializers.HyperlinkedModelSerializer):
    url = SlugIdentityField(view_name="api:topic-detail", lookup_field="slug")
    parent = SlugRelatedField(
        slug_field="slug", queryset=Topic.objects.all(), allow_null=True, required=False
    )
    aliases = serializers.ListField(
        child=serializers.CharField(max_length=120), required=False, source="alias_list"
    )
    html_url = serializers.SerializerMethodField()

    class Meta:
        model = Topic
        fields = ["url", "slug", "name", "parent", "aliases", "description", "html_url"]

    def get_html_url(self, topic: Topic) -> str:
        return slug_url(self.context["request"], "topic-detail", topic.slug)

    def validate(self, attrs: dict) -> dict:
        if "alias_list" in attrs:
            attrs["aliases"] = "\n".join(
                a.strip() for a in attrs.pop("alias_list") if a.strip()
            )
        return super().validate(attrs)


class OrganizationSerializer(ModelCleanMixin, serializers.HyperlinkedModelSerializer):
    url = SlugIdentityField(view_name="api:organization-detail", lookup_field="slug")
    website = serializers.URLField(source="url", required=False, allow_blank=True)

    class Meta:
        model = Organization
        fields = ["url", "slug", "name", "short_name", "kind", "location", "website"]
