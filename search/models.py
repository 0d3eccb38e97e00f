from django.contrib.postgres.search import SearchVectorField
from django.db import models


class SearchDocument(models.Model):
    """The text a record is found by, in four weighted columns (heading most).

    The database's full-text index (FTS5 on SQLite, a GIN-indexed tsvector on
    PostgreSQL) is built from these rows. The columns keep their first names
    (a to d), which the FTS5 tables and the PostgreSQL vectors were built from.
    """

    heading = models.TextField(blank=True, db_column="a", help_text="Names or title.")
    topics = models.TextField(
        blank=True, db_column="b", help_text="Topics and their aliases."
    )
    body = models.TextField(
        blank=True, db_column="c", help_text="Headline, summary, main text."
    )
    extra = models.TextField(blank=True, db_column="d", help_text="Everything else.")
    vector = SearchVectorField(null=True, editable=False)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"search document of {self.pk}"


class Embedding(models.Model):
    """A record's search text as a vector, for search by meaning (SEMANTIC_SEARCH).

    One row per record of each searchable kind: the vector of its document's text,
    normalised and stored as int8 with its scale (see search.semantic), and a
    digest of the text it was computed from, so that unchanged texts are not
    embedded again. Rows are replaced, never updated: the highest id and the count
    of a kind tell a process whether the vectors it holds are current.
    """

    kind = models.CharField(max_length=40)
    record_id = models.BigIntegerField()
    digest = models.CharField(max_length=32)
    scale = models.FloatField()
    vector = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "record_id"], name="embedding_one_per_record"
            )
        ]

    def __str__(self) -> str:
        return f"embedding of {self.kind} {self.record_id}"


class SearchTerm(models.Model):
    """A word that occurs in some document: the vocabulary for "did you mean"."""

    word = models.CharField(max_length=64, unique=True)

    class Meta:
        # The table it had when the shared app (label "directory") held the model.
        db_table = "directory_searchterm"

    def __str__(self) -> str:
        return self.word


class Passage(models.Model):
    """One piece of evidence of what a record's owner works on (search.evidence).

    A member's research interest, experience bullet or bio paragraph is a passage
    of its own, with its vector; a paper or a talk is a passage whose vector is
    that record's own (`record_kind`, `record_id`: its Embedding). `weight` says
    how strongly it belongs to the owner (an interest or a first-authored paper
    more than the 30th author's). Written only while search by meaning is on;
    an owner's rows are replaced together, never updated.
    """

    kind = models.CharField(max_length=40, help_text="The owner's kind.")
    owner_id = models.BigIntegerField()
    label = models.CharField(max_length=40)
    shown = models.CharField(max_length=300, help_text="What “why it matched” names.")
    text = models.TextField(blank=True, help_text="Matched by words and embedded.")
    weight = models.FloatField()
    record_kind = models.CharField(max_length=40, blank=True)
    record_id = models.BigIntegerField(null=True)
    digest = models.CharField(max_length=32, blank=True)
    scale = models.FloatField(null=True)
    vector = models.BinaryField(null=True)

    class Meta:
        indexes = [models.Index(fields=["kind", "owner_id"], name="passage_owner")]

    def __str__(self) -> str:
        return f"{self.label} of {self.kind} {self.owner_id}"


class FacetValue(models.Model):
    """One value one record has for one facet (search.facet_counts): the facets'
    joins walked once, on write, rather than on every count.

    `value` is what the facet counts by: a related record's pk (a topic, venue or
    member, whose slug and name are read when shown, so renaming one rewrites
    nothing here) or a plain value (a year, a status).
    """

    kind = models.CharField(max_length=40)
    record_id = models.BigIntegerField()
    facet = models.CharField(max_length=40)
    value = models.CharField(max_length=255)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "record_id", "facet", "value"],
                name="facetvalue_unique",
            )
        ]
        # No index by value: counts are always read record by record (with the
        # unique constraint's index, which holds every column), the way a
        # planner without statistics would not otherwise choose.

    def __str__(self) -> str:
        return f"{self.kind} {self.record_id}: {self.facet}={self.value}"


class FacetCount(models.Model):
    """How many records of a kind have a facet's value, kept in step with
    `FacetValue` in the same transaction as the write (search.facet_counts)."""

    kind = models.CharField(max_length=40)
    facet = models.CharField(max_length=40)
    value = models.CharField(max_length=255)
    n = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "facet", "value"], name="facetcount_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.facet}={self.value}: {self.n}"
