"""Every link the seed pages name without an address is on the site, as its label.

SEED_LINKS is read off the four seed pages by hand: each label a page shows as a
link whose address the page's text does not give, and the page of this site that
shows it. Issue 27 found 26 of them dropped; the 10 others were already kept.
"""

import collections
import json
import re

import pytest
from django.core.exceptions import ValidationError
from django.utils.html import escape

from events.models import EventLink
from people.models import ContributionLink, ExperienceLink, PersonLink
from publications.models import PublicationLink

ZUO, ZHOU = "/people/jingwei-zuo/", "/people/zhongzhu-zhou/"
COLM = "/events/2026-07-09-i-dlm-squeeze-evolve-colm/"
OSCAR_NEWS = "/events/2026-06-26-oscar-vllm-community/"
ARXIV_NEWS = "/events/2026-06-26-scaling-law-papers-arxiv/"

# (seed, page, label)
SEED_LINKS = [
    # 000, Lei Zhu: under each selected publication ("Bib" opens its BibTeX).
    ("000", "/publications/relayattention/", "arXiv"),
    ("000", "/publications/relayattention/", "Code"),
    ("000", "/publications/biformer/", "arXiv"),
    ("000", "/publications/biformer/", "Code"),
    ("000", "/publications/biformer/", "Poster"),
    # 002, Jingwei Zuo: the header, the two papers, an internship, a project.
    ("002", ZUO, "github"),
    ("002", ZUO, "Instagram (chris.z_pics)"),
    ("002", "/publications/duoattention/", "paper"),
    ("002", "/publications/duoattention/", "code"),
    ("002", "/publications/duoattention/", "demo"),
    ("002", "/publications/agentverse/", "paper"),
    ("002", "/publications/agentverse/", "code"),
    *[("002", ZUO, f"MaxText #{n}") for n in (4759, 4046, 4829, 4938)],
    *[("002", ZUO, f"#{n}") for n in (4759, 4046, 4829)],
    ("002", ZUO, "#4938 (open)"),
    # 004, Zhongzhu Zhou: news items, talks, and pages of the member's own site.
    ("004", COLM, "I-DLM Paper"),
    ("004", COLM, "I-DLM Code"),
    ("004", COLM, "I-DLM Project"),
    ("004", COLM, "Squeeze Evolve Paper"),
    ("004", COLM, "Squeeze Evolve Project"),
    ("004", OSCAR_NEWS, "vLLM PR #46774"),
    ("004", OSCAR_NEWS, "Project"),
    ("004", OSCAR_NEWS, "Code"),
    ("004", ARXIV_NEWS, "Sketched Contrastive Learning"),
    ("004", ARXIV_NEWS, "Mini-Batch Scaling Laws"),
    ("004", "/events/2026-06-05-ai-tonomy-summit-agentic-rl/", "watch"),
    ("004", "/events/2020-07-11-jsidentify-icse/", "watch"),
    ("004", ZHOU, "Research page"),
    ("004", ZHOU, "full archive"),
    ("004", ZHOU, "complete publication list"),
    ("004", ZHOU, "Google Scholar profile"),
]
LINK_MODELS = [PersonLink, ExperienceLink, ContributionLink, PublicationLink, EventLink]


def _unlinked(label: str) -> re.Pattern:
    return re.compile(
        r'<span class="link-text no-address" title="[^"]+">'
        + re.escape(escape(label))
        + r' <small class="no-address-note">\(no address given\)</small></span>'
    )


def test_every_label_a_seed_names_without_an_address_is_stored(demo_lab):
    assert len(SEED_LINKS) == 36
    stored = sum(model.objects.filter(url="").count() for model in LINK_MODELS)
    assert stored == len(SEED_LINKS)
    assert not any(model.objects.exclude(url="").exists() for model in LINK_MODELS)


def test_every_label_a_seed_names_without_an_address_is_on_its_page(client, demo_lab):
    expected = collections.Counter((page, label) for _, page, label in SEED_LINKS)
    pages = {page: client.get(page).content.decode() for page, _ in expected}
    for (page, label), times in expected.items():
        shown = len(_unlinked(label).findall(pages[page]))
        assert shown == times, (page, label)
        assert f">{escape(label)}</a>" not in pages[page], (page, label)
    # A profile lists its papers with their links too.
    zhu = client.get("/people/lei-zhu/").content.decode()
    assert len(_unlinked("arXiv").findall(zhu)) == 2


def test_a_link_without_an_address_needs_a_label(demo_lab):
    for model in LINK_MODELS:
        link = model.objects.first()
        link.full_clean()  # a label and no address
        link.label = ""
        with pytest.raises(ValidationError, match="A link needs a label or a URL"):
            link.full_clean()


def test_the_api_gives_the_label_and_an_empty_address(client, demo_lab):
    paper = client.get("/api/publications/biformer/").json()
    assert paper["links"] == [
        {"kind": "arxiv", "label": "arXiv", "url": ""},
        {"kind": "code", "label": "Code", "url": ""},
        {"kind": "poster", "label": "Poster", "url": ""},
    ]
    zhou = client.get("/api/people/zhongzhu-zhou/").json()
    assert {"kind": "scholar", "label": "Google Scholar profile", "url": ""} in zhou[
        "links"
    ]
    zuo = client.get("/api/people/jingwei-zuo/").json()
    assert zuo["experience"][1]["links"][0] == {"label": "MaxText #4759", "url": ""}
    assert zuo["open_source"][0]["links"][3] == {"label": "#4938 (open)", "url": ""}
    talk = client.get("/api/events/2020-07-11-jsidentify-icse/").json()
    assert talk["links"] == [{"kind": "video", "label": "watch", "url": ""}]


def test_exports_leave_out_links_without_an_address(client, demo_lab):
    bibtex = client.get("/publications/duoattention.bib").getvalue().decode()
    assert not re.search(r"^\s*url\s*=", bibtex, re.M | re.I)
    params = {"author": "jingwei-zuo"}
    csl = json.loads(client.get("/publications/export.json", params).getvalue())
    assert csl and not any("URL" in item for item in csl)
    ris = client.get("/publications/export.ris", params).getvalue().decode()
    assert "UR  -" not in ris
    for page in ("/publications/duoattention/", ZUO, ZHOU):
        html = client.get(page).content.decode()
        blocks = re.findall(
            r'<script type="application/ld\+json">(.*?)</script>', html, re.S
        )
        for block in blocks:
            assert "sameAs" not in json.loads(block), page
        assert "citation_pdf_url" not in html
    card = client.get("/people/zhongzhu-zhou/vcard.vcf").content.decode()
    urls = [line for line in card.splitlines() if line.startswith("URL")]
    assert urls == ["URL:http://testserver/people/zhongzhu-zhou/"]  # the profile
