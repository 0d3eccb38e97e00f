"""Read lab files: YAML sections merged by slug, and the format's values parsed."""

import datetime
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from core.lib.dates import parse_partial

SECTIONS = ("topics", "organizations", "venues", "people", "publications", "events")
# The group the directory is about: one mapping, not a list, read as one record.
LAB = "lab"

Records = dict[str, dict[str, dict]]
Sources = dict[tuple[str, str], Path]


class LabFileError(Exception):
    """A lab file that cannot be loaded; the message says which file and record."""


def read_lab_files(paths: Iterable[Path]) -> Records:
    """Merge the sections of many YAML files into one record per slug per section."""
    return read_with_sources(paths)[0]


def read_with_sources(paths: Iterable[Path]) -> tuple[Records, Sources]:
    """Return the merged records and the file each record was first read from."""
    merged: Records = {name: {} for name in (*SECTIONS, LAB)}
    sources: Sources = {}
    for path in sorted(paths):
        for section, record in _records(path):
            slug = record["slug"]
            known = merged[section].get(slug)
            if known is not None and known != record:
                raise LabFileError(
                    f"{path}: {section} {slug!r} is defined differently elsewhere"
                )
            merged[section][slug] = record
            sources.setdefault((section, slug), path)
    return merged, sources


def _records(path: Path) -> Iterable[tuple[str, dict]]:
    """Yield each (section, record) of one file, checking the file's shape."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise LabFileError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise LabFileError(f"{path}: the top level must be a mapping of sections")
    # A member's file names its one record `person:`; it is a record of `people`.
    if "person" in data:
        data.setdefault("people", []).append(data.pop("person"))
    if LAB in data:
        lab = data.pop(LAB)
        if not isinstance(lab, dict):
            raise LabFileError(f"{path}: lab must be a mapping of its fields")
        yield LAB, {**lab, "slug": LAB}
    unknown = set(data) - set(SECTIONS)
    if unknown:
        raise LabFileError(f"{path}: unknown sections {sorted(unknown)}")
    for section, records in data.items():
        if not isinstance(records, list):
            raise LabFileError(f"{path}: section {section!r} must be a list")
        for record in records:
            if not isinstance(record, dict) or not isinstance(record.get("slug"), str):
                raise LabFileError(f"{path}: every {section} record needs a slug")
            if section == "events":
                _one_publication_as_list(path, record)
            yield section, record


def _one_publication_as_list(path: Path, record: dict) -> None:
    """Read an event's `publication: slug`, the key before `publications`, as a list."""
    if "publication" not in record:
        return
    if "publications" in record:
        raise LabFileError(
            f"{path}: event {record['slug']!r} gives both publication and publications"
        )
    one = record.pop("publication")
    record["publications"] = [one] if one else []


def mappings(record: dict, key: str) -> list[dict]:
    """Return the list of mappings under `key`: a record's related rows."""
    rows = record.get(key) or []
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise LabFileError(f"{key}: must be a list of mappings")
    return rows


def slugs(record: dict, key: str, kind: str) -> list[str]:
    """Return the list of slugs under `key`, each naming a `kind`."""
    names = record.get(key) or []
    if not isinstance(names, list):
        raise LabFileError(f"{key}: must be a list of {kind} slugs")
    return names


def lines(record: dict, key: str) -> str:
    """Return a list of lines as the one text the model keeps."""
    items = record.get(key) or []
    if not isinstance(items, list):
        raise LabFileError(f"{key}: must be a list of lines")
    return "\n".join(str(line) for line in items)


def period(record: dict, owner: str) -> dict[str, Any]:
    """Return start, end and ongoing as the fields of a DateRange."""
    values: dict[str, Any] = {"is_ongoing": bool(record.get("ongoing", False))}
    for key in ("start", "end"):
        raw = record.get(key)
        if raw in (None, ""):
            values[f"{key}_date"] = None
            continue
        try:
            date, precision = parse_partial(raw)
        except ValueError as exc:
            raise LabFileError(f"{owner}: {key}: {exc}") from None
        values[f"{key}_date"] = date
        values[f"{key}_precision"] = precision
    return values


def timestamp(key: str, value: Any) -> datetime.datetime | None:
    """Return a date and time with its offset; YAML may have parsed it already."""
    if value in (None, ""):
        return None
    try:
        stamp = (
            value
            if isinstance(value, datetime.datetime)
            else datetime.datetime.fromisoformat(str(value))
        )
    except ValueError:
        stamp = None
    if stamp is None or stamp.utcoffset() is None:
        raise LabFileError(
            f"{key}: {value!r} is not a date and time with its offset, "
            "such as 2025-11-30T08:15:00+00:00"
        )
    return stamp


def event_dates(record: dict) -> dict[str, Any]:
    """Return date and end_date as an event's fields; the date is required."""
    if not record.get("date"):
        raise LabFileError("date: this field is required")
    date, precision = _partial(record, "date")
    end = _partial(record, "end_date")[0] if record.get("end_date") else None
    return {"date": date, "date_precision": precision, "end_date": end}


def _partial(record: dict, key: str) -> tuple:
    try:
        return parse_partial(record[key])
    except ValueError as exc:
        raise LabFileError(f"{key}: {exc}") from None
