from django.conf import settings
from django.http import HttpRequest


def lab(request: HttpRequest) -> dict:
    return {
        "LAB_NAME": settings.LAB_NAME,
        "LAB_SHORT_NAME": settings.LAB_SHORT_NAME,
        "LAB_DESCRIPTION": settings.LAB_DESCRIPTION,
    }
