import pytest
from rest_framework.test import APIClient


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


def test_kv_cache_quantization_ranks_its_member_first(api, demo_lab):
    data = api.get("/api/people/", {"q": "KV cache quantization"}).json()
    assert data["results"][0]["slug"] == "zhongzhu-zhou"


def test_native_script_query(api, demo_lab):
    data = api.get("/api/people/", {"q": "祝磊"}).json()
    assert [p["slug"] for p in data["results"]] == ["lei-zhu"]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"role": "phd_student"}, {"jingwei-zuo", "shaoyi-zheng"}),
        ({"topic": "quantization"}, {"zhongzhu-zhou"}),
        ({"organization": "together-ai"}, {"zhongzhu-zhou"}),
        ({"venue": "cvpr"}, {"lei-zhu"}),
        ({"q": "diffusion"}, {"shaoyi-zheng"}),
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
