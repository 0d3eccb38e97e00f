import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from publications.bibtex import to_bibtex
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
    assert text.startswith("@inproceedings{zhou2026a,")
    assert "author = {Zhou, Zhongzhu and others}" in text
    assert r"title = {{A \& B}}" in text
