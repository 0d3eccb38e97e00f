"""The WSGI application that gunicorn (`make serve`) and other servers load."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")

application = get_wsgi_application()


def settle() -> None:
    """Import every view now and hide start-up objects from the garbage collector.

    A response leaves thousands of objects in reference cycles (model instances
    and their prefetched relations point at each other). With the default
    thresholds the collector promotes them while the request still holds them and
    frees them all in one full collection every dozen requests, which showed as
    30-40 ms pauses in the 95th percentile (API list p95 59 ms, p50 24 ms). A
    larger first generation collects most of them young, and `gc.freeze` keeps
    the start-up objects out of every scan (and, before a server forks, in memory
    pages the workers share). Measured: API list p95 59 -> 25 ms.
    """
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports every URLconf and view
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


settle()
