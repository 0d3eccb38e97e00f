"""The `lab:` mapping of a lab file: the one record of the group the directory is
about. Files that give none leave the record as it is; nothing stands in for it."""

from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError

from core.models import Lab
from core.validation import validation_messages
from labdata.reader import LabFileError

if TYPE_CHECKING:
    from labdata.loader import Stats

# The logo is not a key: an image is uploaded in the admin, where it is checked.
KEYS = ("name", "description", "kind", "address", "url", "email", "logo_alt")


def load_lab(record: dict[str, Any] | None, path: Path | None, stats: "Stats") -> None:
    """Create or update the lab record from the files' `lab:` mapping, if any."""
    if record is None:
        return
    where = f"{path}: lab" if path else "lab"
    unknown = set(record) - {*KEYS, "slug"}
    if unknown:
        raise LabFileError(
            f"{where}: unknown keys {sorted(unknown)} (known: {', '.join(KEYS)})"
        )
    if not isinstance(record.get("name"), str) or not record["name"].strip():
        raise LabFileError(f"{where}: a name is required")
    lab = Lab.objects.first() or Lab()
    created = lab._state.adding
    values = {key: _text(where, key, record.get(key)) for key in KEYS}
    values["kind"] = values["kind"] or Lab.Kind.GROUP
    if not created and all(getattr(lab, k) == v for k, v in values.items()):
        return
    for key, value in values.items():
        setattr(lab, key, value)
    try:
        lab.full_clean()
    except ValidationError as exc:
        raise LabFileError(f"{where}: {validation_messages(exc)}") from None
    lab.save()
    stats.bump("lab created" if created else "lab updated")


def _text(where: str, key: str, value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LabFileError(f"{where}: {key} must be text, not {type(value).__name__}")
    return value.strip()
