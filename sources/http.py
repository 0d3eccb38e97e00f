"""HTTP for the sources: one session with timeouts and retries that back off."""

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.exceptions import NewConnectionError
from urllib3.exceptions import TimeoutError as Urllib3Timeout
from urllib3.util.retry import Retry

# Connect and read timeouts, in seconds.
TIMEOUT = (5.0, 30.0)
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class SourceError(Exception):
    """A source could not be read; the message names the file or the request."""


def new_session(
    *, retries: int = 4, backoff: float | None = None, retry_after_max: int = 60
) -> requests.Session:
    """A session that retries GETs on 429 and 5xx, honouring `Retry-After`."""
    retry = Retry(
        total=retries,
        backoff_factor=settings.SOURCES_RETRY_BACKOFF if backoff is None else backoff,
        status_forcelist=RETRY_STATUSES,
        allowed_methods={"GET"},
        respect_retry_after_header=True,
        retry_after_max=retry_after_max,
        # Hand the last answer back rather than raise: get_json names its status.
        raise_on_status=False,
    )
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = "lab-directory/1 (sources import)"
    return session


def get_json(
    session: requests.Session,
    url: str,
    *,
    params: dict | None = None,
    timeout: tuple[float, float] = TIMEOUT,
) -> dict:
    """GET `url` as JSON; any failure becomes one SourceError naming the request."""
    try:
        response = session.get(
            url, params=params, headers={"Accept": "application/json"}, timeout=timeout
        )
    except requests.RequestException as exc:
        if _timed_out(exc):
            raise SourceError(f"GET {url}: no answer within {timeout[1]:g} s") from None
        raise SourceError(f"GET {url}: the source is unreachable ({exc})") from None
    if response.status_code == 404:
        raise SourceError(f"GET {response.url}: not found (404): unknown identifier?")
    if response.status_code >= 400:
        raise SourceError(
            f"GET {response.url}: the source answered HTTP "
            f"{response.status_code} (after retries)"
        )
    try:
        data = response.json()
    except ValueError:
        raise SourceError(f"GET {response.url}: the answer is not JSON") from None
    if not isinstance(data, dict):
        raise SourceError(f"GET {response.url}: expected a JSON object")
    return data


def _timed_out(exc: requests.RequestException) -> bool:
    # Retries wrap a read timeout in a ConnectionError; its reason says what it was.
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    # (urllib3 counts a refused connection as a kind of connect timeout.)
    if isinstance(reason, NewConnectionError):
        return False
    return isinstance(exc, requests.Timeout) or isinstance(reason, Urllib3Timeout)
