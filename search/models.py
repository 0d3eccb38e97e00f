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
