"""Two editors open the same record; the second save must not undo the first."""

import json
import threading

import pytest
from django import forms
from django.contrib.auth.models import Permission
from django.db import connection
from django.db.models.signals import pre_save
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from core.models import Organization, Topic
from events.models import Event
from people.models import Education, Experience, Person
from publications.models import Authorship, Publication, Venue
from tests import factories

STALE = "changed by someone else since you opened it; reload it"

# model, builder, a text field both editors change
RECORDS = {
    "person": (Person, factories.person, "headline"),
    "publication": (
        Publication,
        lambda: factories.publication(authors=["A. Author", "B. Author"]),
        "summary",
    ),
    "event": (Event, factories.event, "host"),
}


@pytest.fixture
def other_editor(django_user_model) -> Client:
    user = django_user_model.objects.create_superuser(
        "other", "other@example.org", "a-long-test-password"
    )
    client = Client()
    client.force_login(user)
    return client


def _change_url(record) -> str:
    opts = record._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[record.pk])


def _form_data(response) -> dict:
    """What a browser would post back from an admin change form, unchanged."""
    assert response.status_code == 200
    forms_ = [response.context["adminform"].form]
    data = {}
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        management = formset.management_form
        data.update(
            {management.add_prefix(k): v for k, v in management.initial.items()}
        )
        forms_.extend(formset.forms)
    for form in forms_:
        for name, field in form.fields.items():
            value = form[name].value()
            if value is None or isinstance(field, forms.FileField):
                continue
            if isinstance(field, forms.BooleanField):
                if value:
                    data[form.add_prefix(name)] = "on"
            elif isinstance(value, list | tuple):
                data[form.add_prefix(name)] = [str(v) for v in value]
            else:
                data[form.add_prefix(name)] = str(value)
    return data


@pytest.mark.parametrize("kind", RECORDS)
def test_admin_refuses_to_save_over_an_edit_made_since_the_form_opened(
    admin_client_logged_in, other_editor, kind
):
    model, build, field = RECORDS[kind]
    record = build()
    url = _change_url(record)
    page = admin_client_logged_in.get(url)
    assert 'name="loaded_version"' in page.content.decode()
    first, second = _form_data(page), _form_data(other_editor.get(url))

    saved = admin_client_logged_in.post(url, {**first, field: "The first edit"})
    assert saved.status_code == 302
    refused = other_editor.post(url, {**second, field: "The second edit"})
    assert refused.status_code == 200
    assert STALE in refused.content.decode()
    assert getattr(model.objects.get(pk=record.pk), field) == "The first edit"

    # Having reloaded, the second editor sees the first edit and may save.
    reloaded = _form_data(other_editor.get(url))
    assert reloaded[field] == "The first edit"
    again = other_editor.post(url, {**reloaded, field: "The second edit"})
    assert again.status_code == 302
    assert getattr(model.objects.get(pk=record.pk), field) == "The second edit"


def test_an_unchanged_form_saves_again_and_again(admin_client_logged_in):
    person = factories.person()
    url = _change_url(person)
    for headline in ["One", "Two"]:
        data = _form_data(admin_client_logged_in.get(url))
        response = admin_client_logged_in.post(url, {**data, "headline": headline})
        assert response.status_code == 302
    person.refresh_from_db()
    assert person.headline == "Two"


def test_a_bulk_action_since_the_form_opened_counts_as_an_edit(admin_client_logged_in):
    person = factories.person()
    url = _change_url(person)
    data = _form_data(admin_client_logged_in.get(url))
    admin_client_logged_in.post(
        reverse("admin:people_person_changelist"),
        {"action": "mark_alumni", "_selected_action": [person.pk]},
    )
    refused = admin_client_logged_in.post(url, {**data, "headline": "Stale"})
    assert refused.status_code == 200 and STALE in refused.content.decode()
    person.refresh_from_db()
    assert person.status == Person.Status.ALUMNI and person.headline == ""


def _person_with_rows():
    person, org = factories.person(), factories.organization()
    rows = {"person": person, "organization": org, "position": 0}
    Experience.objects.create(**rows, role="Engineer", team="A")
    Education.objects.create(**rows, degree="MSc", unit="CS")
    return person


def _paper_with_authors():
    return factories.publication(authors=["A. Author", "B. Author"])


# parent, the row saved on its own admin page, the field changed there and how the
# parent's form names that row's field
ROWS = {
    "experience": (_person_with_rows, Experience, "role", "experience-0-role"),
    "education": (_person_with_rows, Education, "degree", "education-0-degree"),
    "authorship": (_paper_with_authors, Authorship, "name", "authorships-0-name"),
}


def _parent_and_row(kind: str) -> tuple:
    """A parent with rows; its change URL, its first row and the row's URL."""
    build, model, _, _ = ROWS[kind]
    parent = build()
    row = model.objects.order_by("position").first()
    return _change_url(parent), row, _change_url(row)


@pytest.mark.parametrize("kind", ROWS)
def test_a_parent_form_refuses_to_save_over_a_row_saved_on_its_own_page(
    admin_client_logged_in, other_editor, kind
):
    _, model, field, inline_name = ROWS[kind]
    parent_url, row, row_url = _parent_and_row(kind)
    stale = _form_data(admin_client_logged_in.get(parent_url))
    assert inline_name in stale

    # Someone else saves the row on its own page.
    own = _form_data(other_editor.get(row_url))
    assert other_editor.post(row_url, {**own, field: "Saved alone"}).status_code == 302

    # The parent's older form, still holding the row's old values, is refused.
    refused = admin_client_logged_in.post(parent_url, stale)
    assert refused.status_code == 200
    html = refused.content.decode()
    assert "changed by someone else" in html
    assert "Saved alone" in html  # the other change, shown
    assert getattr(model.objects.get(pk=row.pk), field) == "Saved alone"

    # Reloaded, the form saves, and the row keeps the other edit.
    reloaded = _form_data(admin_client_logged_in.get(parent_url))
    assert reloaded[inline_name] == "Saved alone"
    assert admin_client_logged_in.post(parent_url, reloaded).status_code == 302
    assert getattr(model.objects.get(pk=row.pk), field) == "Saved alone"


@pytest.mark.parametrize("kind", ROWS)
def test_a_row_page_refuses_to_save_over_its_parent_form_saved_since(
    admin_client_logged_in, other_editor, kind
):
    _, model, field, inline_name = ROWS[kind]
    parent_url, row, row_url = _parent_and_row(kind)
    stale = _form_data(other_editor.get(row_url))
    assert 'name="loaded_row"' in other_editor.get(row_url).content.decode()

    data = _form_data(admin_client_logged_in.get(parent_url))
    saved = admin_client_logged_in.post(parent_url, {**data, inline_name: "Via parent"})
    assert saved.status_code == 302

    refused = other_editor.post(row_url, {**stale, field: "Alone"})
    assert refused.status_code == 200
    assert "Via parent" in refused.content.decode()
    assert getattr(model.objects.get(pk=row.pk), field) == "Via parent"


def test_rows_not_changed_meanwhile_save_as_before(admin_client_logged_in):
    person = _person_with_rows()
    url = _change_url(person)
    data = _form_data(admin_client_logged_in.get(url))
    saved = admin_client_logged_in.post(url, {**data, "experience-0-role": "Lead"})
    assert saved.status_code == 302
    assert Experience.objects.get(person=person).role == "Lead"


def test_the_add_form_has_no_version(admin_client_logged_in):
    html = admin_client_logged_in.get(reverse("admin:people_person_add")).content
    assert b'name="loaded_version"' not in html


API = {
    # resource: model, builder, a field both editors change
    "people": (Person, factories.person, "headline"),
    "publications": (Publication, factories.publication, "title"),
    "events": (Event, factories.event, "host"),
    "topics": (Topic, factories.topic, "description"),
    "venues": (Venue, factories.venue, "short_name"),
    "organizations": (Organization, factories.organization, "location"),
}


API_MODELS = [model._meta.model_name for model, _, _ in API.values()]


@pytest.fixture
def editor(django_user_model) -> APIClient:
    user = django_user_model.objects.create_user(
        "editor", password="a-long-test-password"
    )
    codenames = [
        f"{action}_{model}" for action in ("change", "delete") for model in API_MODELS
    ]
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.parametrize("resource", API)
def test_api_refuses_a_write_from_a_stale_etag(editor, resource):
    model, build, field = API[resource]
    record = build()
    url = f"/api/{resource}/{record.slug}/"
    etag = editor.get(url)["ETag"]

    saved = editor.patch(url, {field: "First"}, format="json", HTTP_IF_MATCH=etag)
    assert saved.status_code == 200
    assert saved["ETag"] != etag and saved["ETag"] == editor.get(url)["ETag"]

    stale = editor.patch(url, {field: "Second"}, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    error = stale.json()["error"]
    assert error["status"] == 412 and error["code"] == "precondition_failed"
    assert "changed by someone else since you read it" in error["message"]
    assert getattr(model.objects.get(pk=record.pk), field) == "First"

    put = editor.put(url, {field: "Second"}, format="json", HTTP_IF_MATCH=etag)
    assert put.status_code == 412
    assert editor.delete(url, HTTP_IF_MATCH=etag).status_code == 412
    assert model.objects.filter(pk=record.pk).exists()
    assert editor.delete(url, HTTP_IF_MATCH=saved["ETag"]).status_code == 204


def test_api_writes_without_if_match_are_not_checked(editor):
    person = factories.person()
    url = f"/api/people/{person.slug}/"
    for headline in ["One", "Two"]:
        response = editor.patch(url, {"headline": headline}, format="json")
        assert response.status_code == 200
    anything = editor.patch(
        url, {"headline": "Three"}, format="json", HTTP_IF_MATCH="*"
    )
    assert anything.status_code == 200
    person.refresh_from_db()
    assert person.headline == "Three"


def test_an_edit_the_api_does_not_show_still_changes_the_etag(editor):
    # The ETag names the saved version, not a digest of the representation: an
    # email address, never shown by the API, was changed by someone else.
    person = factories.person()
    url = f"/api/people/{person.slug}/"
    etag = editor.get(url)["ETag"]
    person.email = "new@example.org"
    person.save()
    response = editor.patch(
        url, {"email": "mine@example.org"}, format="json", HTTP_IF_MATCH=etag
    )
    assert response.status_code == 412
    person.refresh_from_db()
    assert person.email == "new@example.org"


def test_if_match_compares_strongly(editor):
    person = factories.person()
    url = f"/api/people/{person.slug}/"
    etag = editor.get(url)["ETag"]
    for header in [f"W/{etag}", etag.strip('"'), '"other"']:
        response = editor.patch(
            url, {"headline": "x"}, format="json", HTTP_IF_MATCH=header
        )
        assert response.status_code == 412, header
    listed = editor.patch(
        url, {"headline": "y"}, format="json", HTTP_IF_MATCH=f'"other", {etag}'
    )
    assert listed.status_code == 200


def test_the_version_etag_still_answers_conditional_gets(editor):
    person = factories.person()
    url = f"/api/people/{person.slug}/"
    etag = editor.get(url)["ETag"]
    assert editor.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    editor.patch(url, {"headline": "New"}, format="json")
    assert editor.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_the_schema_documents_if_match_and_412(client, db):
    schema = json.loads(client.get("/api/schema/", {"format": "json"}).content)
    patch = schema["paths"]["/api/people/{slug}/"]["patch"]
    assert "If-Match" in [p["name"] for p in patch["parameters"] if p["in"] == "header"]
    assert "412" in patch["responses"]
    topic = schema["paths"]["/api/topics/{slug}/"]["patch"]
    assert "412" in topic["responses"]


@pytest.fixture
def creator(django_user_model) -> APIClient:
    user = django_user_model.objects.create_user(
        "creator", password="a-long-test-password"
    )
    user.user_permissions.add(*Permission.objects.filter(codename="add_topic"))
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_create_losing_a_race_for_its_slug_is_a_conflict(creator):
    # The other request's row arrives after this one passed its uniqueness
    # checks and before its INSERT: what two simultaneous POSTs do.
    def other_request(sender, instance, **kwargs):
        if instance.pk is None and not Topic.objects.filter(slug="graphs").exists():
            Topic.objects.bulk_create([Topic(name="Graphs", slug="graphs")])

    pre_save.connect(other_request, sender=Topic, dispatch_uid="race")
    try:
        response = creator.post(
            "/api/topics/", {"name": "Graphs", "slug": "graphs"}, format="json"
        )
    finally:
        pre_save.disconnect(sender=Topic, dispatch_uid="race")
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "conflict"
    assert "saved at the same time" in error["message"]
    # Here the other request's row went with this one's rolled-back savepoint.
    assert Topic.objects.filter(slug="graphs").count() <= 1
    again = creator.post(
        "/api/topics/", {"name": "Graphs 2", "slug": "graphs-2"}, format="json"
    )
    assert again.status_code == 201


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_creates_give_one_201_and_one_409(django_user_model):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises writers before their uniqueness checks")
    user = django_user_model.objects.create_user("creator", password="long-pass-1")
    user.user_permissions.add(*Permission.objects.filter(codename="add_topic"))
    both_checked = threading.Barrier(2, timeout=10)

    def wait_for_the_other(sender, instance, **kwargs):
        both_checked.wait()

    statuses = []

    def post() -> None:
        client = APIClient()
        client.force_authenticate(user)
        try:
            response = client.post(
                "/api/topics/", {"name": "Graphs", "slug": "graphs"}, format="json"
            )
            statuses.append(response.status_code)
        finally:
            connection.close()

    pre_save.connect(wait_for_the_other, sender=Topic, dispatch_uid="barrier")
    try:
        threads = [threading.Thread(target=post) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
    finally:
        pre_save.disconnect(sender=Topic, dispatch_uid="barrier")
    assert sorted(statuses) == [201, 409]
    assert Topic.objects.filter(slug="graphs").count() == 1
