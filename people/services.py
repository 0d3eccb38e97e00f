"""The people app's public entry: what other apps may call of it.

Other apps read members through `people.models` (and nest them in their API with
`people.api.serializers`); anything else they need of this app is offered here.
"""

from django.db import transaction
from django.utils import timezone

from people.models import Person, PersonQuerySet
from people.similarity import rebuild_similar
from search.indexing import schedule

__all__ = ["person_set_status", "rebuild_similar"]


@transaction.atomic
def person_set_status(*, people: PersonQuerySet, status: Person.Status) -> int:
    """Mark these members current or alumni and re-index them; return how many."""
    ids = list(people.values_list("pk", flat=True))
    updated = Person.objects.filter(pk__in=ids).update(
        status=status, updated_at=timezone.now()
    )
    # An update sends no signal: their documents and the similar lists naming
    # them (which list current members only) follow from here.
    schedule("person", ids)
    return updated
