import io
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from publications.bibtex.parser import decode_bytes, parse_bibtex
from publications.bibtex.tex import decode_latex
from publications.models import (
    Authorship,
    Publication,
    PublicationLink,
    PublicationSearchDocument,
    Venue,
)
from publications.services import BibtexImportError, publication_import_bibtex
from tests import factories

CORPUS = Path(__file__).parent / "bibtex"


def corpus(name: str) -> str:
    return decode_bytes((CORPUS / name).read_bytes())


def run(name: str, **options):
    return publication_import_bibtex(text=corpus(name), source=name, **options)


def table_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (
            Publication,
            Authorship,
            PublicationLink,
            Venue,
            PublicationSearchDocument,
        )
    }


def authors_of(title: str) -> list[str]:
    publication = Publication.objects.get(title=title)
    return [a.name for a in publication.authorships.order_by("position")]


@pytest.fixture
def members(db):
    """Four members named in full, so that every way of printing a name can match."""
    return {
        slug: factories.person(
            given_name=given,
            family_name=family,
            display_name=f"{given} {family}",
            native_name=native,
            slug=slug,
        )
        for slug, given, family, native in (
            ("siyu-zheng", "Siyu", "Zheng", ""),
            ("lei-zhu", "Lei", "Zhu", "祝磊"),
            ("zhongzhu-zhou", "Zhongzhu", "Zhou", ""),
            ("jingwei-zuo", "Jingwei", "Zuo", "左京伟"),
        )
    }


# -- reading what real files contain ---------------------------------------------


def test_tex_accents_and_escapes_are_decoded_to_unicode(db):
    run("accents.bib")
    paper = Publication.objects.get(citation_key="mueller2021")
    assert paper.title == "Über BERT: Große Sprachmodelle für München"
    assert authors_of(paper.title) == [
        "Jörg Müller",
        "René García",
        "Anna Straßer",
        "Søren Østergaard",
    ]
    assert paper.pages == "10–20"


def test_nested_braces_math_and_ligatures_become_plain_text(db):
    run("accents.bib")
    paper = Publication.objects.get(citation_key="nested2019")
    assert paper.title == (
        "Nested Braces Stay Text: α-Divergence & 50% Off — and “Quotes”"
    )
    assert authors_of(paper.title) == ["Jiří Škoda", "Paweł Łódź"]
    assert paper.doi == "10.1234/js.2019.12_3"


def test_titles_and_names_in_any_script_are_kept(db):
    run("accents.bib")
    paper = Publication.objects.get(citation_key="scripts2024")
    assert paper.title == "多语言模型的高效推理: Ελληνικά και Русский"
    assert authors_of(paper.title) == [
        "祝磊",
        "Γιώργος Παπαδόπουλος",
        "Ольга Иванова",
    ]


def test_sort_macros_are_dropped_with_their_argument(db):
    run("accents.bib")
    paper = Publication.objects.get(citation_key="noopsort2020")
    assert paper.title == "Sorting Tricks in Bibliographies"
    assert authors_of(paper.title) == ["Zhongzhu Zhou", "D. E. Knuth"]


def test_string_macros_concatenation_and_month_macros_are_expanded(db):
    run("macros.bib")
    macro = Publication.objects.get(citation_key="macro2023")
    assert macro.venue.name == "International Conference on Learning Representations"
    assert macro.venue.short_name == "ICLR"
    assert macro.month == 7
    concat = Publication.objects.get(citation_key="concat2024")
    assert concat.title == "Concatenated Titles"
    assert concat.venue == macro.venue
    assert concat.month == 6
    journal = Publication.objects.get(citation_key="journal2022")
    assert journal.venue.name == "Journal of Machine Learning Research"
    assert (journal.volume, journal.number, journal.pages) == ("23", "101", "1–40")


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("{{Deep} Learning}", "{Deep} Learning"),
        ("{A} {B}", "{A} {B}"),
        ('"Say {"}hi{"}"', 'Say {"}hi{"}'),
        ('"A" "B"', '"A" "B"'),
        ('"{a}"', "{a}"),
        (r"{a\{b}", r"a\{b"),
        ("{}", ""),
    ],
)
def test_only_the_braces_or_quotes_around_a_whole_value_are_stripped(written, value):
    parsed = parse_bibtex(f"@misc{{k,\n  abstract = {written},\n  year = 2020\n}}\n")
    assert [entry.fields["abstract"] for entry in parsed.entries] == [value]


def test_comments_and_preambles_are_not_imported(db):
    report = run("macros.bib")
    assert not Publication.objects.filter(title="Ghost").exists()
    assert {item.key for item in report.created} == {
        "macro2023",
        "concat2024",
        "journal2022",
        "child2021",
    }


def test_crossref_fields_are_inherited_and_the_cited_volume_is_skipped(db):
    report = run("macros.bib")
    child = Publication.objects.get(citation_key="child2021")
    assert (child.year, child.volume, child.pages) == (2021, "139", "100–110")
    assert child.venue.short_name == "ICML"
    assert not Publication.objects.filter(citation_key="icml2021").exists()
    assert [(s.key, s.reason) for s in report.skipped] == [
        ("icml2021", "a volume other entries cite")
    ]


def test_bibtex_is_kept_verbatim_unless_it_needs_the_rest_of_the_file(db):
    run("macros.bib")
    journal = Publication.objects.get(citation_key="journal2022")
    assert "journal = jmlr" not in journal.bibtex  # a macro only this file defines
    assert "Journal of Machine Learning Research" in journal.bibtex
    child = Publication.objects.get(citation_key="child2021")
    assert "crossref" not in child.bibtex and "PMLR" in child.bibtex
    run("accents.bib")
    mueller = Publication.objects.get(citation_key="mueller2021")
    assert mueller.bibtex.startswith("@inproceedings{mueller2021,\n  title     = ")
    assert mueller.bibtex in (CORPUS / "accents.bib").read_text()
    # A kept entry must stand alone: it parses to the same record by itself.
    for publication in (journal, child, mueller):
        alone = parse_bibtex(publication.bibtex)
        assert not alone.errors and alone.entries[0].fields["title"] == (
            publication.title
        )


@pytest.mark.parametrize(
    ("printed", "family"),
    [
        ("Jane Doe", ""),
        ("John Smith", ""),
        ("Ludwig van Beethoven Jr.", "van Beethoven"),
        ("Jean de la Fontaine", "de la Fontaine"),
        ("Google DeepMind", "Google DeepMind"),
        ("Barnes and Noble", "Barnes and Noble"),
        ("Gabriel García Márquez", "García Márquez"),
    ],
)
def test_names_in_every_bibtex_form_are_printed_given_name_first(db, printed, family):
    run("names.bib")
    authorship = Authorship.objects.get(
        publication__citation_key="names2020", name=printed
    )
    assert authorship.family_name == family


def test_and_others_marks_the_author_list_incomplete(db):
    run("names.bib")
    paper = Publication.objects.get(citation_key="names2020")
    assert paper.authors_complete is False
    assert "others" not in authors_of(paper.title)
    assert Publication.objects.get(citation_key="members2021").authors_complete


@pytest.mark.parametrize(
    ("key", "kind", "status", "venue"),
    [
        ("k-conf", "conference_paper", "published", "Conference on Things"),
        ("k-workshop", "workshop_paper", "published", "Workshop on Small Things"),
        ("k-journal", "journal_article", "published", "Journal of Things"),
        ("k-report", "technical_report", "published", None),
        ("k-phd", "thesis", "published", None),
        ("k-masters", "thesis", "published", None),
        ("k-software", "software", "published", None),
        ("k-misc", "other", "published", None),
        ("k-book", "other", "published", None),
        ("k-unpublished", "other", "under_review", None),
    ],
)
def test_entry_types_map_to_publication_kinds(db, key, kind, status, venue):
    run("kinds.bib")
    paper = Publication.objects.get(citation_key=key)
    assert (paper.kind, paper.status) == (kind, status)
    assert (paper.venue.name if paper.venue else None) == venue


def test_free_text_howpublished_is_venue_detail_unless_it_names_a_venue(db):
    github = factories.venue(name="GitHub", short_name="", kind="other")
    run("kinds.bib")
    assert Publication.objects.get(citation_key="k-software").venue == github
    misc = Publication.objects.get(citation_key="k-misc")
    assert (misc.venue, misc.venue_detail) == (None, "A blog")
    assert not Venue.objects.filter(name="A blog").exists()


def test_theses_and_reports_keep_their_institution_as_venue_detail(db):
    run("kinds.bib")
    assert Publication.objects.get(citation_key="k-phd").venue_detail == (
        "Rice University"
    )
    report = Publication.objects.get(citation_key="k-report")
    assert (report.venue_detail, report.number) == ("Rice University", "TR-1")


@pytest.mark.parametrize(
    ("key", "arxiv_id", "kind", "status"),
    [
        ("eprint2024", "2401.01234", "preprint", "preprint"),
        ("scholar2023", "2305.04321", "preprint", "preprint"),
        ("corr2022", "2210.00001", "preprint", "preprint"),
        ("published2025", "2502.00002", "conference_paper", "accepted"),
    ],
)
def test_arxiv_ids_are_found_wherever_exporters_put_them(
    db, key, arxiv_id, kind, status
):
    run("arxiv.bib")
    paper = Publication.objects.get(citation_key=key)
    assert (paper.arxiv_id, paper.kind, paper.status) == (arxiv_id, kind, status)
    if kind == "preprint":
        assert paper.venue.name == "arXiv" and paper.venue.kind == "preprint"
    assert paper.volume == ""


def test_a_url_becomes_a_paper_link(db):
    run("arxiv.bib")
    paper = Publication.objects.get(citation_key="published2025")
    assert [(link.kind, link.url) for link in paper.links.all()] == [
        ("paper", "https://arxiv.org/abs/2502.00002v3")
    ]


def test_an_undefined_macro_is_kept_as_text_with_a_note(db):
    text = "@article{a, title={T}, author={Doe, J.}, journal=tpami, year=2020}"
    report = publication_import_bibtex(text=text, source="a.bib")
    assert Publication.objects.get().venue.name == "tpami"
    assert report.warnings == [
        "line 1, a: undefined macro `tpami` in `journal`, kept as text"
    ]


def test_a_macro_defined_again_reads_as_its_new_value_from_there_on():
    text = (
        "@string{j = {Old Journal}}\n"
        "@article{a, title={A}, author={Doe, J.}, journal=j, year=2020}\n"
        "@string{j = {New Journal}}\n"
        "@article{b, title={B}, author={Doe, J.}, journal=j, year=2020}\n"
        "@article{c, title={C}, author={Doe, J.}, journal=j # { Letters}, year=2020}\n"
        "@article{d, title={D}, author={Doe, J.}, journal=j # { Letters}, year=2020}\n"
    )
    parsed = parse_bibtex(text)
    assert [entry.fields["journal"] for entry in parsed.entries] == [
        "Old Journal",
        "New Journal",
        "New Journal Letters",
        "New Journal Letters",
    ]
    assert parsed.warnings == [
        "line 3: macro `j` is defined again; the later value is used"
    ]


def test_an_undefined_macro_is_noted_in_every_entry_that_uses_it():
    text = "".join(
        f"@article{{{key}, title={{T}}, journal=tpami, year=2020}}\n"
        for key in ("a", "b")
    )
    assert [entry.warnings for entry in parse_bibtex(text).entries] == [
        ["line 1, a: undefined macro `tpami` in `journal`, kept as text"],
        ["line 2, b: undefined macro `tpami` in `journal`, kept as text"],
    ]


def test_an_invalid_url_or_month_is_left_out_with_a_note(db):
    text = (
        "@article{a, title={T}, author={Doe, J.}, journal={J}, year=2020,"
        " month={Fall}, url={not a url}}"
    )
    report = publication_import_bibtex(text=text, source="a.bib")
    paper = Publication.objects.get()
    assert paper.month is None and paper.links.count() == 0
    assert report.warnings == [
        "line 1, a: month 'Fall' not understood, left out",
        "line 1, a: URL 'not a url' is not valid, left out",
    ]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ("year=1850", "year: Ensure this value is greater than or equal to 1900."),
        ("year=2020, pages={" + "1" * 50 + "}", "pages: Ensure this value has at most"),
        ("year=2020, author={A, B, C, D}", "author 'A, B, C, D'"),
    ],
)
def test_values_the_model_refuses_are_reported_per_entry(db, fields, message):
    text = f"@article{{bad, title={{T}}, journal={{J}}, {fields}}}"
    with pytest.raises(BibtexImportError) as error:
        publication_import_bibtex(text=text, source="a.bib")
    assert "line 1, bad: " in str(error.value) and message in str(error.value)


# -- venues ----------------------------------------------------------------------


def test_venues_match_existing_ones_by_name_short_name_or_dressed_up_booktitle(db):
    iclr = factories.venue(
        name="International Conference on Learning Representations",
        short_name="ICLR",
    )
    run("macros.bib")
    assert Publication.objects.get(citation_key="macro2023").venue == iclr
    concat = Publication.objects.get(citation_key="concat2024")
    assert concat.venue == iclr
    assert concat.venue_detail == (
        "Proceedings of the Thirteenth International Conference on Learning "
        "Representations"
    )
    assert Venue.objects.filter(short_name__iexact="iclr").count() == 1


def test_a_new_venue_takes_its_short_name_from_a_parenthesised_acronym(db):
    report = run("macros.bib")
    icml = Venue.objects.get(short_name="ICML")
    assert icml.name == "International Conference on Machine Learning"
    assert icml.kind == "conference"
    assert "International Conference on Machine Learning" in report.venues_created
    assert Venue.objects.get(name="Journal of Machine Learning Research").kind == (
        "journal"
    )


# -- members ---------------------------------------------------------------------


def test_members_are_matched_by_any_variant_of_their_name(members):
    report = run("names.bib")
    paper = Publication.objects.get(citation_key="members2021")
    linked = [
        (a.name, a.person.slug if a.person else None) for a in paper.authorships.all()
    ]
    assert linked == [
        ("S. Zheng", "siyu-zheng"),
        ("Lei Zhu", "lei-zhu"),
        ("Z. Zhou", "zhongzhu-zhou"),
        ("Jingwei Zuo", "jingwei-zuo"),
    ]
    native = Publication.objects.get(citation_key="native2022")
    assert native.authorships.get(name="祝磊").person == members["lei-zhu"]
    assert report.matched_members == 5 and report.ambiguous == []


def test_a_name_that_fits_two_members_is_reported_and_left_unlinked(members):
    factories.person(
        given_name="Zhang",
        family_name="Zhou",
        display_name="Zhang Zhou",
        slug="zhang-zhou",
    )
    report = run("names.bib")
    authorship = Authorship.objects.get(
        publication__citation_key="members2021", name="Z. Zhou"
    )
    assert authorship.person is None
    [ambiguous] = report.ambiguous
    assert (ambiguous.key, ambiguous.author) == ("members2021", "Z. Zhou")
    assert sorted(ambiguous.candidates) == ["Zhang Zhou", "Zhongzhu Zhou"]


def test_a_full_name_wins_over_an_initial_that_fits_two_members(members):
    factories.person(
        given_name="Zhang", family_name="Zhou", display_name="Zhang Zhou", slug="zz"
    )
    text = "@article{a, title={T}, author={Zhou, Zhongzhu}, journal={J}, year=2020}"
    report = publication_import_bibtex(text=text, source="a.bib")
    assert Authorship.objects.get().person == members["zhongzhu-zhou"]
    assert report.ambiguous == []


def test_person_option_links_the_member_even_by_initials(members):
    text = (
        "@article{a, title={By Initials}, author={Doe, J. and Zheng, SY},"
        " journal={J}, year=2020}\n"
        "@article{b, title={Without Them}, author={Doe, Jane}, journal={J}, year=2020}"
    )
    report = publication_import_bibtex(
        text=text, source="mine.bib", person=members["siyu-zheng"]
    )
    assert Authorship.objects.get(name="SY Zheng").person == members["siyu-zheng"]
    assert [(m.key, m.reason) for m in report.person_missing] == [
        ("b", "Siyu Zheng is not among the authors")
    ]
    assert Publication.objects.filter(title="Without Them").exists()


def test_person_option_settles_a_name_that_fits_them_and_another_member(members):
    factories.person(
        given_name="Sam", family_name="Zheng", display_name="Sam Zheng", slug="sam"
    )
    text = (
        "@article{a, title={T}, author={Zheng, S. and Doe, J.}, journal={J}, year=2020}"
    )
    report = publication_import_bibtex(
        text=text, source="mine.bib", person=members["siyu-zheng"]
    )
    assert Authorship.objects.get(name="S. Zheng").person == members["siyu-zheng"]
    assert report.ambiguous == [] and report.person_missing == []


# -- idempotency and updates -----------------------------------------------------


@pytest.mark.parametrize(
    "name", ["accents.bib", "macros.bib", "names.bib", "arxiv.bib", "kinds.bib"]
)
def test_importing_the_same_file_again_changes_nothing(members, name):
    first = run(name)
    before = table_counts()
    second = run(name)
    assert table_counts() == before
    assert second.created == [] and second.updated == []
    assert len(second.unchanged) == len(first.created)


def test_an_entry_already_present_is_updated_not_duplicated(db):
    run("editorials.bib")
    text = (CORPUS / "editorials.bib").read_text().replace("iii--viii", "iii--ix")
    report = publication_import_bibtex(text=text, source="editorials.bib")
    assert [(item.key, item.changes) for item in report.updated] == [
        ("editorial-4-2", ["pages", "bibtex"])
    ]
    assert Publication.objects.filter(title="Editor's Comments").count() == 2
    assert Publication.objects.get(citation_key="editorial-4-2").pages == "iii–ix"


LAB_FILE = """
@inproceedings{zhou2024kv,
  title     = {Quantised KV Caches for Long Contxt},
  author    = {Zhou, Zhongzhu and Doe, Jane},
  booktitle = {International Conference on Machine Learning},
  year      = {2023},
  pages     = {1--10},
}

@article{zuo2025,
  title   = {Streaming Heads},
  author  = {Zuo, Jingwei},
  journal = {Journal of Names},
  year    = {2025},
  volume  = {3},
  doi     = {10.5555/heads.2025},
}

@misc{zheng2024,
  title         = {A Preprint on Attention},
  author        = {Zheng, Siyu},
  year          = {2024},
  eprint        = {2402.05555},
  archivePrefix = {arXiv},
}
"""
# The same three papers, corrected: a typo, a year, pages and an author by key;
# renamed keys found by DOI and by arXiv id.
CORRECTED_FILE = (
    LAB_FILE.replace("Contxt", "Context")
    .replace("2023", "2024")
    .replace("1--10", "1--12")
    .replace("Doe, Jane", "Doe, Jane and Zhu, Lei")
    .replace("zuo2025,", "zuo2025heads,")
    .replace("{Streaming Heads}", "{Streaming Heads for Long Contexts}")
    .replace("{3}", "{4}")
    .replace("zheng2024,", "zheng2024attention,")
)


def test_a_corrected_file_under_a_new_name_updates_the_papers_it_describes(
    members,
):
    first = publication_import_bibtex(text=LAB_FILE, source="lab-2024.bib")
    assert len(first.created) == 3
    before = table_counts()
    report = publication_import_bibtex(
        text=CORRECTED_FILE, source="lab-2024-corrected.bib"
    )
    assert (len(report.created), len(report.unchanged)) == (0, 0)
    before["Authorship"] += 1  # Lei Zhu
    assert {item.key: item.changes for item in report.updated} == {
        "zhou2024kv": ["title", "year", "pages", "bibtex", "authors", "source_file"],
        "zuo2025heads": ["title", "volume", "bibtex", "citation_key", "source_file"],
        "zheng2024attention": ["bibtex", "citation_key", "source_file"],
    }
    assert table_counts() == before
    kv = Publication.objects.get(citation_key="zhou2024kv")
    assert (kv.title, kv.year, kv.pages) == (
        "Quantised KV Caches for Long Context",
        2024,
        "1–12",
    )
    assert authors_of(kv.title) == ["Zhongzhu Zhou", "Jane Doe", "Lei Zhu"]
    heads = Publication.objects.get(doi="10.5555/heads.2025")
    assert (heads.title, heads.volume) == ("Streaming Heads for Long Contexts", "4")
    assert set(Publication.objects.values_list("source_file", flat=True)) == {
        "lab-2024-corrected.bib"
    }
    again = publication_import_bibtex(
        text=CORRECTED_FILE, source="lab-2024-corrected.bib"
    )
    assert (again.created, again.updated, len(again.unchanged)) == ([], [], 3)


def test_a_key_another_file_gives_another_work_matches_nothing(db):
    def bib(fields: str, source: str) -> None:
        text = f"@article{{k1, author={{Doe, J.}}, year=2020, {fields}}}"
        publication_import_bibtex(text=text, source=source)

    bib("title={Sparse Heads}, doi={10.5555/heads}", "one.bib")
    # Files reuse short keys for works of their own: another title is another
    # work, and so is the same title under another DOI.
    bib("title={Dense Tails}", "two.bib")
    bib("title={Sparse Heads}, doi={10.5555/other}", "three.bib")
    assert sorted(Publication.objects.values_list("title", "source_file")) == [
        ("Dense Tails", "two.bib"),
        ("Sparse Heads", "one.bib"),
        ("Sparse Heads", "three.bib"),
    ]


def test_records_are_matched_by_doi_then_arxiv_id_whatever_the_title(db):
    by_doi = factories.publication(title="Old Title", doi="10.5555/identity.2021")
    by_arxiv = factories.publication(title="Preprint", arxiv_id="2401.01234v2")
    run("editorials.bib")
    run("arxiv.bib")
    assert Publication.objects.filter(doi__iexact="10.5555/identity.2021").count() == 1
    assert not Publication.objects.filter(citation_key="eprint2024").exists()
    by_doi.refresh_from_db()
    by_arxiv.refresh_from_db()
    # Kept by hand: blanks are filled, curated values stay.
    assert by_doi.title == "Old Title" and by_doi.venue.name == "Journal of Identity"
    # A version suffix names a revision, not the work: the id is kept without it.
    assert by_arxiv.title == "Preprint" and by_arxiv.arxiv_id == "2401.01234"


def test_a_record_kept_by_hand_only_has_its_blanks_filled(members):
    venue = factories.venue(name="Journal of Names", short_name="JN")
    curated = factories.publication(
        title="Members Written Every Way",
        year=2021,
        venue=venue,
        summary="Our words.",
        authors=[members["siyu-zheng"], "Lei Zhu", "Z. Zhou", "Jingwei Zuo"],
    )
    report = run("names.bib")
    curated.refresh_from_db()
    assert curated.summary == "Our words." and curated.source_file == ""
    assert [item.key for item in report.updated] == ["members2021"]
    people = [a.person_id for a in curated.authorships.order_by("position")]
    assert people == [
        members["siyu-zheng"].pk,
        members["lei-zhu"].pk,
        members["zhongzhu-zhou"].pk,
        members["jingwei-zuo"].pk,
    ]


def test_two_works_that_share_a_title_stay_two(db):
    report = run("editorials.bib")
    editorials = Publication.objects.filter(title="Editor's Comments")
    assert sorted(editorials.values_list("number", flat=True)) == ["1", "2"]
    assert [(s.key, s.reason) for s in report.skipped] == [
        ("withdoi-again", "the same work as withdoi on line 21 (same DOI)")
    ]


def test_the_same_title_and_year_in_another_volume_is_another_work(db):
    factories.publication(title="Editor's Comments", year=2020, volume="43")
    run("editorials.bib")
    assert Publication.objects.filter(title="Editor's Comments").count() == 3


def test_links_and_hand_made_author_links_survive_a_reimport(members):
    run("arxiv.bib")
    paper = Publication.objects.get(citation_key="eprint2024")
    doe = paper.authorships.get(name="Jane Doe")
    doe.person = members["siyu-zheng"]  # staff resolved it by hand
    doe.equal_contribution = True
    doe.save()
    text = corpus("arxiv.bib").replace("Zuo, Jingwei and Doe, Jane", "Doe, Jane")
    publication_import_bibtex(text=text, source="arxiv.bib")
    [author] = paper.authorships.all()
    assert (author.name, author.person, author.equal_contribution) == (
        "Jane Doe",
        members["siyu-zheng"],
        True,
    )


# -- all or nothing --------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("truncated.bib", "line 8, cut: malformed entry: the entry is never closed"),
        ("duplicate_keys.bib", "line 8, same: duplicate citation key (first used"),
        ("latin1.bib", "line 1, latin1: holds bytes that are not UTF-8 (line 2)"),
    ],
)
def test_a_bad_entry_aborts_the_import_with_its_line_and_key(members, name, message):
    factories.publication(title="Already There")
    before = table_counts()
    with pytest.raises(BibtexImportError) as error:
        run(name)
    assert message in str(error.value)
    assert table_counts() == before


def test_skip_invalid_imports_the_rest_and_lists_what_was_skipped(db):
    report = run("duplicate_keys.bib", skip_invalid=True)
    assert sorted(Publication.objects.values_list("citation_key", flat=True)) == [
        "fine",
        "same",
    ]
    assert Publication.objects.get(citation_key="same").year == 2020
    assert [(s.key, s.line) for s in report.invalid] == [("same", 8)]


def test_a_non_utf8_entry_is_skipped_and_the_others_imported(db):
    report = run("latin1.bib", skip_invalid=True)
    assert list(Publication.objects.values_list("title", flat=True)) == ["Plain ASCII"]
    assert "save the file as UTF-8" in report.invalid[0].reason


def test_entries_missing_a_title_year_or_authors_import_all_the_same(db):
    report = run("missing_fields.bib")
    assert report.skipped_total == 0
    assert len(report.created) == 4
    assert Publication.objects.get(citation_key="noyear").year is None
    assert Publication.objects.get(citation_key="noauthor").authorships.count() == 0


def test_a_database_error_rolls_the_whole_import_back(db, monkeypatch):
    before = table_counts()

    def fail(*args, **kwargs):
        raise RuntimeError("index down")

    monkeypatch.setattr("publications.importing.writer.index", fail)
    with pytest.raises(RuntimeError):
        run("macros.bib")
    assert table_counts() == before


def test_dry_run_reports_everything_and_writes_nothing(members):
    before = table_counts()
    report = run("macros.bib", dry_run=True)
    assert table_counts() == before
    assert len(report.created) == 4 and report.venues_created
    assert report.summary().startswith("Dry run, nothing written: 4 created")


# -- search and speed ------------------------------------------------------------


def test_imported_publications_and_their_members_are_searchable(members):
    run("names.bib")
    paper = Publication.objects.get(citation_key="members2021")
    assert "Members Written Every Way" in paper.search_document.heading
    assert "Members Written Every Way" in members["lei-zhu"].search_document.body


def test_import_queries_do_not_grow_with_the_number_of_entries(
    members, django_assert_max_num_queries
):
    def entries(n: int, name: str) -> str:
        return "\n".join(
            f"@article{{k{i}, title={{{name} {i}}}, author={{Zheng, Siyu and"
            f" Doe, J. and Roe, R.}}, journal={{J{i % 3}}}, year=2020,"
            f" url={{https://x.org/{name}/{i}}}}}"
            for i in range(n)
        )

    with django_assert_max_num_queries(80) as small:
        publication_import_bibtex(text=entries(5, "Small"), source="small.bib")
    with django_assert_max_num_queries(len(small.captured_queries) + 10):
        publication_import_bibtex(text=entries(300, "Large"), source="large.bib")
    assert Publication.objects.count() == 305


# -- the command -----------------------------------------------------------------


def test_command_imports_a_file_and_prints_a_summary(members):
    out = io.StringIO()
    call_command("import_bibtex", str(CORPUS / "names.bib"), stdout=out)
    assert "3 created, 0 updated, 0 unchanged, 0 skipped; 5 authors matched" in (
        out.getvalue()
    )
    assert "\r[" not in out.getvalue()  # no progress bar when not a terminal
    assert Publication.objects.filter(source_file="names.bib").count() == 3


def test_command_with_person_reports_entries_without_them(members):
    out = io.StringIO()
    call_command(
        "import_bibtex",
        str(CORPUS / "arxiv.bib"),
        "--person",
        "jingwei-zuo",
        stdout=out,
    )
    assert "member not found: line 10, scholar2023" in out.getvalue()


def test_command_fails_clearly_and_writes_nothing_on_a_bad_file(db):
    with pytest.raises(CommandError, match="line 8, cut") as error:
        call_command("import_bibtex", str(CORPUS / "truncated.bib"))
    assert "--skip-invalid" in str(error.value)
    assert Publication.objects.count() == 0


def test_command_dry_run_writes_nothing(db):
    out = io.StringIO()
    call_command("import_bibtex", str(CORPUS / "kinds.bib"), "--dry-run", stdout=out)
    assert "Dry run, nothing written: 10 created" in out.getvalue()
    assert Publication.objects.count() == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.bib"], "Cannot read missing.bib"),
        ([str(CORPUS / "kinds.bib"), "--person", "nobody"], "No member has the slug"),
    ],
)
def test_command_rejects_bad_arguments(db, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("import_bibtex", *args)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_command_draws_a_progress_bar_on_a_terminal(db):
    out = Terminal()
    call_command("import_bibtex", str(CORPUS / "kinds.bib"), stdout=out)
    assert "\r[##############################] 10/10 entries\n" in out.getvalue()


# -- TeX in real files -------------------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"Publishing \& \TeX", "Publishing & TeX"),
        (r"{\TUG}", "TUG"),
        (r"{\MTeX}", "MTeX"),
        (r"\LaTeX and \MF", "LaTeX and METAFONT"),
        (r"\LaTeXe{} and \BibTeX", "LaTeX2ε and BibTeX"),
        (r"{\AmSTeX\Dash``A friendly product''}", "AMS-TeX—“A friendly product”"),
        (r"How to build a {\tt\bs strut}", r"How to build a \strut"),
        (r"Don't just {\tt\char`\\let} {\TeX} hang", r"Don't just \let TeX hang"),
        (r"DVIto\kern-.15em VDU: A \TeX\ page", "DVIto VDU: A TeX page"),
        (r"The \TeX\ Live Guide, \nth{4} edition", "The TeX Live Guide, 4th edition"),
        (r"\nth{1}, \nth{12}, \nth{22}, \nth{103}", "1st, 12th, 22nd, 103rd"),
        (r"Soliciting Bids for \acro{TUG}\,'97", "Soliciting Bids for TUG '97"),
        (r"An audio view of {(\La)\TeX}", "An audio view of (La)TeX"),
        (r"The XE{\slc M}{\TeX} project", "The XEMTeX project"),
        (r"Origination\/ and {\it Design\/}", "Origination and Design"),
        (r"A {\mtex} for \XyMTeX{} users", "A mtex for XyMTeX users"),
        (r"\unknown{} word", "unknown word"),
        (r"G{\"o}del, {\'e}t\'e, \c{c}a, Stra{\ss}e", "Gödel, été, ça, Straße"),
        (r"50\% of {\$}5", "50% of $5"),
        # Words are read alone, but not inside math, braces or a command's argument.
        (r"Time $O(n \log n)$ sort", "Time O(n log n) sort"),
        (r"{\bf Bold words} and \c c", "Bold words and ç"),
        (r"{{A} and {B}}", "A and B"),
    ],
)
def test_tex_logos_and_commands_become_text_and_no_word_is_lost(tex, text):
    assert decode_latex(tex) == text


def test_every_entry_of_a_real_latex_heavy_file_imports_and_keeps_its_words(db):
    report = run("tugboat_excerpt.bib")
    assert (len(report.created), report.skipped_total) == (18, 0)
    titles = dict(Publication.objects.values_list("citation_key", "title"))
    assert titles["Swanson:TB1-1-7"] == "Publishing & TeX"
    assert titles["Anonymous:TB12-2-119-2"] == "TUG"
    assert titles["Casares:TB23-3-313"] == "MTeX"
    assert titles["Rahtz:TB20-1-20"] == "The TeX Live Guide, 4th edition"
    assert titles["Raman:TB16-3-310"] == "An audio view of (La)TeX documents — part II"
    # The empty title `{}`: the issue it appeared in stands in, for review.
    assert titles["program:TB24-3-306"] == "TUGboat 24(3), 306–310"
    flagged = Publication.objects.filter(needs_review=True)
    assert list(flagged.values_list("citation_key", flat=True)) == [
        "program:TB24-3-306"
    ]
    assert any(
        "program:TB24-3-306: no title; its journal stands in" in w
        for w in report.warnings
    )


def test_entries_without_a_year_or_title_import_as_bibtex_accepts_them(db):
    report = run("xampl_excerpt.bib")
    assert (len(report.created), report.skipped_total) == (4, 0)
    rows = {
        p.citation_key: (p.title, p.year, p.needs_review)
        for p in Publication.objects.all()
    }
    assert rows == {
        "booklet-minimal": ("The Programming of Computer Art", None, False),
        "manual-minimal": ("The Definitive Computer Manual", None, False),
        "misc-minimal": ("This is a minimal MISC entry", None, True),
        "random-note-crossref": (
            "Volume 2 is listed under Knuth <cit.>",
            None,
            True,
        ),
    }
    # A re-import finds the same undated records rather than creating them again.
    again = run("xampl_excerpt.bib")
    assert (len(again.created), len(again.unchanged)) == (0, 4)


# -- private fields, bounds, NUL -------------------------------------------------

PRIVATE = """@article{private,
  title = {Kept Public},
  author = {Zheng, Siyu},
  journal = {Journal of Tests},
  year = 2021,
  abstract = {What the paper finds.},
  keywords = {tests, privacy},
  note = {Extended version},
  file = {:/Users/siyu/Papers/private.pdf:PDF},
  annote = {Reviewer 2 was wrong},
  comment = {ask Mina},
  owner = {siyu},
  groups = {to-read},
  mendeley-tags = {mine},
  timestamp = {2021-03-04},
  date-added = {2021-03-04 10:00:00 +0000},
  bdsk-file-1 = {YnBsaXN0MDDUAQIDBAUGJCVYJHZlcnNpb24=},
  bdsk-url-1 = {https://example.org/paper},
  bdsk-url-2 = {file:///Users/siyu/Papers/private.pdf}
}
"""
PRIVATE_WORDS = (
    "Users",
    "Reviewer",
    "Mina",
    "owner",
    "to-read",
    "mendeley",
    "timestamp",
    "date-added",
    "bdsk-file",
    "YnBsaXN0",
    "file =",
)


def test_an_import_keeps_only_the_public_fields_of_an_entry(db):
    publication_import_bibtex(text=PRIVATE, source="private.bib")
    kept = Publication.objects.get(citation_key="private").bibtex
    assert not [word for word in PRIVATE_WORDS if word in kept]
    for public in (
        "What the paper finds.",
        "tests, privacy",
        "Extended version",
        "https://example.org/paper",
    ):
        assert public in kept


def test_private_fields_are_stored_only_when_asked(db):
    publication_import_bibtex(text=PRIVATE, source="private.bib", keep_private=True)
    assert "Reviewer 2 was wrong" in Publication.objects.get().bibtex


def test_command_keeps_private_fields_only_with_its_flag(db, tmp_path):
    path = tmp_path / "private.bib"
    path.write_text(PRIVATE)
    call_command("import_bibtex", str(path), stdout=io.StringIO())
    assert "annote" not in Publication.objects.get().bibtex
    call_command("import_bibtex", str(path), "--keep-private", stdout=io.StringIO())
    assert "annote" in Publication.objects.get().bibtex


def doubling_macros(count: int) -> str:
    """`@string` macros each four times the one before: 8 × 4**n characters."""
    text, previous = '@string{m0 = "xxxxxxxx"}\n', "m0"
    for n in range(1, count + 1):
        text += f"@string{{m{n} = {previous} # {previous} # {previous} # {previous}}}\n"
        previous = f"m{n}"
    return text


def test_macros_past_the_field_limit_are_one_error_and_the_rest_import(db):
    text = doubling_macros(12) + (
        "@misc{huge, title = m12, year = 2020}\n"
        "@misc{fine, title = {Fine} # m2, year = 2021}\n"
    )
    started = time.perf_counter()
    with pytest.raises(BibtexImportError) as error:
        publication_import_bibtex(text=text, source="bomb.bib")
    assert "huge: field `title` uses macro `m7`, which is longer than 100,000" in str(
        error.value
    )
    assert Publication.objects.count() == 0
    report = publication_import_bibtex(text=text, source="bomb.bib", skip_invalid=True)
    assert [p.key for p in report.invalid] == ["huge"]
    assert len(Publication.objects.get(citation_key="fine").bibtex) < 1000
    assert time.perf_counter() - started < 2


def test_expansion_past_the_file_limit_stops_at_the_entry_that_passes_it(db):
    # 400 entries of 32,768 characters each: 13 million in all, past 10 million.
    text = doubling_macros(6) + "".join(
        f"@misc{{e{i}, title = m6, year = 2020}}\n" for i in range(400)
    )
    parsed = parse_bibtex(text)
    assert len(parsed.entries) == 303  # the macros count too
    first = parsed.errors[0]
    assert (first.key, len(parsed.errors)) == ("e303", 97)
    assert "expand to more than 10,000,000 characters" in first.reason


def test_a_long_crossref_chain_is_reported_not_a_server_error(db):
    text = (
        "".join(
            f"@misc{{c{i}, title = {{Part {i}}}, crossref = {{c{i + 1}}}}}\n"
            for i in range(1000)
        )
        + "@misc{c1000, title = {The End}, year = 2020, publisher = {Press}}\n"
    )
    report = publication_import_bibtex(text=text, source="chain.bib", skip_invalid=True)
    assert len(report.invalid) == 990
    assert report.invalid[0].reason == "its crossref chain is over 10 links"
    assert Publication.objects.get(citation_key="c990").year == 2020


def test_an_entry_holding_a_nul_is_skipped_naming_its_field(db):
    text = (
        "@misc{nul, title = {Bad\x00Title}, year = 2020}\n"
        "@misc{fine, title = {Fine}, year = 2021}\n"
    )
    with pytest.raises(BibtexImportError, match=r"nul: field `title` holds a NUL"):
        publication_import_bibtex(text=text, source="nul.bib")
    report = publication_import_bibtex(text=text, source="nul.bib", skip_invalid=True)
    assert [p.key for p in report.invalid] == ["nul"]
    assert list(Publication.objects.values_list("title", flat=True)) == ["Fine"]
