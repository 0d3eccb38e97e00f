import pytest

from core.lib.identifiers import (
    normalise_arxiv_id,
    normalise_doi,
    normalise_openalex_id,
    normalise_orcid,
    orcid_checksum_ok,
)


@pytest.mark.parametrize(
    "orcid", ["0000-0002-1825-0097", "0000-0001-5109-3700", "0000-0002-1694-233X"]
)
def test_checksum_accepts_orcids_of_the_orcid_documentation(orcid):
    assert orcid_checksum_ok(orcid)


@pytest.mark.parametrize("orcid", ["0000-0002-1825-0098", "0000-0002-1694-2330", "1"])
def test_checksum_rejects_a_wrong_check_digit(orcid):
    assert not orcid_checksum_ok(orcid)


@pytest.mark.parametrize(
    "text",
    [
        "0000-0002-1825-0097",
        "https://orcid.org/0000-0002-1825-0097",
        "http://www.orcid.org/0000-0002-1825-0097/",
        "orcid.org/0000000218250097",
        " 0000000218250097 ",
    ],
)
def test_orcid_spellings_normalise_to_the_dashed_form(text):
    assert normalise_orcid(text) == "0000-0002-1825-0097"


def test_orcid_check_x_is_upper_case():
    assert normalise_orcid("0000-0002-1694-233x") == "0000-0002-1694-233X"


@pytest.mark.parametrize(
    "text, error",
    [
        ("0000-0002-1825-0098", "check digit"),
        ("0000-0002-1825", "16 digits"),
        ("https://example.org/0000-0002-1825-0097", "16 digits"),
    ],
)
def test_orcid_errors_say_what_is_wrong(text, error):
    with pytest.raises(ValueError, match=error):
        normalise_orcid(text)


@pytest.mark.parametrize(
    "text",
    [
        "10.1145/3531146.3533088",
        "https://doi.org/10.1145/3531146.3533088",
        "http://dx.doi.org/10.1145/3531146.3533088",
        "doi:10.1145/3531146.3533088",
        "DOI: 10.1145/3531146.3533088",
    ],
)
def test_doi_spellings_lose_their_prefix(text):
    assert normalise_doi(text) == "10.1145/3531146.3533088"


def test_doi_is_lower_case():
    assert normalise_doi("10.48550/arXiv.2106.09685") == "10.48550/arxiv.2106.09685"


@pytest.mark.parametrize("text", ["N/A", "https://doi.org/", "11.1000/x", "10.1/x"])
def test_doi_rejects_what_is_not_one(text):
    with pytest.raises(ValueError, match="not a DOI"):
        normalise_doi(text)


@pytest.mark.parametrize(
    "text, kind, expected",
    [
        ("A5023888391", "", "A5023888391"),
        ("https://openalex.org/A5023888391", "A", "A5023888391"),
        ("https://api.openalex.org/authors/a5023888391", "A", "A5023888391"),
        ("https://openalex.org/works/W2741809807", "W", "W2741809807"),
    ],
)
def test_openalex_ids_lose_their_url(text, kind, expected):
    assert normalise_openalex_id(text, kind) == expected


@pytest.mark.parametrize(
    "text, kind", [("W2741809807", "A"), ("5023888391", ""), ("A50x", "")]
)
def test_openalex_rejects_another_kind_or_shape(text, kind):
    with pytest.raises(ValueError, match="not an OpenAlex id"):
        normalise_openalex_id(text, kind)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2106.09685", "2106.09685"),
        ("arXiv:2106.09685v2", "2106.09685"),
        ("https://arxiv.org/abs/2106.09685v1", "2106.09685"),
        ("https://arxiv.org/pdf/2106.09685.pdf", "2106.09685"),
        ("hep-th/9901001", "hep-th/9901001"),
        ("math.GT/0309136", "math.GT/0309136"),
    ],
)
def test_arxiv_ids_lose_prefix_and_version(text, expected):
    assert normalise_arxiv_id(text) == expected


@pytest.mark.parametrize("text", ["2106", "arXiv:", "10.1145/1"])
def test_arxiv_rejects_what_is_not_one(text):
    with pytest.raises(ValueError, match="not an arXiv id"):
        normalise_arxiv_id(text)
