"""Identifiers of people and works elsewhere (ORCID, DOI, OpenAlex, arXiv).

Each `normalise_*` takes any spelling people paste (a URL, a prefix, other case)
and returns the one form we store, or raises ValueError saying what is wrong; the
model fields of `core.identifiers` apply them on every clean and save.
"""

import re

_ORCID = re.compile(r"^(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dX])$")
_ORCID_PREFIX = re.compile(r"^(?:https?://)?(?:www\.)?orcid\.org/", re.I)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_DOI_PREFIX = re.compile(r"^(?:(?:https?://)?(?:dx\.)?doi\.org/|doi:\s*)", re.I)
_OPENALEX = re.compile(r"^([AWISPFCT])(\d+)$")
_OPENALEX_PREFIX = re.compile(
    r"^(?:https?://)?(?:api\.)?openalex\.org/(?:(?:authors|works|[a-z]+)/)?", re.I
)
# New style (since 2007) 2106.09685, old style hep-th/9901001 or math.GT/0309136; a
# version suffix names a revision, not the work, and is dropped.
_ARXIV = re.compile(
    r"^(\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$", re.I
)
_ARXIV_PREFIX = re.compile(
    r"^(?:(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/|arxiv:\s*)", re.I
)


def orcid_checksum_ok(orcid: str) -> bool:
    """Whether the last character of an ORCID iD is its ISO 7064 MOD 11-2 check."""
    digits = orcid.replace("-", "").upper()
    if not re.fullmatch(r"\d{15}[\dX]", digits):
        return False
    total = 0
    for digit in digits[:-1]:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    return digits[-1] == ("X" if check == 10 else str(check))


def normalise_orcid(value: str) -> str:
    """Return an ORCID iD as 0000-0002-1825-0097; raise ValueError if it is none."""
    text = _ORCID_PREFIX.sub("", value.strip()).rstrip("/")
    match = _ORCID.match(text.upper())
    if not match:
        raise ValueError(
            f"{value!r} is not an ORCID iD (16 digits, the last may be X, "
            "as in 0000-0002-1825-0097)."
        )
    orcid = "-".join(match.groups())
    if not orcid_checksum_ok(orcid):
        raise ValueError(f"{value!r} is not an ORCID iD: its check digit is wrong.")
    return orcid


def normalise_doi(value: str) -> str:
    """Return a DOI in lower case without resolver or doi: prefix (10.1145/…)."""
    doi = _DOI_PREFIX.sub("", value.strip()).strip().lower()
    if not _DOI.match(doi):
        raise ValueError(f"{value!r} is not a DOI (10.<registrant>/<suffix>).")
    return doi


def normalise_openalex_id(value: str, kind: str = "") -> str:
    """Return an OpenAlex id as A5023888391 (W… for works); `kind` requires a letter."""
    text = _OPENALEX_PREFIX.sub("", value.strip()).rstrip("/").upper()
    match = _OPENALEX.match(text)
    if not match or (kind and match.group(1) != kind):
        expected = f"{kind}5023888391" if kind else "A5023888391 or W2741809807"
        raise ValueError(f"{value!r} is not an OpenAlex id such as {expected}.")
    return text


def normalise_arxiv_id(value: str) -> str:
    """Return an arXiv id without prefix, URL or version (2106.09685)."""
    text = _ARXIV_PREFIX.sub("", value.strip()).rstrip("/").removesuffix(".pdf")
    match = _ARXIV.match(text)
    if not match:
        raise ValueError(
            f"{value!r} is not an arXiv id (2106.09685 or hep-th/9901001)."
        )
    return match.group(1)


def orcid_url(orcid: str) -> str:
    return f"https://orcid.org/{orcid}"


def doi_url(doi: str) -> str:
    return f"https://doi.org/{doi}"


def openalex_url(openalex_id: str) -> str:
    return f"https://openalex.org/{openalex_id}"


def arxiv_url(arxiv_id: str) -> str:
    return f"https://arxiv.org/abs/{arxiv_id}"
