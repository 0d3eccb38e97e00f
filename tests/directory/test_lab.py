"""The group the directory is about: a record, shown wherever its name belongs."""

import io
import json
import re

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from core.models import Lab
from core.unavailable import service_unavailable
from tests import factories

OLD_DEFAULT = "Efficient AI Systems Group"


@pytest.fixture
def lab(db) -> Lab:
    return Lab.objects.create(
        name="Test Group",
        description="What the group does, in a line.",
        url="https://group.example.org/",
        email="group@example.org",
    )


def _title(html: str) -> str:
    return re.search(r"<title>(.*?)</title>", html, re.S).group(1)


def _jsonld(html: str) -> dict:
    block = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    return json.loads(block.group(1))


def test_the_lab_names_the_header_titles_and_home_page(client, lab):
    home = client.get("/").content.decode()
    people = client.get("/people/").content.decode()

    assert _title(home) == "Test Group"
    assert '<h1><a href="https://group.example.org/">Test Group</a></h1>' in home
    assert "What the group does, in a line." in home
    assert _title(people) == "People · Test Group"
    assert '<a class="brand" href="/">Test Group</a>' in people
    assert 'href="mailto:group@example.org"' in people


def test_a_research_group_is_what_its_members_belong_to(client, lab):
    person = factories.person(display_name="Ada Lovelace")

    data = _jsonld(client.get(person.get_absolute_url()).content.decode())

    assert data["memberOf"] == {
        "@type": "ResearchOrganization",
        "name": "Test Group",
        "url": "https://group.example.org/",
        "email": "group@example.org",
    }


def test_a_collection_claims_no_membership(client, lab):
    lab.kind = Lab.Kind.COLLECTION
    lab.save()
    person = factories.person(display_name="Ada Lovelace")

    html = client.get(person.get_absolute_url()).content.decode()

    assert "memberOf" not in _jsonld(html)
    assert '<h2 id="members-h">People</h2>' in client.get("/").content.decode()


def test_without_a_record_no_group_is_named_anywhere(client, db):
    person = factories.person(display_name="Ada Lovelace")
    pages = {
        url: client.get(url).content.decode()
        for url in ["/", "/people/", person.get_absolute_url(), "/events/feed/"]
    }

    for url, html in pages.items():
        assert OLD_DEFAULT not in html, url
        assert "EASG" not in html, url
    assert _title(pages["/"]) == "People, publications and news"
    assert "<h1>People, publications and news</h1>" in pages["/"]
    assert _title(pages["/people/"]) == "People"
    assert "memberOf" not in _jsonld(pages[person.get_absolute_url()])


def test_an_admin_edit_shows_at_once(admin_client_logged_in, lab):
    assert "Test Group" in admin_client_logged_in.get("/").content.decode()

    response = admin_client_logged_in.post(
        f"/admin/directory/lab/{lab.pk}/change/",
        {
            "name": "Renamed Group",
            "description": "",
            "kind": "group",
            "address": "",
            "url": "",
            "email": "",
            "logo_alt": "",
        },
    )

    assert response.status_code == 302
    html = admin_client_logged_in.get("/").content.decode()
    assert "Renamed Group" in html and "Test Group" not in html


def test_the_admin_offers_no_second_record(admin_client_logged_in, lab):
    response = admin_client_logged_in.get("/admin/directory/lab/add/")
    assert response.url == f"/admin/directory/lab/{lab.pk}/change/"


def test_a_second_record_is_refused_by_the_database(lab):
    other = Lab(id=2, name="Another")
    with pytest.raises(ValidationError, match="one lab record"):
        other.full_clean()


def test_the_logo_must_be_an_image(lab):
    lab.logo = SimpleUploadedFile("logo.png", b"<svg onload=alert(1)>")
    with pytest.raises(ValidationError, match="not a readable"):
        lab.full_clean()


def test_the_503_page_names_the_cached_lab_without_a_query(
    rf, lab, django_assert_num_queries
):
    assert Lab.objects.current() == lab  # cached by any page
    with django_assert_num_queries(0):
        page = service_unavailable(rf.get("/")).content.decode()
    assert "Test Group cannot reach its data" in page


def test_the_503_page_without_a_cached_lab_names_none(
    rf, db, django_assert_num_queries
):
    with django_assert_num_queries(0):
        page = service_unavailable(rf.get("/")).content.decode()
    assert "This directory cannot reach its data" in page


def test_a_replaced_logo_is_deleted_once_saved(lab, django_capture_on_commit_callbacks):
    picture = io.BytesIO()
    Image.new("RGB", (40, 20), (0, 90, 200)).save(picture, "PNG")
    lab.logo = SimpleUploadedFile("logo.png", picture.getvalue())
    lab.save()
    old = lab.logo.name
    with django_capture_on_commit_callbacks(execute=True):
        lab.logo = SimpleUploadedFile("logo.png", picture.getvalue())
        lab.save()
    assert lab.logo.name != old
    assert lab.logo.storage.exists(lab.logo.name)
    assert not lab.logo.storage.exists(old)
