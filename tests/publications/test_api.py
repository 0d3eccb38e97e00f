import json

import bibtexparser
import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from rest_framework.test import APIClient

from publications.models import Authorship, Publication
from tests import factories


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user(
        "editor", password="a-long-test-password"
    )
    for action in ("add", "change", "delete"):
        user.user_permissions.add(
            Permission.objects.get(codename=f"{action}_publication")
        )
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_duoattention_lists_eight_authors_in_order_with_the_member_linked(
    api, demo_lab
):
    data = api.get("/api/publications/duoattention/").json()
    authors = data["authors"]
    assert len(authors) == 8
    assert authors[0] == {
        "position": 1,
        "name": "Guangxuan Xiao",
        "person": None,
        "equal_contribution": False,
        "corresponding": False,
        "position_unknown": False,
    }
    assert authors[2]["name"] == "Jingwei Zuo"
    assert authors[2]["person"].endswith("/api/people/jingwei-zuo/")
    assert [a["person"] is not None for a in authors].count(True) == 1
    assert data["venue"]["short_name"] == "ICLR" and data["year"] == 2025


def test_co_first_authors_are_flagged(api, demo_lab):
    authors = api.get("/api/publications/agentverse/").json()["authors"]
    assert [a["equal_contribution"] for a in authors[:3]] == [True, True, False]


def test_a_publication_as_bibtex_by_format_or_accept(api, demo_lab):
    by_format = api.get("/api/publications/biformer/", {"format": "bibtex"})
    assert by_format["Content-Type"].startswith("application/x-bibtex")
    assert "google_scholar_id = {d1gkVwhDpl0C}" in by_format.getvalue().decode()
    by_accept = api.get(
        "/api/publications/biformer/", HTTP_ACCEPT="application/x-bibtex"
    )
    assert by_accept.content == by_format.content


def test_a_members_list_as_bibtex_parses_back(api, demo_lab):
    response = api.get(
        "/api/publications/",
        {"author": "zhongzhu-zhou", "format": "bibtex", "page_size": 200},
    )
    library = bibtexparser.parse_string(response.getvalue().decode())
    assert len(library.entries) == 15
    assert not library.failed_blocks


def test_csl_json_for_one_and_many(api, demo_lab):
    one = api.get("/api/publications/toma/", {"format": "csl"})
    assert one["Content-Type"].startswith("application/vnd.citationstyles.csl+json")
    [item] = one.json()
    assert item["title"].startswith("ToMA")
    assert [a.get("family") for a in item["author"][:2]] == ["Lu", "Zheng"]
    many = api.get("/api/publications/", {"author": "jingwei-zuo", "format": "csl"})
    assert len(json.loads(many.getvalue())) == 2


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"q": "attention"}, {"duoattention", "relayattention", "biformer"}),
        ({"topic": "kv-cache-quantization"}, {"oscar", "kitty"}),
        ({"year": "2024"}, None),
        ({"year_from": "2025", "year_to": "2025"}, None),
        ({"venue": "iclr"}, None),
        ({"status": "under_review"}, None),
        ({"kind": "preprint"}, None),
        (
            {"author": "s-zheng"},
            {"toma", "hilberta", "speculative-recompute", "sub-cp"},
        ),
        ({"selected": "true"}, None),
    ],
)
def test_each_filter_narrows_the_results(api, demo_lab, params, expected):
    everything = api.get("/api/publications/", {"page_size": 200}).json()
    narrowed = api.get("/api/publications/", {**params, "page_size": 200}).json()
    slugs = {p["slug"] for p in narrowed["results"]}
    assert 0 < narrowed["count"] < everything["count"]
    if expected is not None:
        assert expected <= slugs


def test_api_facets_equal_the_page_facets(api, client, demo_lab):
    params = {"q": "quantization", "topic": "efficient-ml"}
    data = api.get(
        "/api/publications/", {**params, "facets": "topic,year,venue"}
    ).json()
    page = client.get("/publications/", params).context["facets"]
    page_counts = {f.name: {o.value: o.count for o in f.options} for f in page}
    for name, options in data["facets"].items():
        assert {o["value"]: o["count"] for o in options} == page_counts[name]
    for option in data["facets"]["year"]:
        narrowed = api.get(
            "/api/publications/", {**params, "year": option["value"]}
        ).json()
        assert narrowed["count"] == option["count"]


def test_ordering_and_pagination_edges(api, demo_lab):
    oldest = api.get("/api/publications/", {"ordering": "year", "page_size": 1}).json()
    assert oldest["results"][0]["year"] == 2020 and oldest["next"]
    total = oldest["count"]
    last = api.get(
        "/api/publications/", {"page_size": 5, "page": (total + 4) // 5}
    ).json()
    assert last["next"] is None and len(last["results"]) == total - 5 * (
        (total + 4) // 5 - 1
    )


def test_list_query_count_does_not_depend_on_page_size_or_authors(
    api, db, django_assert_max_num_queries
):
    for _ in range(2):
        factories.publication(authors=["A"])
    with django_assert_max_num_queries(8) as small:
        api.get("/api/publications/", {"page_size": 1, "facets": "year,venue"})
    for i in range(60):
        pub = factories.publication(authors=[f"Author {n}" for n in range(12)])
        pub.topics.add(factories.topic())
        pub.links.create(kind="paper", url=f"https://example.org/{i}")
        factories.venue() if i % 10 == 0 else None
    with django_assert_max_num_queries(len(small.captured_queries)):
        response = api.get(
            "/api/publications/", {"page_size": 100, "facets": "year,venue"}
        )
    assert len(response.json()["results"]) == 62


@pytest.mark.parametrize("facets", ["", "year", "year,venue,topic"])
def test_a_filtered_list_takes_three_queries_plus_one_per_facet(
    api, db, facets, django_assert_max_num_queries
):
    for i in range(30):
        pub = factories.publication(
            authors=[f"Author {n}" for n in range(12)], year=2020 + i % 3
        )
        pub.topics.add(factories.topic(), factories.topic())
        pub.links.create(kind="code", url=f"https://example.org/{i}")
    # The count, the page with its authors, topics and links; the year facet read
    # from the counts kept on write (its own filter aside, nothing narrows it);
    # the others: the papers in all and those that pass, their values in one
    # query (and, when those are most papers, every count less the rest's), and
    # the names of the topics and venues shown.
    budget = {"": 3, "year": 4, "year,venue,topic": 9}[facets]
    params = {"year": ["2020", "2021"], "page_size": 100}
    connection.features.supports_json_field  # noqa: B018 - once per connection
    with django_assert_max_num_queries(budget):
        response = api.get("/api/publications/", {**params, "facets": facets})
    results = response.json()["results"]
    assert len(results) == 20
    assert all(len(p["authors"]) == 12 and len(p["topics"]) == 2 for p in results)


def test_a_lists_count_is_remembered_until_the_next_write(
    api, db, django_assert_max_num_queries
):
    for _ in range(3):
        factories.publication(year=2021)
    factories.publication(year=2022)
    assert api.get("/api/publications/", {"year": "2021"}).json()["count"] == 3
    with django_assert_max_num_queries(1):  # the page only
        again = api.get("/api/publications/", {"year": "2021", "ordering": "title"})
    assert again.json()["count"] == 3
    factories.publication(year=2021)
    assert api.get("/api/publications/", {"year": "2021"}).json()["count"] == 4
    assert api.get("/api/publications/", {"year": "2022"}).json()["count"] == 1


def test_an_anonymous_list_is_built_once_until_the_next_write(
    api, editor, db, django_assert_num_queries
):
    pub = factories.publication(title="Before", year=2021)
    url = "/api/publications/?year=2021&facets=year"
    first = api.get(url).json()
    with django_assert_num_queries(0):
        again = api.get(url)
    assert again.json() == first and again["Content-Type"] == "application/json"
    # Another host gets its own absolute links; BibTeX is not the JSON remembered.
    other = api.get(url, HTTP_HOST="localhost").json()
    assert other["results"][0]["url"].startswith("http://localhost/")
    assert first["results"][0]["url"].startswith("http://testserver/")
    assert api.get(url + "&format=bibtex").getvalue().decode().startswith("@")
    # Signed-in clients are answered from the database every time.
    with django_assert_num_queries(3, exact=False):
        editor.get(url)
    pub.title = "After"
    pub.save()
    assert api.get(url).json()["results"][0]["title"] == "After"
    assert editor.get(url).json()["results"][0]["title"] == "After"


def test_nested_rows_keep_their_order_and_types(api, db):
    member = factories.person()
    pub = factories.publication(authors=["Zoe First", member, "Al Third"])
    pub.authorships.filter(position__in=[1, 2]).update(equal_contribution=True)
    pub.authorships.filter(position=3).update(corresponding=True)
    pub.topics.add(factories.topic(name="Zeta"), factories.topic(name="Alpha"))
    for position, kind in [(2, "slides"), (0, "paper"), (1, "code")]:
        pub.links.create(kind=kind, position=position, url=f"https://x.org/{kind}")
    bare = factories.publication()
    listed = api.get("/api/publications/", {"page_size": 200}).json()["results"]
    for data in (
        api.get(f"/api/publications/{pub.slug}/").json(),
        next(p for p in listed if p["slug"] == pub.slug),
    ):
        assert [
            (a["position"], a["name"], a["equal_contribution"], a["corresponding"])
            for a in data["authors"]
        ] == [
            (1, "Zoe First", True, False),
            (2, member.display_name, True, False),
            (3, "Al Third", False, True),
        ]
        assert data["authors"][1]["person"].endswith(f"/api/people/{member.slug}/")
        assert data["authors"][0]["person"] is None
        assert [t["name"] for t in data["topics"]] == ["Alpha", "Zeta"]
        assert data["topics"][0]["url"].endswith(
            "/api/topics/" + data["topics"][0]["slug"] + "/"
        )
        assert [link["kind"] for link in data["links"]] == ["paper", "code", "slides"]
    empty = api.get(f"/api/publications/{bare.slug}/").json()
    assert (empty["authors"], empty["topics"], empty["links"]) == ([], [], [])


def test_create_with_authors_in_order(editor, demo_lab):
    payload = {
        "title": "Tiny models, big caches",
        "slug": "tiny-models",
        "year": 2026,
        "venue": "iclr",
        "topics": ["kv-cache-quantization"],
        "authors": [
            {
                "name": "Zhongzhu Zhou",
                "person": "zhongzhu-zhou",
                "equal_contribution": True,
            },
            {"name": "Lei Zhu", "person": "lei-zhu", "equal_contribution": True},
            {"name": "Outside Person", "corresponding": True},
        ],
        "links": [{"kind": "code", "url": "https://example.org/code"}],
    }
    response = editor.post("/api/publications/", payload, format="json")
    assert response.status_code == 201, response.json()
    authors = response.json()["authors"]
    assert [a["name"] for a in authors] == [
        "Zhongzhu Zhou",
        "Lei Zhu",
        "Outside Person",
    ]
    assert [a["position"] for a in authors] == [1, 2, 3]
    assert authors[2]["corresponding"] and authors[2]["person"] is None
    # The new paper is searchable at once, and counts for its authors.
    found = editor.get("/api/people/", {"q": "tiny models"}).json()
    assert {p["slug"] for p in found["results"]} == {"zhongzhu-zhou", "lei-zhu"}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            {"authors": [{"name": "A", "position": 1}, {"name": "B", "position": 1}]},
            "authors",
        ),
        (
            {"authors": [{"name": "A", "position": 1}, {"name": "B", "position": 3}]},
            "authors",
        ),
        ({"authors": [{"name": "A", "position": 2}, {"name": "B"}]}, "authors"),
        ({"authors": [{"name": "A", "person": "no-such-member"}]}, "authors"),
        ({"year": 3025}, "year"),
        ({"month": 13}, "month"),
        ({"slug": "duoattention"}, "slug"),
        ({"slug": "not a slug!"}, "slug"),
        ({"links": [{"kind": "code", "url": "javascript:alert(1)"}]}, "links"),
        ({"venue": "no-such-venue"}, "venue"),
    ],
)
def test_bad_writes_are_refused_and_change_nothing(editor, demo_lab, change, field):
    pub = Publication.objects.get(slug="toma")
    before = list(pub.authorships.values_list("position", "name", "person_id"))
    counts = (Publication.objects.count(), Authorship.objects.count())
    payload = {"title": "X", "slug": "toma", "year": 2025, **change}
    response = editor.put("/api/publications/toma/", payload, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    created = editor.post(
        "/api/publications/",
        {**payload, "slug": change.get("slug", "new-x")},
        format="json",
    )
    assert created.status_code == 400
    assert (Publication.objects.count(), Authorship.objects.count()) == counts
    assert list(pub.authorships.values_list("position", "name", "person_id")) == before


@pytest.mark.parametrize("year", ["%00", "20%x5", "%(year)s"])
def test_a_bad_year_with_a_percent_sign_is_a_400(api, db, year):
    # DRF once formatted the message with %.
    factories.publication(slug="paper")
    response = api.get("/api/publications/", {"year": year})
    assert response.status_code == 400
    assert response.json()["error"]["fields"]["year"] == [f"“{year}” is not a year."]


def test_a_record_ignores_no_parameter_silently(api, db):
    # A record named by its slug is that record: a list's filters do not apply
    # to it, and are refused rather than silently ignored.
    factories.publication(slug="paper", year=2020)
    assert api.get("/api/publications/paper/", {"format": "json"}).status_code == 200
    response = api.get("/api/publications/paper/", {"year": "2024", "q": "x"})
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "q": ["Unknown query parameter."],
        "year": ["Unknown query parameter."],
    }


def test_csl_answers_are_documented_as_arrays(api, db):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    csl = "application/vnd.citationstyles.csl+json"
    for path in ["/api/publications/", "/api/publications/{slug}/"]:
        content = schema["paths"][path]["get"]["responses"]["200"]["content"]
        ref = content[csl]["schema"]["$ref"].rsplit("/", 1)[-1]
        assert schema["components"]["schemas"][ref]["type"] == "array"
        assert content["application/x-bibtex"]["schema"] == {"type": "string"}


def test_deleting_a_venue_still_in_use_is_a_409(db, django_user_model):
    venue = factories.venue(slug="iclr")
    factories.publication(venue=venue)
    factories.publication(venue=venue)
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_superuser("root"))
    response = client.delete("/api/venues/iclr/")
    assert response.status_code == 409
    assert response.json()["error"] == {
        "status": 409,
        "code": "conflict",
        "message": "Still referred to by 2 publications: change or delete those first.",
    }
    assert client.get("/api/venues/iclr/").status_code == 200


def test_a_slug_with_a_nul_character_is_invalid_not_a_database_error(editor, db):
    # PostgreSQL refuses NUL in a query: the lookup must not be tried.
    payload = {"title": "X", "slug": "x", "year": 2025}
    for change in [{"venue": "v\x00"}, {"topics": ["ml\x00"]}]:
        response = editor.post(
            "/api/publications/", {**payload, **change}, format="json"
        )
        assert response.status_code == 400
        assert response.json()["error"]["fields"] == {
            name: ["Invalid value."] for name in change
        }


def test_a_write_asking_for_a_citation_format_answers_with_the_whole_record(editor):
    payload = {"title": "A paper", "slug": "a-paper", "year": 2025}
    response = editor.post("/api/publications/?format=csl", payload, format="json")
    assert response.status_code == 201
    body = response.json()
    # The JSON representation, authors and all, as the schema documents.
    assert body["slug"] == "a-paper" and body["authors"] == []


def test_ids_citations_and_provenance_are_in_the_response(api, db):
    factories.publication(
        slug="cited",
        doi="https://doi.org/10.1145/ABC",
        openalex_id="W2741809807",
        cited_by_count=12,
        counts_by_year=[{"year": 2025, "cited_by_count": 12}],
        citations_retrieved_at="2025-12-01T00:00:00Z",
        orcid_put_codes=[4242],
        source="openalex",
        source_id="W2741809807",
    )

    record = api.get("/api/publications/cited/").json()

    assert record["doi"] == "10.1145/abc" and record["openalex_id"] == "W2741809807"
    assert record["cited_by_count"] == 12
    assert record["counts_by_year"] == [{"year": 2025, "cited_by_count": 12}]
    assert record["citations_retrieved_at"].startswith("2025-12-01T00:00:00")
    assert record["orcid_put_codes"] == [4242]
    assert (record["source"], record["source_id"]) == ("openalex", "W2741809807")


def test_doi_filter_and_ordering_by_citations(api, db):
    factories.publication(slug="unknown")
    factories.publication(slug="few", cited_by_count=2, doi="10.1000/few")
    factories.publication(slug="many", cited_by_count=90)

    ordered = api.get("/api/publications/", {"ordering": "-cited_by_count"}).json()
    assert [p["slug"] for p in ordered["results"]] == ["many", "few", "unknown"]
    found = api.get("/api/publications/", {"doi": "https://doi.org/10.1000/FEW"})
    assert [p["slug"] for p in found.json()["results"]] == ["few"]
    bad = api.get("/api/publications/", {"doi": "%N/A"})
    assert bad.status_code == 400
    assert "not a DOI" in bad.json()["error"]["fields"]["doi"][0]


def test_imported_fields_cannot_be_written_through_the_api(editor, db):
    factories.publication(slug="paper", cited_by_count=5)

    response = editor.patch(
        "/api/publications/paper/",
        {"cited_by_count": 5000, "source": "orcid", "openalex_id": "W1"},
        format="json",
    )

    assert response.status_code == 200
    paper = Publication.objects.get(slug="paper")
    assert (paper.cited_by_count, paper.source, paper.openalex_id) == (
        5,
        "manual",
        "W1",
    )


def test_an_openalex_link_is_accepted_and_a_bad_id_refused(editor, db):
    factories.publication(slug="paper")

    ok = editor.patch(
        "/api/publications/paper/",
        {"openalex_id": "https://openalex.org/W2741809807"},
        format="json",
    )
    bad = editor.patch(
        "/api/publications/paper/", {"openalex_id": "A5023888391"}, format="json"
    )

    assert ok.status_code == 200 and ok.json()["openalex_id"] == "W2741809807"
    assert bad.status_code == 400 and "openalex_id" in bad.json()["error"]["fields"]
    assert Publication.objects.get(slug="paper").openalex_id == "W2741809807"
