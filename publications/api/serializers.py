from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.fields import SlugIdentityField, SlugRelatedLinkField, slug_url
from core.api.serializers import (
    BuiltOnceMixin,
    ModelCleanMixin,
    SlugRelatedField,
    TopicBriefSerializer,
)
from core.json_rows import json_rows, sorted_rows
from core.models import Topic
from people.models import Person
from publications.models import (
    Authorship,
    Publication,
    PublicationLink,
    SourceConflict,
    Venue,
)
from publications.provenance import publication_sources
from publications.services import publication_save

# What a client reads and writes alike, in the order a record shows it.
EDITABLE_FIELDS = [
    "slug",
    "title",
    "alternative_title",
    "kind",
    "year",
    "month",
    "venue",
    "venue_detail",
    "status",
    "presentation",
    "selected",
    "authors",
    "authors_complete",
    "topics",
    "links",
    "doi",
    "arxiv_id",
    "pages",
    "volume",
    "number",
    "summary",
    "abstract",
    "key_results",
    "openalex_id",
]
# What importers set (citation counts, ORCID put-codes) and where a record came
# from: shown, never written through the API.
IMPORTED_FIELDS = [
    "orcid_put_codes",
    "cited_by_count",
    "counts_by_year",
    "citations_retrieved_at",
    "source",
    "source_id",
    "retrieved_at",
]


class VenueBriefSerializer(BuiltOnceMixin, serializers.HyperlinkedModelSerializer):
    url = SlugIdentityField(view_name="api:venue-detail", lookup_field="slug")

    class Meta:
        model = Venue
        fields = ["url", "slug", "name", "short_name"]


class VenueSerializer(ModelCleanMixin, serializers.HyperlinkedModelSerializer):
    url = SlugIdentityField(view_name="api:venue-detail", lookup_field="slug")
    website = serializers.URLField(source="url", required=False, allow_blank=True)

    class Meta:
        model = Venue
        fields = ["url", "slug", "name", "short_name", "kind", "website"]


class AuthorSerializer(serializers.ModelSerializer):
    """One author in print order; `person` is the member's API URL, or null.

    `position` is null when the source names the author without their place.
    """

    person = SlugRelatedLinkField(
        view_name="api:person-detail",
        lookup_field="slug",
        read_only=True,
        allow_null=True,
    )
    position = serializers.IntegerField(min_value=1, allow_null=True, read_only=True)

    class Meta:
        model = Authorship
        fields = [
            "position",
            "name",
            "person",
            "equal_contribution",
            "corresponding",
            "position_unknown",
        ]


class LinkSerializer(serializers.ModelSerializer):
    class Meta:
        model = PublicationLink
        fields = ["kind", "label", "url"]


class RowsField(serializers.ReadOnlyField):
    """A nested list read from a `json_rows` annotation of `columns`."""

    columns: tuple[str, ...] = ()

    def get_attribute(self, instance) -> list:
        # NULL when there are no rows; DRF would print None, not an empty list.
        return super().get_attribute(instance) or []

    def to_representation(self, rows: list) -> list[dict]:
        request = self.context.get("request")
        return [self.item(row, request) for row in sorted_rows(rows, self.columns)]

    def item(self, row: dict, request) -> dict:
        raise NotImplementedError


@extend_schema_field(AuthorSerializer(many=True))
class AuthorRowsField(RowsField):
    columns = (
        "position",
        "name",
        "person__slug",
        "equal_contribution",
        "corresponding",
        "position_unknown",
    )

    def item(self, row: dict, request) -> dict:
        slug = row["person__slug"]
        unknown = bool(row["position_unknown"])
        return {
            "position": None if unknown else row["position"],
            "name": row["name"],
            "person": slug_url(request, "api:person-detail", slug) if slug else None,
            # SQLite's JSON has no booleans: 0 and 1.
            "equal_contribution": bool(row["equal_contribution"]),
            "corresponding": bool(row["corresponding"]),
            "position_unknown": unknown,
        }


@extend_schema_field(TopicBriefSerializer(many=True))
class TopicRowsField(RowsField):
    columns = ("topic__name", "topic__slug")

    def item(self, row: dict, request) -> dict:
        slug = row["topic__slug"]
        return {
            "url": slug_url(request, "api:topic-detail", slug),
            "slug": slug,
            "name": row["topic__name"],
        }


class ConflictSerializer(serializers.ModelSerializer):
    """Statements of the sources that disagree, one for each place, as given."""

    statements = serializers.ListField(child=serializers.CharField())

    class Meta:
        model = SourceConflict
        fields = ["about", "statements"]


@extend_schema_field(ConflictSerializer(many=True))
class ConflictRowsField(RowsField):
    columns = ("position", "id", "about", "statements")

    def item(self, row: dict, request) -> dict:
        lines = [line for line in row["statements"].splitlines() if line.strip()]
        return {"about": row["about"], "statements": lines}


@extend_schema_field(LinkSerializer(many=True))
class LinkRowsField(RowsField):
    columns = ("position", "id", "kind", "label", "url")

    def item(self, row: dict, request) -> dict:
        return {"kind": row["kind"], "label": row["label"], "url": row["url"]}


# Reads records of `PublicationSerializer.queryset()`, whose one query carries the
# authors, topics and links as JSON rows (no prefetch query, no model per row).
class PublicationSerializer(BuiltOnceMixin, serializers.HyperlinkedModelSerializer):
    url = SlugIdentityField(view_name="api:publication-detail", lookup_field="slug")
    venue = VenueBriefSerializer(allow_null=True)
    authors = AuthorRowsField(source="author_rows")
    topics = TopicRowsField(source="topic_rows")
    links = LinkRowsField(source="link_rows")
    conflicts = ConflictRowsField(source="conflict_rows")
    html_url = serializers.SerializerMethodField()
    bibtex_url = serializers.SerializerMethodField()
    provenance = serializers.SerializerMethodField(
        help_text="Where the record, its author list and its citation counts come from."
    )
    citation_key = serializers.CharField(
        source="cite_key",
        read_only=True,
        help_text="The key the work is cited by in every export of this site.",
    )

    class Meta:
        model = Publication
        fields = [
            "url",
            "citation_key",
            *EDITABLE_FIELDS,
            *IMPORTED_FIELDS,
            "working_title",
            "authors_source",
            "conflicts",
            "html_url",
            "bibtex_url",
            "provenance",
        ]
        read_only_fields = [*IMPORTED_FIELDS, "working_title", "authors_source"]

    @staticmethod
    def queryset() -> QuerySet:
        # Not shown in the API (the raw BibTeX kept from an import can be long).
        shown = Publication.objects.select_related("venue").defer(
            "bibtex", "source_file"
        )
        return shown.annotate(
            author_rows=json_rows(
                Authorship.objects, "publication", AuthorRowsField.columns
            ),
            topic_rows=json_rows(
                Publication.topics.through.objects,
                "publication",
                TopicRowsField.columns,
            ),
            link_rows=json_rows(
                PublicationLink.objects, "publication", LinkRowsField.columns
            ),
            conflict_rows=json_rows(
                SourceConflict.objects, "publication", ConflictRowsField.columns
            ),
        )

    def get_html_url(self, publication: Publication) -> str:
        return slug_url(
            self.context["request"], "publications:detail", publication.slug
        )

    def get_provenance(self, publication: Publication) -> dict:
        return publication_sources(publication)

    def get_bibtex_url(self, publication: Publication) -> str:
        url = slug_url(
            self.context["request"], "api:publication-detail", publication.slug
        )
        return f"{url}?format=bibtex"


class AuthorInputSerializer(serializers.Serializer):
    position = serializers.IntegerField(min_value=1, required=False)
    name = serializers.CharField(max_length=200)
    person = SlugRelatedField(
        slug_field="slug",
        queryset=Person.objects.all(),
        allow_null=True,
        required=False,
    )
    equal_contribution = serializers.BooleanField(default=False)
    corresponding = serializers.BooleanField(default=False)


class LinkInputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=PublicationLink.Kind.choices, default="paper"
    )
    label = serializers.CharField(max_length=120, required=False, allow_blank=True)
    # A target named without an address keeps its label and no URL.
    url = serializers.URLField(max_length=500, required=False, allow_blank=True)

    def validate(self, attrs: dict) -> dict:
        if not attrs.get("label") and not attrs.get("url"):
            raise serializers.ValidationError("A link needs a label or a URL.")
        return attrs


class PublicationWriteSerializer(ModelCleanMixin, serializers.ModelSerializer):
    """A publication with its authors and links, written whole or not at all."""

    venue = SlugRelatedField(
        slug_field="slug", queryset=Venue.objects.all(), allow_null=True, required=False
    )
    topics = SlugRelatedField(
        slug_field="slug", queryset=Topic.objects.all(), many=True, required=False
    )
    authors = AuthorInputSerializer(many=True, required=False)
    links = LinkInputSerializer(many=True, required=False)

    class Meta:
        model = Publication
        # The source BibTeX is written but not shown (see `queryset`).
        fields = [*EDITABLE_FIELDS, "bibtex"]
        # A pasted https://openalex.org/ link is longer than the id it is cut to.
        extra_kwargs = {"openalex_id": {"max_length": 200}}

    def validate_authors(self, authors: list[dict]) -> list[dict]:
        if not authors:
            return authors
        given = [a.get("position") for a in authors]
        if any(p is not None for p in given):
            if None in given:
                raise serializers.ValidationError(
                    "Give a position for every author or none."
                )
            if sorted(given) != list(range(1, len(authors) + 1)):
                raise serializers.ValidationError(
                    "Author positions must be unique and run 1, 2, 3… without gaps."
                )
            authors = sorted(authors, key=lambda a: a["position"])
        return [{**a, "position": i} for i, a in enumerate(authors, start=1)]

    def validate(self, attrs: dict) -> dict:
        nested = {k: attrs.pop(k) for k in ("authors", "links") if k in attrs}
        attrs = super().validate(attrs)
        return {**attrs, **nested}

    def create(self, validated_data: dict) -> Publication:
        return self._save(None, validated_data)

    def update(self, instance: Publication, validated_data: dict) -> Publication:
        return self._save(instance, validated_data)

    @staticmethod
    def _save(instance: Publication | None, validated_data: dict) -> Publication:
        data = dict(validated_data)
        return publication_save(
            instance=instance,
            topics=data.pop("topics", None),
            authors=data.pop("authors", None),
            links=data.pop("links", None),
            data=data,
        )
