from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from core.models import Lab


def lab(request: HttpRequest) -> dict:
    """The group the directory is about (falsy when no record names one)."""
    # Lazy: pages that never name it (the admin's) do not read it.
    return {"lab": SimpleLazyObject(Lab.objects.current)}
