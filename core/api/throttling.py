"""DRF's throttles, counted in the "throttle" cache that every process shares.

A store that cannot count (Redis down, a full disk) must not let every call
through: that would be when the site, its cache gone too, can least take a flood.
Nor should it take the API down for longer than the outage. So a throttled call
is answered 503 with Retry-After while the store fails, and counted again as soon
as it answers; the site's pages are not throttled and keep serving.
"""

import logging

from django.core.cache import caches
from django.db import DatabaseError
from django.utils.connection import ConnectionProxy
from redis.exceptions import RedisError
from rest_framework.exceptions import APIException
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

logger = logging.getLogger("core.api.throttling")

STORE_ERRORS = (RedisError, OSError, DatabaseError)
RETRY_AFTER_SECONDS = 10


class ThrottleUnavailable(APIException):
    status_code = 503
    default_detail = "The API cannot count calls just now; try again shortly."
    default_code = "throttle_unavailable"

    def __init__(self) -> None:
        super().__init__()
        self.wait = RETRY_AFTER_SECONDS  # DRF sends it as Retry-After


class _SharedCount:
    """Read the rate when asked (a changed setting applies without a restart) and
    count in the shared store, refusing rather than guessing when it fails."""

    cache = ConnectionProxy(caches, "throttle")

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except STORE_ERRORS as error:
            logger.warning("API throttle store unavailable: %r", error)
            raise ThrottleUnavailable() from error


class AnonThrottle(_SharedCount, AnonRateThrottle):
    pass


class UserThrottle(_SharedCount, UserRateThrottle):
    pass
