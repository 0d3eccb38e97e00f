import json

import pytest

from sources import openalex, orcid
from sources.records import PartialDate
from tests.sources.conftest import sample


def _json(name: str) -> dict:
    return json.loads(sample(name))


def test_it_reads_every_field_of_an_openalex_work():
    work = openalex.parse_work(_json("openalex_work.json"))
    assert work.source == "openalex"
    assert work.openalex_id == work.source_id == "W4385245566"
    assert work.title == "Sparse Attention for Long Documents"
    assert work.kind == "conference_paper"
    assert work.date == PartialDate(2023, 8, 4)
    assert work.doi == "10.1145/3580305.3599999"
    assert work.arxiv_id == "2305.01234"
    assert (work.venue, work.venue_kind) == (
        "Knowledge Discovery and Data Mining",
        "conference",
    )
    assert work.oa_url == "https://arxiv.org/pdf/2305.01234"
    assert work.abstract == (
        "Long documents strain attention; we make it sparse and read longer "
        "whole documents"
    )
    assert work.topics == ["Topic Modeling", "Natural Language Processing Techniques"]
    assert work.cited_by_count == 42
    assert work.counts_by_year == [
        {"year": 2023, "cited_by_count": 12},
        {"year": 2024, "cited_by_count": 30},
    ]
    first, second, third = work.authors
    assert (first.name, first.orcid, first.openalex_id) == (
        "Mina Park",
        "0000-0002-1825-0097",
        "A5023888391",
    )
    assert first.institutions == ["University of Toronto"]
    assert first.corresponding
    # The name as printed on the paper, not OpenAlex's display name.
    assert second.name == "J. Weber"
    assert second.institutions == ["Vector Institute", "University of Toronto"]
    assert (third.name, third.orcid) == ("Wei Li", "")


def test_it_reads_a_preprint_and_its_arxiv_id_from_the_doi():
    page = _json("openalex_works_page2.json")
    work = openalex.parse_work(page["results"][0])
    assert work.kind == "preprint"
    assert work.arxiv_id == "2401.04567"
    assert work.venue_kind == "preprint"
    assert work.abstract == ""


def test_it_reads_an_openalex_author():
    author = openalex.parse_author(_json("openalex_author.json"))
    assert author.openalex_id == "A5023888391"
    assert author.orcid == "0000-0002-1825-0097"
    assert author.display_name == "Mina Park"
    assert author.other_names == ["M. Park", "Park Mina"]
    assert author.affiliations == [
        "University of Toronto",
        "Seoul National University",
        "Vector Institute",
    ]


def test_it_reads_a_list_response_and_tells_the_kinds_apart():
    works, authors = openalex.parse_document(_json("openalex_works_page1.json"))
    assert [w.openalex_id for w in works] == ["W4385245566"]
    assert authors == []
    assert openalex.kind_of(_json("openalex_author.json")) == "author"
    with pytest.raises(openalex.WrongKind, match="I185261750"):
        openalex.kind_of({"id": "https://openalex.org/I185261750"})


def test_it_reads_every_field_of_an_orcid_record():
    record = orcid.parse_record_text(sample("orcid_record.json"))
    assert record.orcid == "0000-0002-1825-0097"
    assert (record.given_name, record.family_name, record.credit_name) == (
        "Mina",
        "Park",
        "Mina Park",
    )
    assert record.other_names == ["박민아", "M. Park"]
    assert record.keywords == ["Sparse attention", "Origami"]
    assert [(u.label, u.url) for u in record.links] == [
        ("Homepage", "https://minapark.example.org/")
    ]
    (job,) = record.employments
    assert (job.put_code, job.organization, job.department, job.role) == (
        51,
        "University of Toronto",
        "Computer Science",
        "PhD student",
    )
    assert job.start == PartialDate(2021, 9) and job.start.precision == "month"
    assert job.end is None
    assert job.location == "Toronto, CA"
    (school,) = record.educations
    assert school.start == PartialDate(2016, 3, 2)
    # February 29 of 2021 does not exist: kept at month precision, with a warning.
    assert school.end == PartialDate(2021, 2)
    assert record.warnings == [
        "Seoul National University (end): 2021-02-29 is not a date; "
        "kept at month precision"
    ]
    paper, preprint, article = record.works
    assert (paper.put_code, paper.source_id, paper.title) == (
        1001,
        "1001",
        "Sparse attention for long documents",
    )
    assert (paper.kind, paper.date, paper.doi) == (
        "conference_paper",
        PartialDate(2023, 8),
        "10.1145/3580305.3599999",
    )
    assert (paper.venue, paper.venue_kind) == ("KDD '23", "conference")
    assert (preprint.kind, preprint.arxiv_id, preprint.date) == (
        "preprint",
        "2401.04567",
        PartialDate(2024, 1),
    )
    assert article.doi == "10.1000/jml.2022.17"
    assert article.date == PartialDate(2022) and article.date.precision == "year"
    # Only the work's own ids ("self"), not the book it is part of.
    assert article.other_ids == {"pmid": "31234567"}
    assert [(a.name, a.orcid) for a in article.authors] == [
        ("Mina Park", "0000-0002-1825-0097"),
        ("Jonas Weber", ""),
    ]


def test_the_xml_form_reads_the_same_as_the_json_form():
    assert orcid.parse_record_text(
        sample("orcid_record.xml").encode()
    ) == orcid.parse_record_text(sample("orcid_record.json"))


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"orcid-identifier": ', "not JSON"),
        ("<record", "not well-formed XML"),
        ('{"id": "https://openalex.org/W1"}', "not an ORCID record"),
        ("<x:person xmlns:x='http://www.orcid.org/ns/person'/>", "root element"),
        # defusedxml refuses entity expansion ("billion laughs").
        (
            '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><r>&a;</r>',
            "not well-formed XML",
        ),
    ],
)
def test_it_rejects_what_is_not_an_orcid_record(text, message):
    with pytest.raises(ValueError, match=message):
        orcid.parse_record_text(text)


def test_an_impossible_month_keeps_the_year():
    warnings: list[str] = []
    found = orcid._date(
        {"year": {"value": "2020"}, "month": {"value": "13"}}, warnings, "x"
    )
    assert found == PartialDate(2020)
    assert warnings == ["x: 2020-13 is not a date; kept at year precision"]
