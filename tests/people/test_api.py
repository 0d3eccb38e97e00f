import pytest
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from people.models import Person
from tests import factories


@pytest.fixture
def api():
    return APIClient()


def test_member_detail_is_complete(api, demo_lab):
    data = api.get("/api/people/jingwei-zuo/").json()
    assert (data["native_name"], data["preferred_name"]) == ("左京伟", "Chris")
    assert data["pronunciation"] == "/dzwaw Jeeng-way/"
    assert data["organization"]["slug"] == "rice-university"
    assert len(data["education"]) == 4 and len(data["experience"]) == 6
    google = data["experience"][0]
    assert (google["start"], google["ongoing"], google["period"]) == (
        "2026-09",
        True,
        "Sep 2026 – Present",
    )
    assert google["supervisor"] == "Linfeng Song"
    # The seed names the pull request without its address: a label, no URL.
    assert any(
        link == {"label": "MaxText #4759", "url": ""}
        for e in data["experience"]
        for link in e["links"]
    )
    assert {i["title"] for i in data["interests"]} >= {"Sports", "Music"}
    assert data["publications"].endswith("/api/publications/?author=jingwei-zuo")


def test_no_email_address_in_the_api(api, demo_lab):
    body = api.get("/api/people/zhongzhu-zhou/").content.decode()
    assert "@" not in body.replace("/api/", "")  # no address, in any field
    assert "zhongzhu.zhou" not in body


def test_an_address_the_member_does_not_publish_is_in_no_answer(api, db):
    factories.person(
        slug="ada", email="ada@example.org", secondary_email="ada.two@example.org"
    )
    for url in ("/api/people/ada/", "/api/people/", "/api/people/?q=ada"):
        body = api.get(url).content.decode()
        assert "example.org" not in body and "example [dot] org" not in body, url


def test_kv_cache_quantization_ranks_its_member_first(api, demo_lab):
    data = api.get("/api/people/", {"q": "KV cache quantization"}).json()
    assert data["results"][0]["slug"] == "zhongzhu-zhou"


def test_native_script_query(api, demo_lab):
    data = api.get("/api/people/", {"q": "祝磊"}).json()
    assert [p["slug"] for p in data["results"]] == ["lei-zhu"]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"role": "phd_student"}, {"jingwei-zuo", "s-zheng"}),
        ({"topic": "quantization"}, {"zhongzhu-zhou"}),
        ({"organization": "together-ai"}, {"zhongzhu-zhou"}),
        ({"venue": "cvpr"}, {"lei-zhu"}),
        ({"q": "diffusion"}, {"s-zheng"}),
    ],
)
def test_each_filter_narrows_the_results(api, demo_lab, params, expected):
    data = api.get("/api/people/", params).json()
    assert {p["slug"] for p in data["results"]} >= expected
    assert data["count"] < 4


def test_status_filter(api, demo_lab):
    assert api.get("/api/people/", {"status": "alumni"}).json()["count"] == 0
    assert api.get("/api/people/", {"status": "current"}).json()["count"] == 4


def test_facets_match_the_page_and_lead_to_their_counts(api, client, demo_lab):
    data = api.get(
        "/api/people/", {"facets": "topic,role,organization,status,venue"}
    ).json()
    page = {
        f.name: {o.value: o.count for o in f.options}
        for f in client.get("/people/").context["facets"]
    }
    for name, options in data["facets"].items():
        assert {o["value"]: o["count"] for o in options} == page[name]
        for option in options:
            narrowed = api.get("/api/people/", {name: option["value"]}).json()
            assert narrowed["count"] == option["count"], (name, option)


def test_detail_query_count_is_bounded(api, demo_lab, django_assert_max_num_queries):
    with django_assert_max_num_queries(16):
        api.get("/api/people/zhongzhu-zhou/")
    with django_assert_max_num_queries(5):
        api.get("/api/people/", {"page_size": 200})


@pytest.fixture
def people_editor(django_user_model):
    user = django_user_model.objects.create_user("ed", password="a-long-password-1")
    user.user_permissions.add(Permission.objects.get(codename="change_person"))
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_ids_and_row_provenance_are_in_the_responses(api, db):
    member = factories.person(
        slug="josiah", orcid="0000-0002-1825-0097", openalex_id="A5023888391"
    )
    member.experience.create(role="Intern", source="orcid", source_id="77")

    listed = api.get("/api/people/", {"orcid": "https://orcid.org/0000-0002-1825-0097"})
    detail = api.get("/api/people/josiah/").json()

    assert [p["slug"] for p in listed.json()["results"]] == ["josiah"]
    assert (detail["orcid"], detail["openalex_id"]) == (
        "0000-0002-1825-0097",
        "A5023888391",
    )
    row = detail["experience"][0]
    assert (row["source"], row["source_id"], row["retrieved_at"]) == (
        "orcid",
        "77",
        None,
    )


def test_an_orcid_link_is_stored_short_and_a_wrong_one_refused(people_editor, db):
    factories.person(slug="josiah")
    url = "/api/people/josiah/"

    ok = people_editor.patch(
        url, {"orcid": "https://orcid.org/0000-0002-1825-0097"}, format="json"
    )
    bad = people_editor.patch(url, {"orcid": "0000-0002-1825-0098"}, format="json")

    assert ok.status_code == 200 and ok.json()["orcid"] == "0000-0002-1825-0097"
    assert bad.status_code == 400 and "orcid" in bad.json()["error"]["fields"]
    assert Person.objects.get(slug="josiah").orcid == "0000-0002-1825-0097"


def test_an_open_source_project_names_its_paper(api, demo_lab):
    projects = api.get("/api/people/jingwei-zuo/").json()["open_source"]
    papers = {p["project"]: p["publication"] for p in projects}
    assert papers["MaxText"] is None
    assert papers["DuoAttention"].endswith("/api/publications/duoattention/")
