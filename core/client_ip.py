"""The client's address as this deployment's proxies report it."""

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    """Return the address PROXY_COUNT proxies back, as DRF's NUM_PROXIES does."""
    remote_addr = request.META.get("REMOTE_ADDR")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if not settings.PROXY_COUNT or not forwarded:
        return remote_addr
    # Each proxy appends the address it was reached from: only the last
    # PROXY_COUNT entries are trustworthy, whatever the client put before them.
    addresses = [address.strip() for address in forwarded.split(",")]
    address = addresses[-min(settings.PROXY_COUNT, len(addresses))]
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:  # a miscounted proxy chain lets the client's text through
        return remote_addr
