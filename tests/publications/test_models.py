import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from publications.bibtex.writer import to_bibtex
from publications.models import Authorship, Publication
from tests import factories


@pytest.mark.django_db
def test_two_authors_cannot_share_a_position():
    pub = factories.publication(authors=["A. One"])
    with pytest.raises(IntegrityError), transaction.atomic():
        Authorship.objects.create(publication=pub, position=1, name="B. Two")


@pytest.mark.django_db
def test_author_positions_start_at_one():
    pub = factories.publication()
    with pytest.raises(IntegrityError), transaction.atomic():
        Authorship.objects.create(publication=pub, position=0, name="Nobody")


@pytest.mark.django_db
def test_year_must_be_sane():
    with pytest.raises(ValidationError, match="year"):
        Publication(title="T", slug="t", year=20255).full_clean()


@pytest.mark.django_db
def test_deleting_a_member_keeps_their_papers_and_printed_name():
    member = factories.person(display_name="Lei Zhu")
    pub = factories.publication(authors=[member, "Rynson W.H. Lau"])
    member.delete()
    authors = list(pub.authorships.all())
    assert [a.name for a in authors] == ["Lei Zhu", "Rynson W.H. Lau"]
    assert authors[0].person is None


@pytest.mark.django_db
def test_built_bibtex_lists_authors_in_order_and_marks_incomplete_lists():
    pub = factories.publication(
        title="A & B", authors=["Zhongzhu Zhou"], authors_complete=False, year=2026
    )
    text = to_bibtex(pub)
    # The title's first word but a stop word ("A"): as Google Scholar's keys.
    assert text.startswith("@inproceedings{zhou2026b,")
    assert "author = {Zhou, Zhongzhu and others}" in text
    assert r"title = {{A \& B}}" in text


@pytest.mark.django_db
def test_doi_and_arxiv_id_are_stored_normalised_by_any_writer():
    pub = factories.publication(
        doi="https://doi.org/10.1145/ABC.123", arxiv_id="arXiv:2106.09685v3"
    )
    pub.refresh_from_db()
    assert (pub.doi, pub.arxiv_id) == ("10.1145/abc.123", "2106.09685")


@pytest.mark.django_db
def test_a_doi_that_is_not_one_is_refused_with_its_field_named():
    pub = factories.publication()
    pub.doi = "N/A"
    with pytest.raises(ValidationError) as error:
        pub.full_clean()
    assert "not a DOI" in str(error.value.message_dict["doi"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "field, value",
    [
        ("orcid_put_codes", [12, "13"]),
        ("orcid_put_codes", [-1]),
        ("orcid_put_codes", {"a": 1}),
        ("counts_by_year", [{"year": 2024}]),
        ("counts_by_year", [{"year": 2024, "cited_by_count": -2}]),
        ("counts_by_year", [{"year": 2024, "cited_by_count": 2, "x": 1}]),
    ],
)
def test_json_fields_of_an_import_are_checked_for_shape(field, value):
    pub = factories.publication()
    setattr(pub, field, value)
    with pytest.raises(ValidationError) as error:
        pub.full_clean()
    assert field in error.value.message_dict


@pytest.mark.django_db
def test_citation_fields_accept_openalex_shaped_values():
    pub = factories.publication(
        openalex_id="https://openalex.org/W2741809807",
        orcid_put_codes=[1234567],
        cited_by_count=12,
        counts_by_year=[{"year": 2025, "cited_by_count": 7}],
    )
    pub.full_clean()
    pub.refresh_from_db()
    assert pub.openalex_id == "W2741809807" and pub.source == "manual"
