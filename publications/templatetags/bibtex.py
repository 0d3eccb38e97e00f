from django import template

from publications.bibtex.writer import to_bibtex
from publications.models import Publication

register = template.Library()


@register.filter(name="bibtex")
def bibtex_filter(publication: Publication) -> str:
    """The publication as one BibTeX entry, as its .bib download gives it."""
    return to_bibtex(publication)
