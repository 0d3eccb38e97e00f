from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


class _LiveRates:
    """Read the rate when asked, so a changed setting applies without a restart."""

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class AnonThrottle(_LiveRates, AnonRateThrottle):
    pass


class UserThrottle(_LiveRates, UserRateThrottle):
    pass
