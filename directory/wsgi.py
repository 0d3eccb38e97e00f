"""The WSGI application that gunicorn (`make serve`) and other servers load."""

import gc
import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

from core.statement_timeout import limit_statements

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")

application = get_wsgi_application()
limit_statements(settings.STATEMENT_TIMEOUT_MS)


def settle() -> None:
    """Import every view now and hide start-up objects from the garbage collector.

    A response leaves thousands of objects in reference cycles (model instances
    and their prefetched relations point at each other). With the default
    thresholds they were freed in bulk every dozen requests, a pause that showed
    in the 95th percentile. A larger youngest generation with a short second one
    frees them in smaller batches, and `gc.freeze` keeps the start-up objects out
    of every scan (and, before a server forks, in memory pages the workers share).
    """
    get_resolver().url_patterns  # noqa: B018 - imports every URLconf and view
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 2, 10)


settle()
