from django.http import HttpRequest

from core.models import Lab


def lab(request: HttpRequest) -> dict:
    """The group the directory is about (None when no record names one)."""
    return {"lab": Lab.objects.current()}
