"""Identifiers as the sources print them, in the form we store ("" when unusable)."""

from core.lib.identifiers import (
    normalise_arxiv_id,
    normalise_doi,
    normalise_openalex_id,
    normalise_orcid,
)


def clean_orcid(value: str) -> str:
    return _or_blank(normalise_orcid, value)


def clean_doi(value: str) -> str:
    return _or_blank(normalise_doi, value)


def clean_openalex_id(value: str) -> str:
    return _or_blank(normalise_openalex_id, value)


def arxiv_id_in(value: str) -> str:
    """The arXiv id an id, an `arXiv:` reference or an arxiv.org URL names."""
    return _or_blank(normalise_arxiv_id, value)


def _or_blank(normalise, value: str) -> str:
    try:
        return normalise(value) if value else ""
    except ValueError:
        return ""
