# The Celery app is loaded with Django, so that tasks bind to it in every process.
from directory.celery import app as celery_app

__all__ = ("celery_app",)
