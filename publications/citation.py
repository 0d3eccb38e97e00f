"""Formatted citations: an author-year (APA-like) reference for a publication."""

from bibtexparser.middlewares.names import (
    InvalidNameError,
    parse_single_name_into_parts,
)

# APA lists up to 20 authors; beyond that the first 19, an ellipsis and the last.
APA_MAX_AUTHORS = 20


def apa_name(name: str) -> str:
    """A printed name as "Family, I. I.": "Chi-Min Chan" becomes "Chan, C.-M."."""
    try:
        parts = parse_single_name_into_parts(name.strip())
    except InvalidNameError:
        return name.strip()
    if not parts.first:
        # One word (a mononym, a name in a script without initials): keep it whole.
        return " ".join([*parts.von, *parts.last, *parts.jr]) or name.strip()
    initials = " ".join(_initials(given) for given in parts.first)
    family = " ".join([*parts.von, *parts.last])
    suffix = f", {' '.join(parts.jr)}" if parts.jr else ""
    return f"{family}, {initials}{suffix}"


def _initials(given: str) -> str:
    # Hyphenated given names keep the hyphen (Chi-Min: C.-M.); initials already
    # written run together keep every letter (W.H.: W. H.).
    pieces = []
    for piece in given.split("-"):
        letters = [p for p in piece.split(".") if p] if "." in piece else [piece]
        pieces.append(" ".join(f"{p[0]}." for p in letters if p))
    return "-".join(p for p in pieces if p)


def apa_authors(publication) -> str:
    """The author list in APA form, incomplete lists cut with "et al.".

    Authors whose place in the list no source gives are named in a bracketed note
    after the others: listing them would put them in an order nobody stated. APA
    has no mark for equal contribution, so co-first authors carry none.
    """
    names = [apa_name(a.name) for a in publication.ordered_authors]
    unplaced = "; ".join(apa_name(a.name) for a in publication.unplaced_authors)
    if not names:
        return f"[Authors include {unplaced}; order not given]" if unplaced else ""
    if not publication.authors_complete:
        listed = ", ".join(names) + ", et al."
    elif len(names) == 1:
        listed = names[0]
    elif len(names) > APA_MAX_AUTHORS:
        listed = ", ".join(names[: APA_MAX_AUTHORS - 1]) + ", . . . " + names[-1]
    else:
        listed = ", ".join(names[:-1]) + ", & " + names[-1]
    return f"{listed} [also {unplaced}; place not given]" if unplaced else listed


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".?!" else text + "."


def _source(publication) -> str:
    """Where it appeared: journal, volume(issue), pages; else venue (Vol., pp.)."""
    venue = publication.cited_venue.strip()
    volume, number = publication.volume.strip(), publication.number.strip()
    pages = publication.pages.strip().replace("--", "–")
    if publication.kind == "journal_article":
        issue = f"{volume}({number})" if volume and number else volume
        return ", ".join(part for part in (venue, issue, pages) if part)
    details = []
    if volume:
        details.append(f"Vol. {volume}")
    if pages:
        details.append(f"{'pp.' if '–' in pages or '-' in pages else 'p.'} {pages}")
    if venue and details:
        return f"{venue} ({', '.join(details)})"
    return venue


def apa(publication) -> str:
    """An APA-like reference: authors (year). Title. Venue, volume(number), pages."""
    authors = apa_authors(publication)
    if publication.status == "accepted":
        when = "(in press)"
    else:
        year = publication.cited_year
        when = f"({'n.d.' if year is None else year})"
    title = publication.title.strip()
    if publication.working_title:
        title += " [Working title]"
    if publication.under_review:
        note = publication.status_note  # "Under review at ICLR 2026"
        title += f" [Manuscript {note[:1].lower()}{note[1:]}]"
    parts = [f"{authors} {when}." if authors else f"{when}.", _sentence(title)]
    source = _source(publication)
    if source:
        parts.append(_sentence(source))
    # APA prints one source: where the sources disagree, it names them all instead.
    if publication.venue_conflict_note:
        parts.append(f"[{publication.venue_conflict_note}].")
    if publication.doi:
        parts.append(f"https://doi.org/{publication.doi}")
    elif publication.arxiv_id:
        parts.append(f"https://arxiv.org/abs/{publication.arxiv_id}")
    return " ".join(parts)
