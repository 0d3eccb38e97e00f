import threading
from pathlib import Path

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from publications.models import Authorship, BibtexUpload, Publication, Venue
from tests import factories
from tests.admin_forms import as_posted

CORPUS = Path(__file__).parent / "bibtex"
URL = "/admin/publications/publication/import-bibtex/"


def upload(name: str, content: bytes | None = None) -> SimpleUploadedFile:
    data = (CORPUS / name).read_bytes() if content is None else content
    return SimpleUploadedFile(name, data, content_type="application/x-bibtex")


def preview(client, name: str, **fields):
    return client.post(URL, {"file": upload(name), **fields})


def test_changelist_offers_the_import(admin_client_logged_in):
    html = admin_client_logged_in.get("/admin/publications/publication/").content
    assert f'href="{URL}"'.encode() in html and b"Import BibTeX" in html


def test_upload_page_is_an_accessible_form(admin_client_logged_in):
    html = admin_client_logged_in.get(URL).content.decode()
    assert 'enctype="multipart/form-data"' in html
    assert '<label for="id_file"' in html and '<label for="id_person"' in html
    assert "<script>" not in html and "style=" not in html


def test_upload_shows_a_preview_and_writes_nothing(admin_client_logged_in, db):
    response = preview(admin_client_logged_in, "macros.bib")
    assert response.status_code == 200
    html = response.content.decode()
    assert "To create (4)" in html and "Macros and Months" in html
    assert "a volume other entries cite" in html
    assert "International Conference on Machine Learning" in html  # a new venue
    assert 'value="Confirm import"' in html
    assert Publication.objects.count() == 0 and Venue.objects.count() == 0


def test_confirm_imports_the_previewed_file(admin_client_logged_in, db):
    token = preview(admin_client_logged_in, "macros.bib").context["token"]
    response = admin_client_logged_in.post(URL, {"token": token, "skip_invalid": "0"})
    assert response.status_code == 302
    assert response["Location"] == "/admin/publications/publication/"
    assert Publication.objects.filter(source_file="macros.bib").count() == 4
    page = admin_client_logged_in.get(response["Location"]).content.decode()
    assert "Imported macros.bib: 4 created" in page
    assert LogEntry.objects.filter(change_message="Imported from BibTeX.").count() == 4


def test_a_preview_can_be_confirmed_only_once(admin_client_logged_in, db):
    token = preview(admin_client_logged_in, "kinds.bib").context["token"]
    admin_client_logged_in.post(URL, {"token": token})
    response = admin_client_logged_in.post(URL, {"token": token}, follow=True)
    assert "That preview has expired" in response.content.decode()
    assert Publication.objects.count() == 10


def test_a_new_upload_replaces_the_pending_one(admin_client_logged_in, db):
    old = preview(admin_client_logged_in, "kinds.bib").context["token"]
    new = preview(admin_client_logged_in, "names.bib").context["token"]
    session = admin_client_logged_in.session
    assert [k for k in session.keys() if "bibtex-import" in k] == [
        f"publications-bibtex-import-{new}"
    ]
    response = admin_client_logged_in.post(URL, {"token": old}, follow=True)
    assert "That preview has expired" in response.content.decode()


def test_preview_lists_ambiguous_authors_for_review(admin_client_logged_in, db):
    for given in ("Zhongzhu", "Zhang"):
        factories.person(
            given_name=given,
            family_name="Zhou",
            display_name=f"{given} Zhou",
            slug=f"{given.lower()}-zhou",
        )
    html = preview(admin_client_logged_in, "names.bib").content.decode()
    assert "Ambiguous authors" in html
    assert "Z. Zhou" in html and "Zhang Zhou or Zhongzhu Zhou" in html


def test_preview_with_a_member_lists_entries_without_them(admin_client_logged_in, db):
    member = factories.person(
        given_name="Jingwei", family_name="Zuo", display_name="Jingwei Zuo"
    )
    html = preview(admin_client_logged_in, "arxiv.bib", person=member.pk)
    html = html.content.decode()
    assert "Entries where Jingwei Zuo was not found among the authors" in html
    assert "scholar2023" in html


def test_invalid_entries_are_shown_and_nothing_imports_unless_skipped(
    admin_client_logged_in, db
):
    response = preview(admin_client_logged_in, "duplicate_keys.bib")
    html = response.content.decode()
    assert "1 entry cannot be imported" in html
    assert "duplicate citation key (first used on line 1)" in html
    assert "Import the rest, skipping 1 invalid entry" in html
    token = response.context["token"]
    response = admin_client_logged_in.post(URL, {"token": token, "skip_invalid": "0"})
    assert response.status_code == 200
    assert "Nothing was imported" in response.content.decode()
    assert Publication.objects.count() == 0
    admin_client_logged_in.post(URL, {"token": token, "skip_invalid": "1"})
    assert Publication.objects.count() == 2


def test_a_non_utf8_upload_is_reported_not_a_server_error(admin_client_logged_in, db):
    response = preview(admin_client_logged_in, "latin1.bib")
    assert response.status_code == 200
    assert "save the file as UTF-8" in response.content.decode()
    token = response.context["token"]
    admin_client_logged_in.post(URL, {"token": token, "skip_invalid": "1"})
    assert list(Publication.objects.values_list("title", flat=True)) == ["Plain ASCII"]


def test_a_reimport_preview_shows_nothing_to_do(admin_client_logged_in, db):
    token = preview(admin_client_logged_in, "kinds.bib").context["token"]
    admin_client_logged_in.post(URL, {"token": token})
    html = preview(admin_client_logged_in, "kinds.bib").content.decode()
    assert "0 to create, 0 to update,\n  10 already up to date" in html
    assert "disabled" in html


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({}, "This field is required."),
        ({"file": upload("empty.bib", b"")}, "The submitted file is empty."),
    ],
)
def test_upload_without_a_file_shows_the_form_again(
    admin_client_logged_in, db, data, error
):
    response = admin_client_logged_in.post(URL, data)
    assert response.status_code == 200
    assert error in response.content.decode()


def test_an_oversized_upload_is_refused(admin_client_logged_in, db, monkeypatch):
    monkeypatch.setattr("publications.admin.MAX_BIBTEX_BYTES", 10)
    response = admin_client_logged_in.post(URL, {"file": upload("kinds.bib")})
    assert "The file is larger than" in response.content.decode()


@pytest.mark.parametrize("permission", ["change_publication", "add_publication"])
def test_staff_who_cannot_both_add_and_change_cannot_import(
    client, db, django_user_model, permission
):
    user = django_user_model.objects.create_user(
        "editor", password="a-long-test-password", is_staff=True
    )
    user.user_permissions.add(
        Permission.objects.get(codename=permission),
        Permission.objects.get(codename="view_publication"),
    )
    client.force_login(user)
    assert client.get(URL).status_code == 403
    assert client.post(URL, {"file": upload("kinds.bib")}).status_code == 403
    changelist = client.get("/admin/publications/publication/").content
    assert b"Import BibTeX" not in changelist


def test_anonymous_visitors_are_sent_to_the_login(client, db):
    response = client.get(URL)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_imported_authors_show_in_the_change_form(admin_client_logged_in, db):
    token = preview(admin_client_logged_in, "names.bib").context["token"]
    admin_client_logged_in.post(URL, {"token": token})
    paper = Publication.objects.get(citation_key="names2020")
    html = admin_client_logged_in.get(
        f"/admin/publications/publication/{paper.pk}/change/"
    ).content.decode()
    assert "van Beethoven" in html
    assert Authorship.objects.filter(publication=paper).count() == 7


def test_admin_orders_authors_by_position(admin_client_logged_in, db):
    pub = factories.publication(
        authors=["First Author", "Second Author", "Third Author"]
    )
    html = admin_client_logged_in.get(
        reverse("admin:publications_publication_change", args=[pub.pk])
    ).content.decode()
    assert (
        html.index("First Author")
        < html.index("Second Author")
        < html.index("Third Author")
    )


def test_imported_records_to_review_are_filtered_and_marked_reviewed(
    admin_client_logged_in, db
):
    factories.publication(title="Checked by hand")
    token = preview(admin_client_logged_in, "xampl_excerpt.bib").context["token"]
    admin_client_logged_in.post(URL, {"token": token, "skip_invalid": "0"})
    changelist = "/admin/publications/publication/"
    response = admin_client_logged_in.get(changelist, {"needs_review__exact": "1"})
    assert {p.title for p in response.context["cl"].result_list} == {
        "This is a minimal MISC entry",
        "Volume 2 is listed under Knuth <cit.>",
    }
    flagged = Publication.objects.filter(needs_review=True)
    response = admin_client_logged_in.post(
        changelist,
        {"action": "mark_reviewed", "_selected_action": [p.pk for p in flagged]},
    )
    assert response.status_code == 302
    assert not Publication.objects.filter(needs_review=True).exists()


@pytest.fixture
def viewer(client, db, django_user_model):
    """A client signed in as staff who may only view publications."""
    user = django_user_model.objects.create_user(
        "viewer", password="a-long-test-password", is_staff=True
    )
    user.user_permissions.add(Permission.objects.get(codename="view_publication"))
    client.force_login(user)
    return client


CHANGELIST = "/admin/publications/publication/"


@pytest.mark.parametrize(
    "action, label, field, before",
    [
        ("mark_reviewed", b"Mark as reviewed", "needs_review", True),
        ("mark_selected", b"Feature as selected", "selected", False),
    ],
)
def test_staff_who_may_only_view_cannot_run_actions_that_change(
    viewer, action, label, field, before
):
    paper = factories.publication(title="Viewed only", **{field: before})
    assert label not in viewer.get(CHANGELIST).content
    viewer.post(CHANGELIST, {"action": action, "_selected_action": [paper.pk]})
    paper.refresh_from_db()
    assert getattr(paper, field) is before


# -- the authors inline ----------------------------------------------------------


def _authors(publication: Publication) -> list[tuple[int, str]]:
    return list(
        publication.authorships.order_by("position").values_list("position", "name")
    )


def _with_new_rows(data: dict, *rows: dict) -> dict:
    """The posted form with new author rows after the three there are."""
    for n, row in enumerate(rows, start=3):
        data.update({f"authorships-{n}-{name}": v for name, v in row.items()})
    data["authorships-TOTAL_FORMS"] = str(3 + len(rows))
    return data


@pytest.fixture
def three_authors(db) -> tuple[Publication, str]:
    paper = factories.publication(authors=["Ann First", "Bo Second", "Cy Third"])
    return paper, reverse("admin:publications_publication_change", args=[paper.pk])


def test_staff_swap_two_authors_in_one_save(admin_client_logged_in, three_authors):
    paper, url = three_authors
    data = as_posted(admin_client_logged_in.get(url))
    data["authorships-0-position"], data["authorships-1-position"] = "2", "1"
    response = admin_client_logged_in.post(url, data)
    assert response.status_code == 302
    assert _authors(paper) == [(1, "Bo Second"), (2, "Ann First"), (3, "Cy Third")]


def test_staff_add_a_new_first_author_and_shift_the_others(
    admin_client_logged_in, three_authors
):
    paper, url = three_authors
    data = as_posted(admin_client_logged_in.get(url))
    for n in range(3):
        data[f"authorships-{n}-position"] = str(n + 2)
    _with_new_rows(data, {"position": "1", "name": "Di New"})
    response = admin_client_logged_in.post(url, data)
    assert response.status_code == 302
    assert _authors(paper) == [
        (1, "Di New"),
        (2, "Ann First"),
        (3, "Bo Second"),
        (4, "Cy Third"),
    ]


def test_an_author_deleted_leaves_their_place_to_another(
    admin_client_logged_in, three_authors
):
    paper, url = three_authors
    data = as_posted(admin_client_logged_in.get(url))
    data["authorships-0-DELETE"] = "on"
    data["authorships-1-position"], data["authorships-2-position"] = "1", "2"
    assert admin_client_logged_in.post(url, data).status_code == 302
    assert _authors(paper) == [(1, "Bo Second"), (2, "Cy Third")]


def test_two_authors_given_one_place_are_refused_with_a_message(
    admin_client_logged_in, three_authors
):
    paper, url = three_authors
    data = as_posted(admin_client_logged_in.get(url))
    data["authorships-2-position"] = "1"
    response = admin_client_logged_in.post(url, data)
    assert response.status_code == 200
    assert "Please correct the duplicate data" in response.text
    assert _authors(paper) == [(1, "Ann First"), (2, "Bo Second"), (3, "Cy Third")]


@pytest.mark.parametrize("q", ["", "Eight", "Author"])
def test_the_author_count_is_not_multiplied_by_a_search(
    admin_client_logged_in, db, django_assert_max_num_queries, q
):
    factories.publication(
        title="Eight Authors", authors=[f"Author {n}" for n in range(1, 9)]
    )
    with django_assert_max_num_queries(8):
        response = admin_client_logged_in.get(CHANGELIST, {"q": q})
    [paper] = response.context["cl"].result_list
    assert paper.author_total == 8
    assert '<td class="field-author_count">8</td>' in response.text


def test_the_change_form_puts_the_authors_between_the_title_and_the_year(
    admin_client_logged_in, three_authors
):
    _, url = three_authors
    html = admin_client_logged_in.get(url).text
    assert html.index('name="title"') < html.index('id="authorships-group"')
    assert html.index('id="authorships-group"') < html.index('name="year"')
    assert html.index('name="year"') < html.index('name="summary"')
    # Positions stay typed fields; the order controls come from a static script.
    assert 'name="authorships-0-position"' in html
    assert "js/admin-inlines.js" in html and "<script>" not in html


def test_a_member_picked_without_a_printed_name_is_printed_as_the_member(
    admin_client_logged_in, three_authors
):
    paper, url = three_authors
    member = factories.person(display_name="Di Member")
    data = as_posted(admin_client_logged_in.get(url))
    _with_new_rows(
        data,
        {"position": "4", "person": str(member.pk)},
        # A row the page's script numbered and nobody filled in: left out.
        {"position": "5"},
    )
    response = admin_client_logged_in.post(url, data)
    assert response.status_code == 302
    assert _authors(paper)[3] == (4, "Di Member")
    assert paper.authorships.get(position=4).person == member
    assert paper.authorships.count() == 4


def test_an_author_needs_a_printed_name_or_a_member(
    admin_client_logged_in, three_authors
):
    paper, url = three_authors
    data = as_posted(admin_client_logged_in.get(url))
    _with_new_rows(data, {"position": "4", "corresponding": "on"})
    response = admin_client_logged_in.post(url, data)
    assert response.status_code == 200
    assert "Give the name as printed, or pick a member." in response.text
    assert paper.authorships.count() == 3


def test_a_corrected_file_under_a_new_name_previews_its_updates(
    admin_client_logged_in, db
):
    original = b"@article{key1, title={Heads and Tails}, author={Doe, J.}, year=2020}"
    corrected = original.replace(b"2020", b"2021")
    token = admin_client_logged_in.post(
        URL, {"file": upload("lab.bib", original)}
    ).context["token"]
    admin_client_logged_in.post(URL, {"token": token})
    response = admin_client_logged_in.post(
        URL, {"file": upload("lab-fixed.bib", corrected)}
    )
    assert "0 to create, 1 to update,\n  0 already up to date" in response.text
    admin_client_logged_in.post(URL, {"token": response.context["token"]})
    paper = Publication.objects.get()
    assert (paper.year, paper.source_file) == (2021, "lab-fixed.bib")


def test_without_javascript_a_new_paper_gets_its_authors_typed_in_empty_rows(
    admin_client_logged_in, db
):
    url = reverse("admin:publications_publication_add")
    data = as_posted(admin_client_logged_in.get(url))
    assert data["authorships-TOTAL_FORMS"] == 3
    data.update(
        {
            "title": "Typed by Hand",
            "slug": "typed-by-hand",
            "authorships-0-position": "2",
            "authorships-0-name": "Bo Second",
            "authorships-1-position": "1",
            "authorships-1-name": "Ann First",
        }
    )
    assert admin_client_logged_in.post(url, data).status_code == 302
    paper = Publication.objects.get(slug="typed-by-hand")
    assert _authors(paper) == [(1, "Ann First"), (2, "Bo Second")]


def test_changelist_lists_the_papers_with_a_link_without_an_address(
    admin_client_logged_in,
):
    named, linked = factories.publication(), factories.publication()
    named.links.create(kind="arxiv", label="arXiv")
    named.links.create(kind="code", label="Code")
    linked.links.create(kind="code", url="https://example.org/code")
    page = admin_client_logged_in.get(
        "/admin/publications/publication/", {"links": "no_address"}
    )
    assert list(page.context["cl"].result_list) == [named]
    assert page.context["cl"].result_count == 1


def test_private_fields_are_kept_only_when_the_box_is_ticked(admin_client_logged_in):
    from tests.publications.test_import_bibtex import PRIVATE

    for ticked, kept in (({}, False), ({"keep_private": "on"}, True)):
        token = admin_client_logged_in.post(
            URL, {"file": upload("private.bib", PRIVATE.encode()), **ticked}
        ).context["token"]
        admin_client_logged_in.post(URL, {"token": token, "skip_invalid": "0"})
        assert ("Reviewer 2" in Publication.objects.get().bibtex) is kept


def test_a_preview_of_a_macro_bomb_lists_the_entry_not_a_server_error(
    admin_client_logged_in,
):
    from tests.publications.test_import_bibtex import doubling_macros

    bomb = doubling_macros(12) + "@misc{bomb, title = m12, year = 2020}\n"
    chain = "".join(f"@misc{{c{i}, crossref = {{c{i + 1}}}}}\n" for i in range(1000))
    response = admin_client_logged_in.post(
        URL, {"file": upload("bomb.bib", (bomb + chain).encode())}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "which is longer than 100,000 characters once expanded" in html
    assert "its crossref chain is over 10 links" in html
    assert len(html) < 500_000


@pytest.fixture
def large(monkeypatch, no_broker):
    """Files of any size previewed and imported as jobs (run here: no broker, so
    each in a thread of this process once its request commits)."""
    monkeypatch.setattr("publications.admin.IN_REQUEST_BYTES", 0)


def jobs_done(timeout: float = 10) -> None:
    """Wait for the jobs the threads of this process run (joined, not polled: a
    read of the in-memory test database would lock the tables they write)."""
    for thread in threading.enumerate():
        if thread.name.startswith("job-"):
            thread.join(timeout)
            assert not thread.is_alive(), "a job did not end"


# The jobs' threads read what the requests wrote: the requests commit.
@pytest.mark.django_db(transaction=True)
def test_a_large_file_is_previewed_then_imported_by_jobs(admin_client_logged_in, large):
    response = preview(admin_client_logged_in, "macros.bib")
    assert response.status_code == 302
    jobs_done()
    page = admin_client_logged_in.get(response["Location"])
    html = page.content.decode()
    assert "To create (4)" in html and 'value="Confirm import"' in html
    assert Publication.objects.count() == 0
    done = admin_client_logged_in.post(response["Location"], {"skip_invalid": "0"})
    assert done.status_code == 302
    jobs_done()
    assert Publication.objects.filter(source_file="macros.bib").count() == 4
    html = admin_client_logged_in.get(done["Location"]).content.decode()
    assert "macros.bib: 4 created" in html
    assert BibtexUpload.objects.get().text == ""  # not kept once imported


@pytest.mark.django_db(transaction=True)
def test_a_large_file_holds_to_the_same_bounds(admin_client_logged_in, large):
    from tests.publications.test_import_bibtex import doubling_macros

    bomb = doubling_macros(12) + "@misc{bomb, title = m12, year = 2020}\n"
    response = admin_client_logged_in.post(
        URL, {"file": upload("bomb.bib", bomb.encode())}
    )
    jobs_done()
    html = admin_client_logged_in.get(response["Location"]).content.decode()
    assert "which is longer than 100,000 characters once expanded" in html


def test_another_member_of_staff_cannot_see_an_upload(
    admin_client_logged_in, client, django_user_model, large
):
    response = preview(admin_client_logged_in, "macros.bib")
    user = django_user_model.objects.create_user(
        "editor", password="a-long-test-password", is_staff=True
    )
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["add_publication", "change_publication", "view_publication"]
        )
    )
    client.force_login(user)
    assert client.get(response["Location"]).status_code == 403
    assert client.post(response["Location"]).status_code == 403
    assert Publication.objects.count() == 0
