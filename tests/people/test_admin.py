import datetime
import io

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from people.admin import PersonAdmin
from people.models import Person
from tests import factories


def _person_form(**overrides) -> dict:
    data = {
        "given_name": "Grace",
        "family_name": "Hopper",
        "display_name": "Grace Hopper",
        "slug": "grace-hopper",
        "role": "researcher",
        "status": "current",
    }
    prefixes = [
        "links",
        "research_areas",
        "education",
        "experience",
        "awards",
        "service",
        "teaching",
        "open_source",
        "skills",
        "interests",
    ]
    for prefix in prefixes:
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    data.update(overrides)
    return data


def _png_bytes(size=(64, 48)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_admin_creates_a_member_with_a_photo_and_thumbnail(admin_client_logged_in):
    upload = SimpleUploadedFile(
        "../../evil name.png", _png_bytes(), content_type="image/png"
    )
    response = admin_client_logged_in.post(
        reverse("admin:people_person_add"), _person_form(photo=upload)
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    person = Person.objects.get(slug="grace-hopper")
    assert person.photo and person.photo_thumbnail
    assert ".." not in person.photo.name and "evil" not in person.photo.name
    with Image.open(person.photo_thumbnail.path) as thumb:
        assert thumb.size == (256, 256)


def test_admin_rejects_a_non_image_photo_with_a_message(admin_client_logged_in):
    upload = SimpleUploadedFile(
        "cv.png", b"%PDF-1.4 not an image", content_type="image/png"
    )
    response = admin_client_logged_in.post(
        reverse("admin:people_person_add"), _person_form(photo=upload)
    )
    assert response.status_code == 200
    assert "Upload a valid image" in response.content.decode()
    assert not Person.objects.filter(slug="grace-hopper").exists()


def test_admin_rejects_a_duplicate_slug(admin_client_logged_in):
    factories.person(slug="grace-hopper")
    response = admin_client_logged_in.post(
        reverse("admin:people_person_add"), _person_form()
    )
    assert response.status_code == 200
    assert "Person with this Slug already exists" in response.content.decode()


def test_admin_rejects_an_end_before_start_inline_and_saves_nothing(
    admin_client_logged_in,
):
    org = factories.organization()
    form = _person_form(
        **{
            "education-TOTAL_FORMS": "1",
            "education-0-organization": str(org.pk),
            "education-0-degree": "PhD",
            "education-0-start_date": "2024-09",
            "education-0-end_date": "2020-06",
            "education-0-position": "0",
        }
    )
    response = admin_client_logged_in.post(reverse("admin:people_person_add"), form)
    assert response.status_code == 200
    assert "end date cannot be before the start date" in response.content.decode()
    assert not Person.objects.filter(slug="grace-hopper").exists()


def _education(**fields) -> dict:
    org = factories.organization()
    rows = {"organization": str(org.pk), "degree": "PhD", "position": "0", **fields}
    return {
        "education-TOTAL_FORMS": "1",
        **{f"education-0-{name}": value for name, value in rows.items()},
    }


def test_admin_takes_a_year_alone_or_a_month_as_the_precision_typed(
    admin_client_logged_in,
):
    form = _person_form(**_education(start_date="2019", end_date="2021-06"))
    response = admin_client_logged_in.post(reverse("admin:people_person_add"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    row = Person.objects.get(slug="grace-hopper").education.get()
    assert (row.start_date, row.start_precision) == (datetime.date(2019, 1, 1), "year")
    assert (row.end_date, row.end_precision) == (datetime.date(2021, 6, 1), "month")
    assert row.period_display == "2019 – Jun 2021"


def test_admin_shows_a_date_as_precisely_as_it_is_known(admin_client_logged_in):
    person = factories.person()
    person.education.create(
        organization=factories.organization(),
        degree="BSc",
        start_date=datetime.date(2019, 1, 1),
        start_precision="year",
        end_date=datetime.date(2022, 6, 1),
        end_precision="month",
    )
    url = reverse("admin:people_person_change", args=[person.pk])
    html = admin_client_logged_in.get(url).content.decode()
    assert 'name="education-0-start_date" value="2019"' in html
    assert 'name="education-0-end_date" value="2022-06"' in html
    assert "education-0-start_precision" not in html


def test_admin_refuses_a_date_it_cannot_read(admin_client_logged_in):
    form = _person_form(**_education(start_date="2019-13"))
    response = admin_client_logged_in.post(reverse("admin:people_person_add"), form)
    assert response.status_code == 200
    assert "Enter a year (2019), a month (2019-09) or a day" in response.text
    assert not Person.objects.filter(slug="grace-hopper").exists()


def test_admin_shortens_a_pasted_orcid_link(admin_client_logged_in):
    response = admin_client_logged_in.post(
        reverse("admin:people_person_add"),
        _person_form(orcid="https://orcid.org/0000-0002-1825-0097"),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Person.objects.get(slug="grace-hopper").orcid == "0000-0002-1825-0097"


def test_admin_refuses_a_wrong_orcid_and_a_taken_one(admin_client_logged_in):
    factories.person(orcid="0000-0002-1825-0097")
    wrong = admin_client_logged_in.post(
        reverse("admin:people_person_add"), _person_form(orcid="0000-0002-1825-0098")
    )
    taken = admin_client_logged_in.post(
        reverse("admin:people_person_add"), _person_form(orcid="0000000218250097")
    )
    assert "its check digit is wrong" in wrong.content.decode()
    assert "Another member has this ORCID iD" in taken.content.decode()
    assert not Person.objects.filter(slug="grace-hopper").exists()


def test_admin_lists_members_with_the_oldest_imported_data_first(
    admin_client_logged_in, django_assert_max_num_queries
):
    now = timezone.now()
    old, fresh, never = (factories.person(slug=s) for s in ("old", "fresh", "never"))
    org = factories.organization()
    old.education.create(
        organization=org, degree="PhD", retrieved_at=now - datetime.timedelta(400)
    )
    old.experience.create(role="Intern", retrieved_at=now - datetime.timedelta(2))
    paper = factories.publication(
        authors=[fresh], retrieved_at=now - datetime.timedelta(3)
    )
    factories.publication(authors=[fresh, old], retrieved_at=now)
    assert paper and never

    url = reverse("admin:people_person_changelist")
    column = PersonAdmin.list_display.index("oldest_retrieved_at")
    with django_assert_max_num_queries(12):
        page = admin_client_logged_in.get(url, {"o": str(column + 1)})
    assert [p.slug for p in page.context["cl"].result_list] == ["old", "fresh", "never"]
    stale = admin_client_logged_in.get(url, {"imported": "stale"})
    assert [p.slug for p in stale.context["cl"].result_list] == ["old"]
    none = admin_client_logged_in.get(url, {"imported": "never"})
    assert [p.slug for p in none.context["cl"].result_list] == ["never"]


def test_admin_shows_provenance_of_profile_rows_read_only(admin_client_logged_in):
    person = factories.person()
    person.experience.create(role="Intern", source="orcid", source_id="77")
    html = admin_client_logged_in.get(
        reverse("admin:people_person_change", args=[person.pk])
    ).content.decode()
    assert "experience-0-source_id" not in html  # not an input
    assert "ORCID" in html and ">77<" in html


def test_admin_derives_a_blank_display_name_from_the_given_and_family_names(
    admin_client_logged_in,
):
    response = admin_client_logged_in.post(
        reverse("admin:people_person_add"), _person_form(display_name="")
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Person.objects.get(slug="grace-hopper").display_name == "Grace Hopper"


def test_admin_keeps_a_display_name_given_as_the_member_writes_it(
    admin_client_logged_in,
):
    admin_client_logged_in.post(
        reverse("admin:people_person_add"), _person_form(display_name="G. M. Hopper")
    )
    assert Person.objects.get(slug="grace-hopper").display_name == "G. M. Hopper"


def test_changelists_list_the_records_with_a_link_without_an_address(
    admin_client_logged_in,
):
    named, linked = factories.person(), factories.person()
    named.links.create(kind="github", label="github")
    linked.links.create(kind="github", url="https://example.org/linked")
    page = admin_client_logged_in.get("/admin/people/person/", {"links": "no_address"})
    assert list(page.context["cl"].result_list) == [named]
    assert "Has a link without an address" in page.content.decode()

    job = named.experience.create(role="Intern")
    job.links.create(label="MaxText #4759")
    named.experience.create(role="Engineer").links.create(url="https://example.org")
    page = admin_client_logged_in.get(
        "/admin/people/experience/", {"links": "no_address"}
    )
    assert list(page.context["cl"].result_list) == [job]

    project = named.open_source.create(project="MaxText")
    project.links.create(label="#4759")
    named.open_source.create(project="Other")
    page = admin_client_logged_in.get(
        "/admin/people/opensourcecontribution/", {"links": "no_address"}
    )
    assert list(page.context["cl"].result_list) == [project]
