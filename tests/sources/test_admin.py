import io

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.urls import reverse

from people.models import Education
from publications.models import Publication
from sources.models import Candidate
from tests import factories
from tests.sources.conftest import SAMPLES

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:sources_candidate_changelist")


@pytest.fixture
def queued(db) -> list[Candidate]:
    """A member's ORCID record imported for review: seven candidates."""
    factories.person(
        given_name="Mina",
        family_name="Park",
        display_name="Mina Park",
        orcid="0000-0002-1825-0097",
    )
    factories.topic(name="Sparse attention")
    call_command(
        "import_orcid", str(SAMPLES / "orcid_record.json"), stdout=io.StringIO()
    )
    return list(Candidate.objects.order_by("pk"))


def _post(client, action: str, candidates: list[Candidate]):
    return client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [c.pk for c in candidates]},
        follow=True,
    )


def test_the_queue_lists_candidates_in_fixed_queries(
    admin_client_logged_in, queued, django_assert_max_num_queries
):
    with django_assert_max_num_queries(8):
        response = admin_client_logged_in.get(CHANGELIST)
    assert response.status_code == 200
    assert "Learning to Fold (2022)" in response.text


def test_a_candidate_page_shows_the_field_by_field_difference(
    admin_client_logged_in, queued
):
    pub = factories.publication(
        title="Learning to fold", year=2022, doi="10.1000/jml.2022.17"
    )
    call_command(
        "import_orcid", str(SAMPLES / "orcid_record.json"), stdout=io.StringIO()
    )
    update = Candidate.objects.get(kind="update", object_id=pub.pk)
    response = admin_client_logged_in.get(
        reverse("admin:sources_candidate_change", args=[update.pk])
    )
    assert "<th>Title</th><td>Learning to fold</td><td>Learning to Fold</td>" in (
        response.text
    )
    assert "edited by hand" in response.text


def test_staff_accept_candidates_in_bulk(admin_client_logged_in, queued):
    response = _post(admin_client_logged_in, "accept_selected", queued)
    assert f"{len(queued)} candidates accepted." in response.text
    assert Publication.objects.count() == 3
    assert Education.objects.count() == 1
    assert set(Candidate.objects.values_list("status", flat=True)) == {"accepted"}


def test_staff_reject_one(admin_client_logged_in, queued):
    _post(admin_client_logged_in, "reject_selected", queued[:1])
    assert Candidate.objects.get(pk=queued[0].pk).status == "rejected"
    assert Candidate.objects.filter(status="pending").count() == len(queued) - 1


def test_a_batch_with_a_failing_candidate_writes_nothing(
    admin_client_logged_in, queued
):
    pub = factories.publication(
        title="Learning to fold", year=2022, doi="10.1000/jml.2022.17"
    )
    call_command(
        "import_orcid", str(SAMPLES / "orcid_record.json"), stdout=io.StringIO()
    )
    update = Candidate.objects.get(kind="update")
    pub.delete()
    response = _post(admin_client_logged_in, "accept_selected", [*queued, update])
    assert "Nothing was accepted: " in response.text
    assert "deleted meanwhile" in response.text
    assert not Publication.objects.exists()
    assert not Candidate.objects.exclude(status="pending").exists()


def test_staff_without_the_permission_cannot_decide(client, django_user_model, queued):
    user = django_user_model.objects.create_user(
        "viewer", password="pw-long-enough-1", is_staff=True
    )
    user.user_permissions.add(Permission.objects.get(codename="view_candidate"))
    client.force_login(user)
    assert client.get(CHANGELIST).status_code == 200
    _post(client, "accept_selected", queued)
    assert not Publication.objects.exists()
    assert set(Candidate.objects.values_list("status", flat=True)) == {"pending"}


def test_nobody_adds_or_deletes_candidates(admin_client_logged_in, queued):
    add = admin_client_logged_in.get(reverse("admin:sources_candidate_add"))
    delete = admin_client_logged_in.get(
        reverse("admin:sources_candidate_delete", args=[queued[0].pk])
    )
    assert (add.status_code, delete.status_code) == (403, 403)


def _page(client, candidate: Candidate):
    return client.get(reverse("admin:sources_candidate_change", args=[candidate.pk]))


def _decide(client, candidate: Candidate, button: str):
    url = reverse("admin:sources_candidate_decide", args=[candidate.pk])
    return client.post(url, {button: button.strip("_").capitalize()})


def test_a_candidate_page_shows_the_proposal_in_words_not_json(
    admin_client_logged_in, queued
):
    paper = Candidate.objects.get(label="Learning to Fold (2022)")
    html = _page(admin_client_logged_in, paper).text
    assert "<th>Kind</th><td>Journal article</td>" in html
    assert "<li>Mina Park (member)</li><li>Jonas Weber</li>" in html
    assert "<th>DOI</th><td>10.1000/jml.2022.17</td>" in html
    interest = Candidate.objects.get(target="interest")
    html = _page(admin_client_logged_in, interest).text
    assert "<th>Research interest</th><td>Sparse attention</td>" in html
    for raw in ("{&#x27;", "&quot;person&quot;", "[{"):
        assert raw not in html


def test_staff_accept_a_candidate_on_its_page_and_get_the_next_one(
    admin_client_logged_in, queued
):
    paper = Candidate.objects.get(label="Learning to Fold (2022)")
    html = _page(admin_client_logged_in, paper).text
    assert 'name="_accept"' in html and 'name="_reject"' in html
    assert 'name="_save"' not in html
    response = _decide(admin_client_logged_in, paper, "_accept")
    assert response.status_code == 302
    paper.refresh_from_db()
    assert paper.status == "accepted"
    assert Publication.objects.filter(title="Learning to Fold").exists()
    following = admin_client_logged_in.get(response["Location"])
    assert following.context["original"].status == "pending"
    assert "1 candidate accepted." in following.text


def test_staff_reject_a_candidate_on_its_page(admin_client_logged_in, queued):
    *_, last = queued
    response = _decide(admin_client_logged_in, last, "_reject")
    last.refresh_from_db()
    assert last.status == "rejected"
    assert response["Location"] != reverse("admin:sources_candidate_changelist")
    for candidate in Candidate.objects.pending():
        _decide(admin_client_logged_in, candidate, "_reject")
    response = _decide(admin_client_logged_in, last, "_accept")
    # Decided already: nothing is written, and no decision is offered again.
    assert Candidate.objects.get(pk=last.pk).status == "rejected"
    assert 'name="_accept"' not in _page(admin_client_logged_in, last).text


def test_staff_who_may_only_view_are_offered_no_decision(
    client, django_user_model, queued
):
    user = django_user_model.objects.create_user(
        "viewer", password="pw-long-enough-1", is_staff=True
    )
    user.user_permissions.add(Permission.objects.get(codename="view_candidate"))
    client.force_login(user)
    assert 'name="_accept"' not in _page(client, queued[0]).text
    assert _decide(client, queued[0], "_accept").status_code == 403
    decide = reverse("admin:sources_candidate_decide", args=[queued[0].pk])
    assert client.get(decide).status_code in (403, 405)
    assert Candidate.objects.get(pk=queued[0].pk).status == "pending"


def _reviewer(client, django_user_model, *codenames: str, username="reviewer"):
    """Log in staff holding exactly these permissions, and "change candidate"."""
    user = django_user_model.objects.create_user(
        username, password="pw-long-enough-1", is_staff=True
    )
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["view_candidate", "change_candidate", *codenames]
        )
    )
    client.force_login(user)
    return user


def test_a_reviewer_without_publication_rights_creates_no_paper(
    client, django_user_model, queued
):
    _reviewer(client, django_user_model, "add_education")
    response = _post(client, "accept_selected", queued)
    assert not Publication.objects.exists()
    assert Education.objects.count() == 1
    papers = Candidate.objects.filter(target="publication")
    assert set(papers.values_list("status", flat=True)) == {"pending"}
    assert "Not accepted, you may not write them:" in response.text
    assert "Learning to Fold (2022)" in response.text
    assert Candidate.objects.get(target="education").status == "accepted"


def test_a_reviewer_without_person_rights_renames_nobody(
    client, django_user_model, queued
):
    member = factories.person(display_name="Ada Old", orcid="")
    candidate = Candidate.objects.create(
        kind="update",
        target="person",
        person=member,
        object_id=member.pk,
        source="orcid",
        label="Ada Old",
        values={},
        diff=[
            {
                "field": "display_name",
                "current": "Ada Old",
                "proposed": "Ada New",
                "edited": False,
            },
            {
                "field": "orcid",
                "current": "",
                "proposed": "0000-0001-5109-3700",
                "edited": False,
            },
        ],
        fingerprint="x" * 64,
    )
    _reviewer(client, django_user_model, "view_person")
    _post(client, "accept_selected", [candidate])
    assert _decide(client, candidate, "_accept").status_code == 302
    member.refresh_from_db()
    assert (member.display_name, member.orcid) == ("Ada Old", "")
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"
    assert 'name="_accept"' not in _page(client, candidate).text

    client.logout()
    _reviewer(client, django_user_model, "change_person", username="editor")
    assert 'name="_accept"' in _page(client, candidate).text
    response = _decide(client, candidate, "_accept")
    assert "1 candidate accepted." in client.get(response["Location"]).text
    member.refresh_from_db()
    assert member.display_name == "Ada New"


def test_a_reviewer_needs_change_publication_to_update_a_paper(
    client, django_user_model, queued
):
    pub = factories.publication(
        title="Learning to fold", year=2022, doi="10.1000/jml.2022.17"
    )
    call_command(
        "import_orcid", str(SAMPLES / "orcid_record.json"), stdout=io.StringIO()
    )
    update = Candidate.objects.get(kind="update", object_id=pub.pk)
    _reviewer(client, django_user_model, "add_publication")
    response = _post(client, "accept_selected", [update])
    assert f"may not write them: “{update.label}”" in response.text
    pub.refresh_from_db()
    assert pub.title == "Learning to fold"
    assert Candidate.objects.get(pk=update.pk).status == "pending"
