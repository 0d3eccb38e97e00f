from django.urls import reverse
from rest_framework import serializers

from core.api.fields import SlugIdentityField, SlugRelatedLinkField, slug_url
from core.api.serializers import (
    BuiltOnceMixin,
    ModelCleanMixin,
    OrganizationBriefSerializer,
    SlugRelatedField,
    TopicBriefSerializer,
)
from core.lib.dates import iso_partial
from core.models import Organization, Topic
from people.models import (
    Award,
    Education,
    Experience,
    Interest,
    OpenSourceContribution,
    Person,
    PersonLink,
    ResearchArea,
    Service,
    Skill,
    Teaching,
)
from people.provenance import profile_sources

# Where a profile row came from, shown read-only (as in the admin).
PROVENANCE_FIELDS = ["source", "source_id", "retrieved_at"]


class PeriodMixin(serializers.Serializer):
    """A date range as the source states it: ISO dates at their precision."""

    start = serializers.SerializerMethodField()
    end = serializers.SerializerMethodField()
    ongoing = serializers.BooleanField(source="is_ongoing", read_only=True)
    period = serializers.CharField(source="period_display", read_only=True)

    def get_start(self, obj) -> str:
        return iso_partial(obj.start_date, obj.start_precision)

    def get_end(self, obj) -> str:
        return iso_partial(obj.end_date, obj.end_precision)


class PersonBriefSerializer(serializers.HyperlinkedModelSerializer):
    url = SlugIdentityField(view_name="api:person-detail", lookup_field="slug")

    class Meta:
        model = Person
        fields = ["url", "slug", "display_name"]


class PersonLinkSerializer(serializers.ModelSerializer):
    class Meta:
        model = PersonLink
        fields = ["kind", "label", "url"]


class ResearchAreaSerializer(serializers.ModelSerializer):
    items = serializers.ListField(source="item_list", child=serializers.CharField())

    class Meta:
        model = ResearchArea
        fields = ["title", "subtitle", "items"]


class EducationSerializer(PeriodMixin, serializers.ModelSerializer):
    organization = OrganizationBriefSerializer()
    honours = serializers.ListField(source="honour_list", child=serializers.CharField())
    notes = serializers.ListField(source="note_list", child=serializers.CharField())

    class Meta:
        model = Education
        fields = [
            "organization",
            "unit",
            "degree",
            "field",
            "location",
            "start",
            "end",
            "ongoing",
            "period",
            "advisor",
            "gpa",
            "honours",
            "notes",
            *PROVENANCE_FIELDS,
        ]


class ExperienceSerializer(PeriodMixin, serializers.ModelSerializer):
    organization = OrganizationBriefSerializer(allow_null=True)
    notes = serializers.ListField(source="note_list", child=serializers.CharField())
    links = serializers.SerializerMethodField()
    publication = SlugRelatedLinkField(
        view_name="api:publication-detail",
        lookup_field="slug",
        read_only=True,
        allow_null=True,
    )

    class Meta:
        model = Experience
        fields = [
            "kind",
            "organization",
            "role",
            "team",
            "location",
            "start",
            "end",
            "ongoing",
            "period",
            "supervisor",
            "supervisor_relation",
            "notes",
            "links",
            "publication",
            *PROVENANCE_FIELDS,
        ]

    def get_links(self, obj) -> list[dict]:
        return [{"label": link.label, "url": link.url} for link in obj.links.all()]


class AwardSerializer(serializers.ModelSerializer):
    class Meta:
        model = Award
        fields = ["year", "title", "granting_body", "detail", "times"]


class ServiceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Service
        fields = ["kind", "role", "venue", "year", "detail"]


class TeachingSerializer(serializers.ModelSerializer):
    organization = OrganizationBriefSerializer(allow_null=True)

    class Meta:
        model = Teaching
        fields = ["course_code", "course_title", "role", "organization", "term"]


class OpenSourceSerializer(serializers.ModelSerializer):
    links = serializers.SerializerMethodField()
    publication = SlugRelatedLinkField(
        view_name="api:publication-detail",
        lookup_field="slug",
        read_only=True,
        allow_null=True,
    )

    class Meta:
        model = OpenSourceContribution
        fields = [
            "project",
            "organization",
            "role",
            "start_year",
            "end_year",
            "description",
            "links",
            "publication",
        ]

    def get_links(self, obj) -> list[dict]:
        return [{"label": link.label, "url": link.url} for link in obj.links.all()]


class SkillSerializer(serializers.ModelSerializer):
    class Meta:
        model = Skill
        fields = ["category", "items"]


class InterestSerializer(serializers.ModelSerializer):
    class Meta:
        model = Interest
        fields = ["title", "description"]


class PersonSerializer(BuiltOnceMixin, serializers.HyperlinkedModelSerializer):
    """A member as listed: names in every script, role, organisation, topics."""

    url = SlugIdentityField(view_name="api:person-detail", lookup_field="slug")
    organization = OrganizationBriefSerializer(allow_null=True)
    topics = TopicBriefSerializer(many=True)
    role_label = serializers.CharField(source="get_role_display", read_only=True)
    html_url = serializers.SerializerMethodField()
    photo = serializers.SerializerMethodField()

    class Meta:
        model = Person
        fields = [
            "url",
            "slug",
            "display_name",
            "given_name",
            "family_name",
            "preferred_name",
            "native_name",
            "pronunciation",
            "role",
            "role_label",
            "position_title",
            "headline",
            "organization",
            "team",
            "location",
            "status",
            "orcid",
            "openalex_id",
            "topics",
            "photo",
            "html_url",
        ]

    def get_html_url(self, person: Person) -> str:
        return slug_url(self.context["request"], "people:detail", person.slug)

    def get_photo(self, person: Person) -> str | None:
        if not person.photo_thumbnail:
            return None
        return self.context["request"].build_absolute_uri(person.photo_thumbnail.url)


class PersonDetailSerializer(PersonSerializer):
    """A whole profile. Email addresses are left out: scrapers read APIs too."""

    links = PersonLinkSerializer(many=True)
    research_areas = ResearchAreaSerializer(many=True)
    education = EducationSerializer(many=True)
    experience = ExperienceSerializer(many=True)
    awards = AwardSerializer(many=True)
    service = ServiceSerializer(many=True)
    teaching = TeachingSerializer(many=True)
    open_source = OpenSourceSerializer(many=True)
    skills = SkillSerializer(many=True)
    interests = InterestSerializer(many=True)
    publications = serializers.SerializerMethodField()
    provenance = serializers.SerializerMethodField(
        help_text="Where the profile's facts come from: the member's lab file and "
        "the page it was written from, and the sources of education and experience."
    )

    class Meta(PersonSerializer.Meta):
        fields = [
            *PersonSerializer.Meta.fields,
            "office",
            "bio",
            "research_summary",
            "quote",
            "quote_author",
            "links",
            "research_areas",
            "education",
            "experience",
            "awards",
            "service",
            "teaching",
            "open_source",
            "skills",
            "interests",
            "publications",
            "provenance",
        ]

    def get_provenance(self, person: Person) -> dict:
        return profile_sources(person)

    def get_publications(self, person: Person) -> str:
        url = reverse("api:publication-list") + f"?author={person.slug}"
        return self.context["request"].build_absolute_uri(url)


class PersonWriteSerializer(ModelCleanMixin, serializers.ModelSerializer):
    """What a client may set on a member; profile rows are edited in the admin."""

    organization = SlugRelatedField(
        slug_field="slug",
        queryset=Organization.objects.all(),
        allow_null=True,
        required=False,
    )
    topics = SlugRelatedField(
        slug_field="slug", queryset=Topic.objects.all(), many=True, required=False
    )

    class Meta:
        model = Person
        fields = [
            "slug",
            "given_name",
            "family_name",
            "display_name",
            "preferred_name",
            "native_name",
            "pronunciation",
            "role",
            "position_title",
            "headline",
            "organization",
            "team",
            "location",
            "office",
            "email",
            "secondary_email",
            "publish_email",
            "bio",
            "research_summary",
            "quote",
            "quote_author",
            "status",
            "orcid",
            "openalex_id",
            "topics",
        ]
        # A pasted https://orcid.org/ or https://openalex.org/ link is longer than
        # the id it is cut to; the model checks the id.
        extra_kwargs = {
            "orcid": {"max_length": 200},
            "openalex_id": {"max_length": 200},
        }


class PublicationBriefSerializer(serializers.Serializer):
    url = serializers.SerializerMethodField()
    slug = serializers.CharField()
    title = serializers.CharField()
    year = serializers.IntegerField(allow_null=True)

    def get_url(self, obj) -> str:
        return slug_url(self.context.get("request"), "api:publication-detail", obj.slug)


class SimilarReasonsSerializer(serializers.Serializer):
    shared_papers = serializers.IntegerField(source="reasons.papers", default=0)
    topics = TopicBriefSerializer(source="shared_topics", many=True)
    organizations = OrganizationBriefSerializer(
        source="shared_organizations", many=True
    )
    # The organisations of `organizations` both are at now ("both at …").
    organizations_now = OrganizationBriefSerializer(many=True)
    words = serializers.ListField(
        source="reasons.words", child=serializers.CharField(), default=list
    )


class SimilarPersonSerializer(serializers.Serializer):
    """One similar member: who, how alike (0 to 1), and why."""

    rank = serializers.IntegerField()
    score = serializers.FloatField()
    person = PersonBriefSerializer(source="other")
    reason = serializers.CharField(source="reason_text")
    reasons = SimilarReasonsSerializer(source="*")
    connections_url = serializers.SerializerMethodField()

    def get_connections_url(self, obj) -> str:
        return self.context["request"].build_absolute_uri(
            reverse(
                "api:person-connections",
                kwargs={"slug": obj.person.slug, "other": obj.other.slug},
            )
        )


class PlaceSerializer(serializers.Serializer):
    organization = OrganizationBriefSerializer()
    together = serializers.CharField(
        help_text="When both were there: “2019 – 2021”, “since 2022”, “now”, or "
        "empty when the dates do not say."
    )
    overlap = serializers.BooleanField(
        allow_null=True, help_text="Null when the dates do not say."
    )


class StepSerializer(serializers.Serializer):
    person = PersonBriefSerializer()
    other = PersonBriefSerializer()
    paper_count = serializers.IntegerField()
    papers = PublicationBriefSerializer(many=True)


class ConnectionSerializer(serializers.Serializer):
    """How two members are connected."""

    person = PersonBriefSerializer()
    other = PersonBriefSerializer()
    shared_paper_count = serializers.IntegerField()
    shared_papers = PublicationBriefSerializer(many=True)
    shared_topics = TopicBriefSerializer(many=True)
    organizations = PlaceSerializer(source="places", many=True)
    path = StepSerializer(
        many=True,
        help_text="The shortest co-authorship path (at most three papers long), "
        "one step per co-authorship; empty when there is none.",
    )
