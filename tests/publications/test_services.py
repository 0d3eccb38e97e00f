import pytest
from django.core.exceptions import ValidationError

from publications.models import Authorship, Publication, PublicationLink
from publications.services import publication_save
from tests import factories


def authors_of(publication: Publication) -> list[tuple]:
    return list(
        publication.authorships.order_by("position").values_list(
            "position", "name", "person_id", "corresponding"
        )
    )


def test_save_creates_a_publication_with_its_authors_topics_and_links(db):
    member = factories.person()
    topic = factories.topic()
    publication = publication_save(
        instance=None,
        data={"title": "Tiny caches", "slug": "tiny-caches", "year": 2025},
        topics=[topic],
        authors=[
            {"position": 1, "name": member.display_name, "person": member},
            {"position": 2, "name": "Outside Person", "corresponding": True},
        ],
        links=[{"kind": "code", "url": "https://example.org/code"}],
    )
    assert Publication.objects.get(slug="tiny-caches") == publication
    assert authors_of(publication) == [
        (1, member.display_name, member.pk, False),
        (2, "Outside Person", None, True),
    ]
    assert list(publication.topics.all()) == [topic]
    assert list(publication.links.values_list("kind", "url", "position")) == [
        ("code", "https://example.org/code", 0)
    ]


def test_save_keeps_the_relations_it_is_not_given(db):
    publication = factories.publication(authors=["A. Author"])
    publication.links.create(url="https://example.org/paper")
    publication_save(instance=publication, data={"title": "Renamed"})
    publication.refresh_from_db()
    assert publication.title == "Renamed"
    assert authors_of(publication) == [(1, "A. Author", None, False)]
    assert publication.links.count() == 1


def test_save_replaces_the_authors_and_links_it_is_given(db):
    publication = factories.publication(authors=["Old One", "Old Two"])
    publication.links.create(url="https://example.org/old")
    publication_save(
        instance=publication,
        data={},
        authors=[{"position": 1, "name": "New One"}],
        links=[],
    )
    assert authors_of(publication) == [(1, "New One", None, False)]
    assert not publication.links.exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"data": {"year": 3025}}, "year"),
        ({"authors": [{"position": 1, "name": "x" * 201}]}, "name"),
        ({"links": [{"kind": "code", "url": "javascript:alert(1)"}]}, "url"),
    ],
)
def test_an_invalid_save_writes_nothing(db, change, field):
    publication = factories.publication(title="Before", authors=["Kept"])
    counts = (Authorship.objects.count(), PublicationLink.objects.count())
    with pytest.raises(ValidationError) as raised:
        publication_save(
            instance=publication,
            **{"data": {"title": "After"}, "authors": [], "links": [], **change},
        )
    assert field in raised.value.message_dict
    assert Publication.objects.get(pk=publication.pk).title == "Before"
    assert (Authorship.objects.count(), PublicationLink.objects.count()) == counts


def test_search_documents_are_rebuilt_once_after_every_write(db, monkeypatch):
    member = factories.person()
    calls = []

    def index(kind, ids, *args, **kwargs):
        calls.append((kind, set(ids), Authorship.objects.count()))

    monkeypatch.setattr("search.indexing.index", index)
    publication = publication_save(
        instance=None,
        data={"title": "Indexed", "slug": "indexed", "year": 2025},
        authors=[{"position": 1, "name": "Ada", "person": member}],
    )
    assert sorted(calls) == [
        ("person", {member.pk}, 1),
        ("publication", {publication.pk}, 1),
    ]


def test_a_saved_paper_is_found_under_its_title_and_its_members(db):
    member = factories.person()
    publication_save(
        instance=None,
        data={"title": "Caches Everywhere", "slug": "caches", "year": 2025},
        authors=[{"position": 1, "name": member.display_name, "person": member}],
    )
    member.refresh_from_db()
    assert (
        "Caches Everywhere"
        in Publication.objects.get(slug="caches").search_document.heading
    )
    assert "Caches Everywhere" in member.search_document.body
