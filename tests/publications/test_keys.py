"""One citation key per work: the same on its page, in the API and in every export,
unique across the site, and stable while the facts it is made from hold."""

import json
import re

import bibtexparser
import pytest

from publications.keys import assign, base_key
from publications.models import Authorship, Publication
from tests import factories


def _keys_served(client, publication) -> dict[str, str]:
    slug = publication.slug
    page = client.get(f"/publications/{slug}/").content.decode()
    (page_key,) = re.findall(r'id="bibtex">@\w+\{([^,]+),', page)
    one = client.get(f"/publications/{slug}.bib").content.decode()
    api = client.get(f"/api/publications/{slug}/").json()
    api_bib = client.get(f"/api/publications/{slug}/", {"format": "bibtex"})
    api_csl = client.get(f"/api/publications/{slug}/", {"format": "csl"}).json()[0]
    every_bib = bibtexparser.parse_string(
        client.get("/publications/export.bib").getvalue().decode()
    )
    api_list = bibtexparser.parse_string(
        client.get("/api/publications/", {"format": "bibtex"}).getvalue().decode()
    )
    csl = json.loads(client.get("/publications/export.json").getvalue())
    ris = client.get("/publications/export.ris").getvalue().decode()
    title = publication.title
    return {
        "page": page_key,
        ".bib": bibtexparser.parse_string(one).entries[0].key,
        "api": api["citation_key"],
        "api bibtex": bibtexparser.parse_string(api_bib.content.decode())
        .entries[0]
        .key,
        "api csl id": api_csl["id"],
        "api csl key": api_csl["citation-key"],
        "export.bib": next(
            e.key for e in every_bib.entries if title in e["title"].strip("{}")
        ),
        "api list": next(
            e.key for e in api_list.entries if title in e["title"].strip("{}")
        ),
        "export.json": next(i["id"] for i in csl if i["title"] == title),
        "export.ris": re.search(
            rf"ID  - (\S+)\r\nTI  - {re.escape(title)}\r\n", ris
        ).group(1),
    }


@pytest.mark.parametrize("slug", ["relayattention", "kitty", "duoattention", "sub-cp"])
def test_a_demo_paper_has_one_key_everywhere(client, demo_lab, slug):
    publication = Publication.objects.get(slug=slug)
    served = _keys_served(client, publication)
    assert set(served.values()) == {publication.cite_key}, served


def test_demo_keys_are_the_sources_or_made_from_the_facts(demo_lab):
    keys = dict(Publication.objects.values_list("slug", "cite_key"))
    # RelayAttention's own BibTeX entry names it zhu2023relayattention.
    assert keys["relayattention"] == "zhu2023relayattention"
    # No author's place is known: the title's word and the year.
    assert keys["kitty"] == "kitty2026"
    assert keys["duoattention"] == "xiao2025duoattention"
    assert len({k.lower() for k in keys.values()}) == len(keys)
    assert "" not in keys.values()


def test_a_taken_key_gets_a_letter_and_keys_stay_put(db):
    first = factories.publication(title="Same Words", year=2020, authors=["Jane Doe"])
    second = factories.publication(title="Same words", year=2020, authors=["J. DOE"])
    first.refresh_from_db(), second.refresh_from_db()
    assert (first.cite_key, second.cite_key) == ("doe2020same", "doe2020sameb")
    # An edit that keeps the facts keeps the key, even once the other has gone.
    first.delete()
    second.title = "Same words, again"
    second.save()
    second.refresh_from_db()
    assert second.cite_key == "doe2020sameb"
    # A new first author makes a new key.
    Authorship.objects.filter(publication=second).update(name="Ada Lovelace")
    assign([second.pk])
    second.refresh_from_db()
    assert second.cite_key == "lovelace2020same"


def test_keys_compare_without_case_and_two_works_may_swap(db):
    one = factories.publication(title="Alpha", year=2021, authors=["X. Able"])
    two = factories.publication(title="Beta", year=2021, authors=["Y. Baker"])
    Publication.objects.filter(pk=one.pk).update(citation_key="Baker2021beta")
    Publication.objects.filter(pk=two.pk).update(citation_key="able2021ALPHA")
    assign([one.pk, two.pk])
    keys = dict(Publication.objects.values_list("pk", "cite_key"))
    assert keys == {one.pk: "Baker2021beta", two.pk: "able2021ALPHA"}
    # A third work whose source's key differs only by case gets a letter.
    three = factories.publication(title="Gamma", citation_key="BAKER2021BETA")
    three.refresh_from_db()
    assert three.cite_key == "BAKER2021BETAb"


def test_a_source_key_bibtex_cannot_read_is_not_used(db):
    pub = factories.publication(
        title="Odd", year=2022, authors=["Q. Quux"], citation_key="a key, {odd}"
    )
    pub.refresh_from_db()
    assert pub.cite_key == "quux2022odd"


@pytest.mark.parametrize(
    ("title", "year", "first", "expected"),
    [
        ("KITTY: 2-bit KV", 2026, None, "kitty2026"),
        ("The Müller Effect", None, ("Jörg Müller", ""), "muller" + "ndmuller"),
        ("On Things", 2020, ("Zheng, S.", ""), "zheng2020things"),
        ("稀疏注意力", 2024, ("祝磊", ""), "work2024"),
        ("A", 2024, ("Ludwig van Beethoven", "van Beethoven"), "vanbeethoven2024work"),
    ],
)
def test_made_keys(title, year, first, expected):
    assert base_key(title, year, first) == expected


def test_an_api_create_answers_with_the_key_of_its_authors(admin_client, db):
    response = admin_client.post(
        "/api/publications/",
        {
            "slug": "fresh",
            "title": "Fresh Results",
            "year": 2025,
            "authors": [{"name": "Grace Hopper"}],
        },
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["citation_key"] == "hopper2025fresh"


def test_many_works_at_once_get_the_same_keys_as_one_at_a_time(db, monkeypatch):
    pubs = [
        factories.publication(title="Same Words", year=2020, authors=["Jane Doe"])
        for _ in range(5)
    ]
    one_at_a_time = list(Publication.objects.order_by("pk").values_list("cite_key"))
    Publication.objects.update(cite_key="")
    # More works than a batch: every key is read once, then chosen in memory.
    monkeypatch.setattr("publications.keys.BATCH", 2)
    assign([p.pk for p in pubs])
    assert list(Publication.objects.order_by("pk").values_list("cite_key")) == (
        one_at_a_time
    )
    assert one_at_a_time[-1] == ("doe2020samee",)
