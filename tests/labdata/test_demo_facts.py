"""The demo states no fact its sources do not give (issue 15, part 2).

Each test loads demo/ and checks one rule of demo/README.md ("Facts as the sources
give them") on the stored rows and on what the site serves from them.
"""

import json
import re

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from rest_framework.test import APIClient

from core.models import Organization
from events.models import Event, EventLink
from labdata.loader import load_lab_files
from people.models import ContributionLink, ExperienceLink, Person, PersonLink
from publications.models import Publication, PublicationLink

ZHOU_UNPLACED = [
    "oscar",
    "i-dlm",
    "squeeze-evolve",
    "aurora",
    "care",
    "kitty",
    "ladder-residual",
    "corda",
    "quant-llm",
    "bnn-surface-defect-detection",
    "jsidentify",
    "sketched-linear-contrastive-learning",
    "mini-batch-scaling-laws",
]
LINK_MODELS = [PersonLink, ExperienceLink, ContributionLink, PublicationLink, EventLink]


def _json_ld(html: str) -> list[dict]:
    blocks = re.findall(
        r'<script type="application/ld\+json">(.*?)</script>', html, re.S
    )
    return [json.loads(block) for block in blocks]


def test_an_author_without_a_given_place_is_never_put_first(client, demo_lab):
    for slug in ZHOU_UNPLACED:
        (only,) = Publication.objects.get(slug=slug).authorships.all()
        assert (only.name, only.position_unknown) == ("Zhongzhu Zhou", True)

    page = client.get("/publications/kitty/").content.decode()
    # Listed as "with" an author, and the page says why.
    assert re.search(
        r'title="[^"]*without their place[^"]*">with <a [^>]*>Zhongzhu Zhou</a>', page
    )
    assert "The source names only some of the authors and not their order." in page
    # The APA reference names the author in a note, in no place of a list.
    assert "[Authors include Zhou, Z.; order not given] (2026). KITTY" in page
    bibtex = client.get("/publications/kitty.bib").getvalue().decode()
    assert not re.search(r"^\s*author\s*=", bibtex, re.M)
    assert "Authors include Zhongzhu Zhou" in bibtex
    ris = client.get("/publications/export.ris", {"author": "zhongzhu-zhou"})
    records = ris.getvalue().decode().split("ER  - ")
    (kitty,) = [r for r in records if "ID  - kitty" in r]
    assert "AU  -" not in kitty and "N1  - Authors include Zhongzhu Zhou" in kitty
    csl = client.get("/publications/export.json", {"author": "zhongzhu-zhou"})
    csl = json.loads(csl.getvalue())
    keys = Publication.objects.filter(slug__in=ZHOU_UNPLACED).values("cite_key")
    unplaced = [item for item in csl if {"cite_key": item["id"]} in keys]
    assert len(unplaced) == len(ZHOU_UNPLACED)
    assert all(item["author"] == [] and "note" in item for item in unplaced)
    (article,) = [d for d in _json_ld(page) if d["@type"] == "ScholarlyArticle"]
    assert "author" not in article
    assert 'name="citation_author"' not in page
    api = client.get("/api/publications/kitty/").json()
    assert api["authors"][0]["position"] is None
    assert api["authors"][0]["position_unknown"] is True


def test_author_lists_completed_from_public_records_say_where_from(client, demo_lab):
    flash = Publication.objects.get(slug="flash-llm")
    names = [a.name for a in flash.authorships.all()]
    assert names[0] == "Haojun Xia" and names[4] == "Zhongzhu Zhou"
    assert len(names) == 9 and flash.authors_complete
    assert "arXiv:2309.10285" in flash.authors_source
    deepspeed = Publication.objects.get(slug="deepspeed-chat")
    names = [a.name for a in deepspeed.authorships.all()]
    assert (names[0], names[10], len(names)) == ("Zhewei Yao", "Zhongzhu Zhou", 19)
    assert "arXiv:2308.01320" in deepspeed.authors_source
    assert not deepspeed.authorships.filter(position_unknown=True).exists()

    page = client.get("/publications/flash-llm/").content.decode()
    assert "Author list from" in page and "2309.10285" in page
    assert "Xia, H., Zheng, Z." in page


def test_no_link_has_an_address_the_sources_do_not_give(client, demo_lab):
    for model in LINK_MODELS:
        assert not model.objects.exclude(url="").exists(), model.__name__
    assert not Publication.objects.get(slug="oscar").links.exists()
    oscar_news = Event.objects.get(slug="2026-06-26-oscar-vllm-community")
    # The news item's links stay on the news item, not on the paper it is about.
    assert [link.label for link in oscar_news.links.all()] == [
        "vLLM PR #46774",
        "Project",
        "Code",
    ]

    profile = client.get("/people/jingwei-zuo/").content.decode()
    assert ">MaxText #4759 <small" in profile
    assert ">Instagram (chris.z_pics) <small" in profile
    assert "github.com" not in profile and "instagram.com" not in profile
    news = client.get(oscar_news.get_absolute_url()).content.decode()
    assert ">vLLM PR #46774 <small" in news


def test_a_link_needs_a_label_or_an_address(demo_lab):
    news = Event.objects.get(slug="2026-06-26-oscar-vllm-community")
    with pytest.raises(ValidationError, match="A link needs a label or a URL"):
        EventLink(event=news, kind="code").full_clean()


def test_the_api_refuses_a_link_with_neither_label_nor_address(
    demo_lab, django_user_model
):
    api = APIClient()
    api.force_authenticate(django_user_model.objects.create_superuser("s", "", "p"))
    body = {"title": "T", "slug": "t", "year": 2024, "links": [{"kind": "code"}]}
    response = api.post("/api/publications/", body, format="json")
    assert response.status_code == 400
    assert "A link needs a label or a URL." in response.getvalue().decode()
    assert not Publication.objects.filter(slug="t").exists()
    body["links"] = [{"kind": "code", "label": "PR #1"}]
    assert api.post("/api/publications/", body, format="json").status_code == 201


def test_no_text_gives_anyone_a_gender(demo_lab):
    pronoun = re.compile(r"\b(he|his|him|himself|she|her|hers|herself)\b", re.I)
    texts = []
    for person in Person.objects.all():
        texts += [person.bio, person.research_summary]
        texts += [item.description for item in person.open_source.all()]
    texts += [event.description for event in Event.objects.all()]
    texts += [p.summary for p in Publication.objects.all()]
    assert [t for t in texts if pronoun.search(t)] == []


def test_editorial_notes_are_not_shown_as_content(client, demo_lab):
    zhou = Person.objects.get(slug="zhongzhu-zhou")
    assert all(item.notes == "" for item in zhou.education.all())
    assert "Listed on" not in Publication.objects.get(slug="flash-llm").summary
    assert "activation" not in Publication.objects.get(slug="care").summary
    assert "of the weights" not in Publication.objects.get(slug="corda").summary
    assert not Person.objects.get(slug="s-zheng").awards.exists()

    profile = client.get("/people/zhongzhu-zhou/").content.decode()
    assert "Listed in the page header" not in profile
    assert (
        "The First Class Scholarship (Top 5% of the major), SYSU "
        "× 2 (2015–16 &amp; 2017–18)"
    ) in profile


def test_a_status_the_source_does_not_give_is_shown_as_not_stated(client, demo_lab):
    oscar = Publication.objects.get(slug="oscar")
    assert oscar.status == Publication.Status.NOT_STATED
    page = client.get("/publications/oscar/").content.decode()
    assert "<dt>Status</dt><dd>Not stated by the source</dd>" in page
    listing = client.get("/publications/", {"author": "zhongzhu-zhou"})
    assert '<span class="badge status">Status' not in listing.content.decode()
    bibtex = client.get("/publications/oscar.bib").getvalue().decode()
    assert "Preprint" not in bibtex and "not stated" not in bibtex


# Zhou's page gives these papers only a venue label ("Quantization · MLSys 2026").
ONLY_A_VENUE_LABEL = [
    "aurora",
    "care",
    "kitty",
    "ladder-residual",
    "corda",
    "quant-llm",
    "flash-llm",
    "deepspeed-chat",
    "bnn-surface-defect-detection",
    "jsidentify",
]


def test_a_venue_label_alone_states_no_status(client, demo_lab):
    statuses = dict(
        Publication.objects.filter(slug__in=ONLY_A_VENUE_LABEL).values_list(
            "slug", "status"
        )
    )
    assert statuses == dict.fromkeys(ONLY_A_VENUE_LABEL, "not_stated")
    api = client.get("/api/publications/kitty/").json()
    assert api["status"] == "not_stated"


def test_a_kind_the_source_does_not_give_is_not_stated(client, demo_lab):
    unstated = ["oscar", "bnn-surface-defect-detection", "deepspeed-chat"]
    kinds = Publication.objects.filter(slug__in=unstated).values_list("kind", flat=True)
    assert set(kinds) == {""}
    page = client.get("/publications/bnn-surface-defect-detection/").content.decode()
    assert "<dt>Type</dt><dd>Not stated by the source</dd>" in page
    assert client.get("/api/publications/oscar/").json()["kind"] == ""
    bibtex = client.get("/publications/bnn-surface-defect-detection.bib")
    assert "@article" not in bibtex.getvalue().decode()


def test_organisations_are_named_as_the_pages_write_them(client, demo_lab):
    zhu = client.get("/people/lei-zhu/").content.decode()
    assert "CityUHK" in zhu and "CUHK" in zhu
    assert "City University of Hong Kong" not in zhu
    assert "Chinese University of Hong Kong" not in zhu
    assert "Dalian, China" not in zhu
    nyu = Organization.objects.get(slug="new-york-university-shanghai")
    assert nyu.name == "New York University Shanghai & New York"


def test_a_method_name_is_shown_as_a_working_title(client, demo_lab):
    working = Publication.objects.filter(working_title=True)
    assert sorted(working.values_list("slug", flat=True)) == [
        "hilberta",
        "speculative-recompute",
        "sub-cp",
    ]
    page = client.get("/publications/hilberta/").content.decode()
    assert "working title" in page
    assert "HilbertA [Working title]" in page  # the APA citation
    assert client.get("/api/publications/sub-cp/").json()["working_title"] is True


def test_a_conflict_inside_a_source_is_recorded_and_shown(client, demo_lab):
    (conflict,) = Publication.objects.get(slug="duoattention").conflicts.all()
    assert conflict.about == "venue"
    assert conflict.statement_list[0] == "Publication list: ICLR 2025"
    assert "NeurIPS 2025 poster" in conflict.statement_list[1]

    page = client.get("/publications/duoattention/").content.decode()
    assert "The source disagrees with itself" in page
    assert "Publication list: ICLR 2025" in page
    api = client.get("/api/publications/duoattention/").json()
    assert api["conflicts"][0]["about"] == "venue"
    assert len(api["conflicts"][0]["statements"]) == 3


def test_stored_facts_are_shown_on_the_profiles(client, demo_lab):
    zhu = client.get("/people/lei-zhu/").content.decode()
    # The news item of Oct 30, 2024 names no year of the conference reviewed for.
    assert "<strong>Reviewer</strong>: NeurIPS" in zhu
    assert "NeurIPS 2024" not in zhu

    zhou = client.get("/people/zhongzhu-zhou/")
    selected = [p.slug for p in zhou.context["selected_publications"]]
    assert selected == [
        "oscar",
        "ladder-residual",
        "quant-llm",
        "deepspeed-chat",
        "bnn-surface-defect-detection",
    ]
    html = zhou.content.decode()
    assert "Selected publications" in html
    for short in ("USYD", "SYSU", "UIUC"):
        assert f"{Organization.objects.get(short_name=short).name} ({short})" in html
    # Short names only as the seeds write them: seed 003 writes no "NYU".
    assert set(
        Organization.objects.exclude(short_name="").values_list("short_name", flat=True)
    ) == {"Microsoft (China)", "SYSU", "Tencent", "UIUC", "USYD"}

    zuo = client.get("/people/jingwei-zuo/").content.decode()
    assert "the member's page shows: A carved seal reading 左京伟" in zuo


def test_the_contact_card_keeps_addresses_the_member_hid(client, demo_lab):
    card = client.get("/people/jingwei-zuo/vcard.vcf").content.decode()
    assert "EMAIL" not in card and "rice.edu" not in card

    Person.objects.filter(slug="jingwei-zuo").update(publish_email=True)
    card = client.get("/people/jingwei-zuo/vcard.vcf").content.decode()
    assert "EMAIL:jingwei.zuo@rice.edu" in card


def test_an_event_relates_to_several_publications(client, demo_lab):
    colm = Event.objects.get(slug="2026-07-09-i-dlm-squeeze-evolve-colm")
    assert sorted(p.slug for p in colm.publications.all()) == [
        "i-dlm",
        "squeeze-evolve",
    ]
    page = client.get(colm.get_absolute_url()).content.decode()
    assert "<dt>Publications</dt>" in page
    assert "/publications/i-dlm/" in page and "/publications/squeeze-evolve/" in page
    api = client.get(f"/api/events/{colm.slug}/").json()
    assert len(api["publications"]) == 2
    assert api["publication"] in api["publications"]
    arxiv = Event.objects.get(slug="2026-06-26-scaling-law-papers-arxiv")
    assert arxiv.publications.count() == 2


def test_a_lab_file_may_still_name_one_publication_of_an_event(demo_lab, tmp_path):
    path = tmp_path / "old.yaml"
    path.write_text(
        "events:\n"
        "  - {slug: old-style, kind: news, title: Old, date: '2024',"
        " publication: duoattention}\n",
        encoding="utf-8",
    )
    load_lab_files([path], refs_from_database=True)
    event = Event.objects.get(slug="old-style")
    assert [p.slug for p in event.publications.all()] == ["duoattention"]


def test_loading_the_demo_twice_keeps_the_facts(demo_lab):
    call_command("load_demo", verbosity=0)
    assert Publication.objects.get(slug="oscar").status == "not_stated"
    assert Publication.objects.filter(conflicts__isnull=False).count() == 1
