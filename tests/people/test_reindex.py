"""A paper two members wrote together, however it is written, shows on their pages at
once: the search finds them by it, and their similar members and co-author pictures
name each other, with no other edit after it."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from people.models import Person
from publications.models import Publication
from publications.services import publication_import_bibtex
from sources import review
from sources.models import Candidate
from tests import factories
from tests.admin_forms import as_posted
from tests.sources.conftest import SAMPLES

pytestmark = pytest.mark.django_db


def _found(client, q: str) -> list[str]:
    response = client.get("/people/", {"q": q})
    assert response.status_code == 200
    return [p.slug for p in response.context["object_list"]]


def _profile(client, person: Person) -> tuple[list[str], list[str]]:
    """The slugs of a member's similar members and the names in their co-author
    picture, as their page shows them."""
    response = client.get(person.get_absolute_url())
    assert response.status_code == 200
    similar = [row.other.slug for row in response.context["similar"]]
    coauthors = response.context["coauthors"]
    return similar, [n.label for n in coauthors.people] if coauthors else []


@pytest.fixture
def strangers(client, mina, jonas) -> None:
    """Both pages read once before the write: nothing in common, nothing drawn."""
    assert _profile(client, mina) == ([], [])
    assert _profile(client, jonas) == ([], [])


def _shows_them_together(client, mina, jonas, word: str, name: str) -> None:
    assert {"mina-park", jonas.slug} <= set(_found(client, word))
    similar, coauthors = _profile(client, mina)
    assert jonas.slug in similar
    assert name in coauthors
    assert "mina-park" in _profile(client, jonas)[0]


def _run(command: str, *args) -> None:
    call_command(command, *args, stdout=io.StringIO())


def test_an_orcid_import(client, mina, jonas, strangers):
    sparse = factories.topic(name="Sparse attention")
    _run("import_orcid", str(SAMPLES / "orcid_record.json"), "--accept")
    _shows_them_together(client, mina, jonas, "fold", "Jonas Weber")
    # The rows of the profile it wrote: education, a position, an interest.
    assert _found(client, "Seoul") == ["mina-park"]
    assert _found(client, "Toronto") == ["mina-park"]
    assert mina.topics.get() == sparse
    assert "Sparse attention" in mina.search_document.topics


def test_an_openalex_import(client, mina, jonas, strangers):
    _run("import_openalex", str(SAMPLES / "openalex_work.json"), "--accept")
    _shows_them_together(client, mina, jonas, "documents", "J. Weber")


def test_a_source_candidate_accepted_in_review(client, mina, jonas, strangers):
    _run("import_openalex", str(SAMPLES / "openalex_work.json"))
    assert review.accept(list(Candidate.objects.all()), user=_staff()) == 1
    _shows_them_together(client, mina, jonas, "documents", "J. Weber")


def test_a_bibtex_import(client, mina, jonas, strangers):
    publication_import_bibtex(
        text="@article{zeo, title={Zeolite lattices}, author={Park, Mina and "
        "Weber, Jonas}, journal={J. Porous Mat.}, year={2024}}",
        source="test",
    )
    _shows_them_together(client, mina, jonas, "zeolite", "Jonas Weber")


def test_a_lab_file(client, mina, jonas, strangers, tmp_path):
    path = tmp_path / "papers.yaml"
    path.write_text(
        "publications:\n"
        "  - slug: zeolite-lattices\n"
        "    title: Zeolite lattices\n"
        "    year: 2024\n"
        "    authors:\n"
        "      - {name: Mina Park, person: mina-park}\n"
        "      - {name: Jonas Weber, person: " + jonas.slug + "}\n",
        encoding="utf-8",
    )
    _run("import_person", str(path))
    _shows_them_together(client, mina, jonas, "zeolite", "Jonas Weber")


def test_the_api(client, mina, jonas, strangers):
    api = APIClient()
    api.force_authenticate(_staff())
    response = api.post(
        "/api/publications/",
        {
            "title": "Zeolite lattices",
            "slug": "zeolite-lattices",
            "year": 2024,
            "authors": [
                {"name": "Mina Park", "person": "mina-park"},
                {"name": "Jonas Weber", "person": jonas.slug},
            ],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    _shows_them_together(client, mina, jonas, "zeolite", "Jonas Weber")


def test_the_admin(client, mina, jonas, strangers):
    admin = Client()
    admin.force_login(_staff())
    paper = factories.publication(title="Zeolite lattices", authors=[mina])
    url = reverse("admin:publications_publication_change", args=[paper.pk])
    data = as_posted(admin.get(url))
    n = int(data["authorships-TOTAL_FORMS"])
    data.update(
        {
            f"authorships-{n}-position": "2",
            f"authorships-{n}-name": "Jonas Weber",
            f"authorships-{n}-person": str(jonas.pk),
            "authorships-TOTAL_FORMS": str(n + 1),
        }
    )
    assert admin.post(url, data).status_code == 302
    assert Publication.objects.get().authorships.count() == 2
    _shows_them_together(client, mina, jonas, "zeolite", "Jonas Weber")


def test_an_admin_action_that_makes_a_member_alumni(client, mina, jonas):
    factories.publication(title="Zeolite lattices", authors=[mina, jonas])
    assert jonas.slug in _profile(client, mina)[0]
    admin = Client()
    admin.force_login(_staff())
    changelist = reverse("admin:people_person_changelist")
    selected = {"action": "mark_alumni", "_selected_action": [jonas.pk]}
    assert admin.post(changelist, selected).status_code == 302
    # Similar lists name current members only.
    assert _profile(client, mina)[0] == []


def _staff():
    return get_user_model().objects.create_superuser(
        "staff", "staff@example.org", "a-long-test-password"
    )
