"""ORCID v3.0 public records, as JSON or as XML, read into plain records."""

import datetime
import json

from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException

from sources.identifiers import arxiv_id_in, clean_doi, clean_orcid
from sources.records import (
    AffiliationRecord,
    AuthorRecord,
    LinkRecord,
    PartialDate,
    PersonRecord,
    WorkRecord,
    check_storable,
)


class WrongKind(ValueError):
    """The document parses, but it is not an ORCID record."""


# ORCID's work types (https://info.orcid.org/ufaqs/what-work-types-does-orcid-support/)
_KINDS = {
    "journal-article": "journal_article",
    "conference-paper": "conference_paper",
    "conference-proceedings": "conference_paper",
    "preprint": "preprint",
    "report": "technical_report",
    "working-paper": "technical_report",
    "software": "software",
    "dissertation-thesis": "thesis",
    "dissertation": "thesis",
}
_VENUE_KINDS = {
    "journal-article": "journal",
    "conference-paper": "conference",
    "preprint": "preprint",
}


def parse_record_text(text: str | bytes) -> PersonRecord:
    """A record as ORCID's public API serves it, in either form: JSON or XML."""
    if isinstance(text, bytes):
        stripped = text.lstrip()[:1]
        is_xml = stripped == b"<"
    else:
        is_xml = text.lstrip()[:1] == "<"
    if is_xml:
        return parse_record(record_from_xml(text))
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not JSON or XML ({exc})") from None
    return parse_record(document)


def parse_record(record: dict) -> PersonRecord:
    """A v3.0 record in its JSON shape (`/{orcid}/record`)."""
    if not isinstance(record, dict) or "orcid-identifier" not in record:
        raise WrongKind("not an ORCID record (it has no orcid-identifier)")
    person = record.get("person") or {}
    name = person.get("name") or {}
    result = PersonRecord(
        source="orcid",
        orcid=clean_orcid(_get(record, "orcid-identifier", "path")),
        given_name=_value(name.get("given-names")),
        family_name=_value(name.get("family-name")),
        credit_name=_value(name.get("credit-name")),
    )
    result.other_names = [
        o["content"]
        for o in _list(person, "other-names", "other-name")
        if o.get("content")
    ]
    result.keywords = [
        k["content"] for k in _list(person, "keywords", "keyword") if k.get("content")
    ]
    result.links = [
        LinkRecord(u.get("url-name") or "", _value(u.get("url")))
        for u in _list(person, "researcher-urls", "researcher-url")
        if _value(u.get("url"))
    ]
    activities = record.get("activities-summary") or {}
    for section, summary, target in (
        ("employments", "employment-summary", result.employments),
        ("educations", "education-summary", result.educations),
    ):
        for group in _list(activities, section, "affiliation-group"):
            for item in group.get("summaries") or []:
                if item.get(summary):
                    target.append(_affiliation(item[summary], result.warnings))
    for group in _list(activities, "works", "group"):
        summaries = group.get("work-summary") or []
        if summaries:
            # A group is one work as several sources list it; the first is the
            # one the member prefers.
            try:
                work = parse_work(summaries[0], result.warnings)
                check_storable(work)
            except ValueError as exc:
                put_code = summaries[0].get("put-code")
                result.errors.append(f"ORCID work {put_code}: {exc}")
            else:
                result.works.append(work)
    return result


def parse_work(work: dict, warnings: list[str]) -> WorkRecord:
    """A work summary, or a full work (which also lists contributors)."""
    put_code = work.get("put-code")
    ids: dict[str, str] = {}
    for external in _list(work, "external-ids", "external-id"):
        if external.get("external-id-relationship") not in (None, "self"):
            continue
        id_type = (external.get("external-id-type") or "").lower()
        value = (external.get("external-id-value") or "").strip()
        if id_type and value:
            ids.setdefault(id_type, value)
    doi = clean_doi(ids.pop("doi", ""))
    arxiv = ids.pop("arxiv", "")
    work_type = work.get("type") or ""
    title = _value((work.get("title") or {}).get("title"))
    return WorkRecord(
        source="orcid",
        source_id=str(put_code or ""),
        title=" ".join(title.split()),
        kind=_KINDS.get(work_type, "other"),
        date=_date(work.get("publication-date"), warnings, f"work {title!r}"),
        authors=[
            AuthorRecord(
                name=_value(c.get("credit-name")),
                orcid=clean_orcid(_get(c, "contributor-orcid", "path")),
            )
            for c in _list(work, "contributors", "contributor")
            if _value(c.get("credit-name"))
            and _get(c, "contributor-attributes", "contributor-role") in ("", "author")
        ],
        doi=doi,
        arxiv_id=arxiv_id_in(arxiv),
        put_code=int(put_code) if put_code is not None else None,
        venue=" ".join(_value(work.get("journal-title")).split()),
        venue_kind=_VENUE_KINDS.get(work_type, "other")
        if work.get("journal-title")
        else "",
        other_ids=ids,
    )


def _affiliation(summary: dict, warnings: list[str]) -> AffiliationRecord:
    organization = summary.get("organization") or {}
    address = organization.get("address") or {}
    label = organization.get("name") or "an affiliation"
    return AffiliationRecord(
        put_code=summary.get("put-code"),
        organization=" ".join((organization.get("name") or "").split()),
        department=summary.get("department-name") or "",
        role=summary.get("role-title") or "",
        start=_date(summary.get("start-date"), warnings, f"{label} (start)"),
        end=_date(summary.get("end-date"), warnings, f"{label} (end)"),
        location=", ".join(
            p
            for p in (
                address.get("city"),
                address.get("region"),
                address.get("country"),
            )
            if p
        ),
    )


def _date(value: dict | None, warnings: list[str], what: str) -> PartialDate | None:
    """A fuzzy date at the precision given, or coarser where it cannot exist."""
    if not value:
        return None
    parts = []
    for key in ("year", "month", "day"):
        text = _value(value.get(key))
        if not text:
            break
        try:
            parts.append(int(text))
        except ValueError:
            warnings.append(f"{what}: {key} {text!r} is not a number; ignored")
            break
    if not parts:
        return None
    # Drop what cannot exist (February 29 of 2023, month 13) one part at a time.
    while len(parts) > 1:
        try:
            datetime.date(parts[0], parts[1], parts[2] if len(parts) > 2 else 1)
            break
        except ValueError:
            shown = "-".join(f"{p:02d}" for p in parts)
            parts.pop()
            kept = "month" if len(parts) == 2 else "year"
            warnings.append(f"{what}: {shown} is not a date; kept at {kept} precision")
    return PartialDate(*parts)


def _value(node) -> str:
    """The text of ORCID's {"value": …} wrappers (plain strings pass through)."""
    if isinstance(node, dict):
        node = node.get("value")
    return str(node).strip() if node not in (None, "") else ""


def _get(node: dict, *keys: str) -> str:
    for key in keys:
        node = (node or {}).get(key) if isinstance(node, dict) else None
    return "" if node is None else str(node)


def _list(node: dict, outer: str, inner: str) -> list[dict]:
    items = (node.get(outer) or {}).get(inner) or []
    return [i for i in items if isinstance(i, dict)]


# The XML form: the same elements, namespaced; turned into the JSON shape above.
_NS = {
    "common": "http://www.orcid.org/ns/common",
    "person": "http://www.orcid.org/ns/person",
    "personal-details": "http://www.orcid.org/ns/personal-details",
    "other-name": "http://www.orcid.org/ns/other-name",
    "keyword": "http://www.orcid.org/ns/keyword",
    "researcher-url": "http://www.orcid.org/ns/researcher-url",
    "activities": "http://www.orcid.org/ns/activities",
    "employment": "http://www.orcid.org/ns/employment",
    "education": "http://www.orcid.org/ns/education",
    "work": "http://www.orcid.org/ns/work",
}
_RECORD = "{http://www.orcid.org/ns/record}record"


def record_from_xml(text: str | bytes) -> dict:
    """The JSON shape of a v3.0 record served as XML (parsed with defusedxml)."""
    try:
        root = ElementTree.fromstring(text)
    except (ElementTree.ParseError, DefusedXmlException) as exc:
        raise ValueError(f"not well-formed XML ({exc})") from None
    if root.tag != _RECORD:
        raise WrongKind(f"not an ORCID record (the root element is {root.tag})")
    person = root.find("person:person", _NS)
    return {
        "orcid-identifier": {
            "path": _xml_text(root, "common:orcid-identifier/common:path")
        },
        "person": _xml_person(person) if person is not None else {},
        "activities-summary": _xml_activities(
            root.find("activities:activities-summary", _NS)
        ),
    }


def _xml_text(node, path: str) -> str | None:
    found = node.find(path, _NS) if node is not None else None
    return found.text.strip() if found is not None and found.text else None


def _xml_wrapped(node, path: str) -> dict | None:
    value = _xml_text(node, path)
    return {"value": value} if value is not None else None


def _xml_date(node, path: str) -> dict | None:
    found = node.find(path, _NS)
    if found is None:
        return None
    return {k: _xml_wrapped(found, f"common:{k}") for k in ("year", "month", "day")}


def _xml_put_code(node) -> int | None:
    return int(node.get("put-code")) if node.get("put-code") else None


def _xml_person(person) -> dict:
    return {
        "name": {
            k: _xml_wrapped(person, f"person:name/personal-details:{k}")
            for k in ("given-names", "family-name", "credit-name")
        },
        "other-names": {
            "other-name": [
                {"content": _xml_text(o, "other-name:content")}
                for o in person.findall(
                    "other-name:other-names/other-name:other-name", _NS
                )
            ]
        },
        "keywords": {
            "keyword": [
                {"content": _xml_text(k, "keyword:content")}
                for k in person.findall("keyword:keywords/keyword:keyword", _NS)
            ]
        },
        "researcher-urls": {
            "researcher-url": [
                {
                    "url-name": _xml_text(u, "researcher-url:url-name"),
                    "url": _xml_wrapped(u, "researcher-url:url"),
                }
                for u in person.findall(
                    "researcher-url:researcher-urls/researcher-url:researcher-url",
                    _NS,
                )
            ]
        },
    }


def _xml_activities(activities) -> dict:
    return {
        "employments": {
            "affiliation-group": _xml_affiliation_groups(
                activities, "employments", "employment:employment-summary"
            )
        },
        "educations": {
            "affiliation-group": _xml_affiliation_groups(
                activities, "educations", "education:education-summary"
            )
        },
        "works": {
            "group": [
                {
                    "work-summary": [
                        _xml_work(w) for w in g.findall("work:work-summary", _NS)
                    ]
                }
                for g in activities.findall("activities:works/activities:group", _NS)
            ]
            if activities is not None
            else []
        },
    }


def _xml_affiliation_groups(activities, section: str, summary: str) -> list[dict]:
    if activities is None:
        return []
    return [
        {"summaries": [{summary.split(":")[1]: _xml_affiliation(s)}]}
        for s in activities.findall(
            f"activities:{section}/activities:affiliation-group/{summary}", _NS
        )
    ]


def _xml_affiliation(node) -> dict:
    return {
        "put-code": _xml_put_code(node),
        "department-name": _xml_text(node, "common:department-name"),
        "role-title": _xml_text(node, "common:role-title"),
        "start-date": _xml_date(node, "common:start-date"),
        "end-date": _xml_date(node, "common:end-date"),
        "organization": {
            "name": _xml_text(node, "common:organization/common:name"),
            "address": {
                k: _xml_text(node, f"common:organization/common:address/common:{k}")
                for k in ("city", "region", "country")
            },
        },
    }


def _xml_work(node) -> dict:
    return {
        "put-code": _xml_put_code(node),
        "title": {"title": _xml_wrapped(node, "work:title/common:title")},
        "type": _xml_text(node, "work:type"),
        "publication-date": _xml_date(node, "common:publication-date"),
        "journal-title": _xml_wrapped(node, "work:journal-title"),
        "external-ids": _xml_external_ids(node),
        "contributors": {
            "contributor": [
                _xml_contributor(c)
                for c in node.findall("work:contributors/work:contributor", _NS)
            ]
        },
    }


def _xml_external_ids(node) -> dict:
    return {
        "external-id": [
            {
                k: _xml_text(e, f"common:{k}")
                for k in (
                    "external-id-type",
                    "external-id-value",
                    "external-id-relationship",
                )
            }
            for e in node.findall("common:external-ids/common:external-id", _NS)
        ]
    }


def _xml_contributor(node) -> dict:
    return {
        "credit-name": _xml_wrapped(node, "work:credit-name"),
        "contributor-orcid": {
            "path": _xml_text(node, "common:contributor-orcid/common:path")
        },
        "contributor-attributes": {
            "contributor-role": _xml_text(
                node, "work:contributor-attributes/work:contributor-role"
            )
        },
    }
