"""django-axes with two limits: per username from an address, and per address.

Axes 8 compares every rule of AXES_LOCKOUT_PARAMETERS with one AXES_FAILURE_LIMIT.
Guessing one account's password is stopped after that many failures; spraying one
password over many usernames from an address is stopped after
LOGIN_ADDRESS_FAILURE_LIMIT failures in all, a higher limit, so that a shared
office address is not locked by a few people's typos.
"""

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit
from django.conf import settings
from django.http import HttpRequest


class AddressLimitHandler(AxesDatabaseHandler):
    """For AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]."""

    def get_failures(
        self, request: HttpRequest, credentials: dict | None = None
    ) -> int:
        """Return the failures measured against AXES_FAILURE_LIMIT, both rules."""
        per_username, per_address = (
            sum(attempts.values_list("failures_since_start", flat=True))
            for attempts in self.get_user_attempts(request, credentials)
        )
        # Scaled onto the one limit axes compares with: floor(a * L / A) >= L
        # exactly when a >= A.
        limit = get_failure_limit(request, credentials)
        address_limit = settings.LOGIN_ADDRESS_FAILURE_LIMIT
        # For the lockout page: which of the two limits was reached.
        request.axes_address_limit = (
            address_limit if per_address >= address_limit else None
        )
        return max(per_username, per_address * limit // address_limit)

    def reset_user_attempts(
        self, request: HttpRequest, credentials: dict | None = None
    ) -> int:
        """On a successful sign-in clear that username's failures, not the address's.

        Else one account of their own would let a sprayer start the count again.
        """
        per_username = self.get_user_attempts(request, credentials)[0]
        deleted, _ = per_username.filter(
            username=get_client_username(request, credentials)
        ).delete()
        return deleted
