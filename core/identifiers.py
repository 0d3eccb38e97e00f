"""Model fields that store identifiers in the one form `core.lib.identifiers` gives.

Any spelling people paste is normalised on every clean and save; a value that is no
such identifier fails validation with the normaliser's message.
"""

from django.core.exceptions import ValidationError
from django.db import models

from core.lib.identifiers import (
    normalise_arxiv_id,
    normalise_doi,
    normalise_openalex_id,
    normalise_orcid,
)


class IdentifierField(models.CharField):
    """Text stored in the canonical form `normalise` returns; blank allowed."""

    @staticmethod
    def normalise(value: str) -> str:
        raise NotImplementedError

    def to_python(self, value):
        value = super().to_python(value)
        if not value:
            return "" if value is None and not self.null else value
        try:
            return self.normalise(value)
        except ValueError as error:
            raise ValidationError(str(error), code="invalid") from None

    def pre_save(self, model_instance, add):
        # Writers that skip full_clean (bulk loaders, shell) store the same form.
        value = self.to_python(getattr(model_instance, self.attname))
        setattr(model_instance, self.attname, value)
        return value

    def formfield(self, **kwargs):
        # A pasted URL is longer than the stored form; the model checks the length.
        return super().formfield(**{"max_length": 200, **kwargs})


class OrcidField(IdentifierField):
    normalise = staticmethod(normalise_orcid)

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("max_length", 19)
        super().__init__(*args, **kwargs)


class DoiField(IdentifierField):
    normalise = staticmethod(normalise_doi)


class OpenAlexAuthorField(IdentifierField):
    @staticmethod
    def normalise(value: str) -> str:
        return normalise_openalex_id(value, "A")


class OpenAlexWorkField(IdentifierField):
    @staticmethod
    def normalise(value: str) -> str:
        return normalise_openalex_id(value, "W")


class ArxivIdField(IdentifierField):
    normalise = staticmethod(normalise_arxiv_id)
