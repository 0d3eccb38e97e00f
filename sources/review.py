"""The review queue: what differs becomes a candidate; accepting one writes it."""

import hashlib
import json

from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.utils import timezone

from people.models import Education, Experience, Person
from publications.models import Publication
from sources import targets
from sources.models import Candidate, Snapshot, Target
from sources.targets import WriteError

MODELS = {
    Target.PUBLICATION: Publication,
    Target.PERSON: Person,
    Target.EDUCATION: Education,
    Target.EXPERIENCE: Experience,
}


def field_diff(
    target: str,
    obj: models.Model,
    proposed: dict,
    source: str,
    current: dict | None = None,
) -> list[dict]:
    """Per field that differs: current, proposed, and whether it was edited by hand.

    A field counts as edited by hand when it no longer holds what this source last
    gave it, or, never given by this source, it holds a value of its own."""
    snapshot = Snapshot.objects.filter(
        target=target, object_id=obj.pk, source=source
    ).first()
    base = snapshot.values if snapshot else {}
    current = current or targets.current_values(target, obj)
    diff = []
    for field, new in proposed.items():
        if field not in current or new in (None, "", []):
            continue
        old = current[field]
        if field == "topics":
            new = sorted(set(old) | set(new))
        if old == new:
            continue
        edited = base[field] != old if field in base else old not in (None, "", [])
        diff.append({"field": field, "current": old, "proposed": new, "edited": edited})
    return diff


def remember(
    target: str,
    obj: models.Model,
    proposed: dict,
    source: str,
    current: dict | None = None,
) -> None:
    """Note what the source gave a record, field by field as it now stands."""
    current = current or targets.current_values(target, obj)
    snapshot, _ = Snapshot.objects.get_or_create(
        target=target, object_id=obj.pk, source=source
    )
    for field, value in proposed.items():
        if field in current and current[field] == value:
            snapshot.values[field] = value
    snapshot.save()


def propose(
    *,
    kind: str,
    target: str,
    person: Person | None,
    obj: models.Model | None,
    source: str,
    source_id: str,
    label: str,
    values: dict,
    diff: list[dict] | None = None,
    note: str = "",
) -> Candidate | None:
    """Queue a candidate unless the same proposal was made before (whatever became
    of it); return it, or None when it is not new."""
    # A new record is the same proposal whatever its values (they follow the
    # source until someone decides); a change is the same when it proposes the same.
    proposal = None if kind == Candidate.Kind.CREATE else diff
    key = json.dumps(
        [
            target,
            kind,
            person.pk if person else None,
            obj.pk if obj else None,
            source,
            source_id or label,
            proposal,
        ],
        sort_keys=True,
        default=str,
    )
    fingerprint = hashlib.sha256(key.encode()).hexdigest()
    known = Candidate.objects.filter(fingerprint=fingerprint).first()
    if known is not None:
        if known.status == Candidate.Status.PENDING and known.values != values:
            known.values = values
            known.save(update_fields=["values"])
        return None
    return Candidate.objects.create(
        kind=kind,
        target=target,
        person=person,
        object_id=obj.pk if obj else None,
        source=source,
        source_id=source_id,
        label=label[:500],
        values=values,
        diff=diff or [],
        note=note[:500],
        fingerprint=fingerprint,
    )


def can_review(user, candidate: Candidate) -> bool:
    """Staff with the change permission decide on any candidate."""
    return user.is_active and user.has_perm("sources.change_candidate")


def write_permission(candidate: Candidate) -> str:
    """The permission the write a candidate proposes needs in the admin."""
    change = candidate.object_id is not None
    name = {
        Target.PUBLICATION: "publications.{}_publication",
        Target.PERSON: "people.change_person",
        Target.EDUCATION: "people.{}_education",
        Target.EXPERIENCE: "people.{}_experience",
        Target.LINK: "people.add_personlink",
        # A research interest is a field of the member's own form.
        Target.INTEREST: "people.change_person",
    }[candidate.target]
    return name.format("change" if change else "add")


def can_accept(user, candidate: Candidate) -> bool:
    """A reviewer accepts only what they could have written by hand."""
    return can_review(user, candidate) and user.has_perm(write_permission(candidate))


def accept(candidates: list[Candidate], *, user) -> int:
    """Write every candidate, all or none; return how many were written."""
    for candidate in candidates:
        if not can_accept(user, candidate):
            raise PermissionDenied(f"You may not write “{candidate.label}”.")
    return _decide(candidates, user, accept=True)


def reject(candidates: list[Candidate], *, user) -> int:
    """Mark candidates rejected: the same proposal does not come back."""
    return _decide(candidates, user, accept=False)


def _decide(candidates: list[Candidate], user, *, accept: bool) -> int:
    for candidate in candidates:
        if not can_review(user, candidate):
            raise PermissionDenied(f"You may not review “{candidate.label}”.")
    with transaction.atomic():
        done = 0
        for candidate in candidates:
            # Lock and re-read: a decision made meanwhile in another tab stands.
            candidate = Candidate.objects.select_for_update().get(pk=candidate.pk)
            if candidate.status != Candidate.Status.PENDING:
                continue
            if accept:
                apply(candidate)
            candidate.status = (
                Candidate.Status.ACCEPTED if accept else Candidate.Status.REJECTED
            )
            candidate.decided_at = timezone.now()
            candidate.decided_by = user if user.is_authenticated else None
            candidate.save(update_fields=["status", "decided_at", "decided_by"])
            done += 1
    return done


def apply(candidate: Candidate) -> models.Model:
    """Write what a candidate proposes (create, or the fields of its diff)."""
    target = candidate.target
    model = MODELS.get(target)
    obj = None
    if candidate.object_id is not None:
        obj = model.objects.filter(pk=candidate.object_id).first()
        if obj is None:
            raise WriteError(f"{candidate.label}: the record was deleted meanwhile")
    fields = [d["field"] for d in candidate.diff] if obj is not None else None
    values = {**candidate.values, **{d["field"]: d["proposed"] for d in candidate.diff}}
    written = targets.write(
        target,
        values,
        person=candidate.person,
        obj=obj,
        fields=fields,
        source=candidate.source,
        source_id=candidate.source_id,
    )
    if model is not None:
        remember(target, written, values, candidate.source)
    return written
