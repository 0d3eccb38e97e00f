import pytest

from publications.citation import apa, apa_name
from tests import factories


def test_incomplete_author_lists_end_with_et_al(db):
    publication = factories.publication(
        title="HilbertA", year=2026, authors_complete=False, authors=["S. Zheng"]
    )

    assert apa(publication).startswith("Zheng, S., et al. (2026). HilbertA.")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Jane Doe", "Doe, J."),
        ("Y. Xia", "Xia, Y."),
        ("Chi-Min Chan", "Chan, C.-M."),
        ("Rynson W.H. Lau", "Lau, R. W. H."),
        ("Ludwig van Beethoven", "van Beethoven, L."),
        ("祝磊", "祝磊"),
    ],
)
def test_apa_names_are_family_name_then_initials(name, expected):
    assert apa_name(name) == expected


def test_apa_joins_two_authors_with_an_ampersand(db):
    publication = factories.publication(title="Two", authors=["A. One", "B. Two"])

    assert apa(publication).startswith("One, A., & Two, B. (2024). Two.")


def test_apa_shortens_more_than_twenty_authors(db):
    authors = [f"Author N{i}" for i in range(1, 23)]
    publication = factories.publication(authors=authors)

    text = apa(publication)

    assert "N19, A., . . . N22, A. (2024)" in text
    assert "N20" not in text


def test_apa_marks_accepted_work_in_press(db):
    publication = factories.publication(
        title="Soon", status="accepted", authors=["A. One"]
    )

    assert apa(publication).startswith("One, A. (in press). Soon.")


def test_apa_names_unplaced_authors_in_a_note_not_in_the_list(db):
    alone = factories.publication(title="KITTY", year=2026)
    alone.authorships.create(position=1, name="Zhongzhu Zhou", position_unknown=True)
    mixed = factories.publication(title="Mixed", year=2025, authors=["A. One"])
    mixed.authorships.create(position=9, name="W. Lu", position_unknown=True)

    assert apa(alone).startswith(
        "[Authors include Zhou, Z.; order not given] (2026). KITTY."
    )
    assert apa(mixed).startswith("One, A. [also Lu, W.; place not given] (2025).")


def test_apa_carries_no_co_first_marks(db):
    publication = factories.publication(title="Pair", authors=["A. One", "B. Two"])
    publication.authorships.update(equal_contribution=True)

    assert apa(publication).startswith("One, A., & Two, B. (2024). Pair.")
