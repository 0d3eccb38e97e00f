"""The environment, read through django-environ; a bad value fails at start, named.

`Env` is django-environ's reader made stricter: an error names its variable, a
boolean is one of a few words (django-environ reads any other word as false), a
typed variable or URL set empty counts as unset (a string set empty stays empty),
and a list's items are stripped. CACHE_URL also takes Django's names locmem:// and
dummy://, and redis-py's unix:// socket URLs.
"""

from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

NOTSET = environ.Env.NOTSET
_TRUE = {"1", "true", "yes", "on", "y", "ok"}
_FALSE = {"0", "false", "no", "off", "n"}


class Env(environ.Env):
    # Django's own names for the local caches, besides django-environ's
    # locmemcache:// and dummycache://.
    CACHE_SCHEMES = {
        **environ.Env.CACHE_SCHEMES,
        "locmem": environ.Env.CACHE_SCHEMES["locmemcache"],
        "dummy": environ.Env.CACHE_SCHEMES["dummycache"],
    }

    def get_value(self, var, cast=None, default=NOTSET, parse_default=False):
        raw = self.ENVIRON.get(var)
        if raw is not None and not raw.strip() and cast not in (None, str):
            if default is not NOTSET:
                return default
        try:
            return super().get_value(var, cast, default, parse_default)
        except ImproperlyConfigured as error:
            message = str(error)
            if var not in message:
                message = f"{var}: {message}"
            raise ImproperlyConfigured(message) from None
        except (ValueError, TypeError) as error:
            raise ImproperlyConfigured(f"{var}: {error}") from None

    @classmethod
    def parse_value(cls, value, cast):
        if cast is bool and not isinstance(value, bool):
            word = value.strip().lower()
            if word not in _TRUE | _FALSE:
                raise ValueError(f"a boolean (1/0, true/false) is due, got {value!r}")
            return word in _TRUE
        return super().parse_value(value, cast)

    def list(self, var, cast=None, default=NOTSET) -> list[str]:
        items = self.get_value(var, cast=list, default=default)
        return [item.strip() for item in items if item.strip()]

    def db_url(self, var="DATABASE_URL", default=NOTSET, engine=None) -> dict:
        return self.parse_db_url(var, self._url(var, default), engine=engine)

    def parse_db_url(self, var: str, url: str, engine=None) -> dict:
        """A database URL read from `var` (a list's item, say), checked."""
        return self._config(var, url, self.DB_SCHEMES, self.db_url_config, engine)

    def cache_url(self, var="CACHE_URL", default=NOTSET, backend=None) -> dict:
        url = self._url(var, default)
        if url.startswith("unix://"):
            # redis-py's socket URL; django-environ reads it as redis:///path.
            url = f"redis{url[4:]}"
        schemes, parse = self.CACHE_SCHEMES, self.cache_url_config
        return self._config(var, url, schemes, parse, backend)

    def email_url(self, var="EMAIL_URL", default=NOTSET, backend=None) -> dict:
        url = self._url(var, default)
        schemes, parse = self.EMAIL_SCHEMES, self.email_url_config
        return self._config(var, url, schemes, parse, backend)

    def _url(self, var: str, default) -> str:
        url = self.str(var, default=default).strip()
        return default if not url and default is not NOTSET else url

    def _config(self, var: str, url: str, schemes: dict, parse, backend) -> dict:
        if urlsplit(url).scheme not in schemes:
            raise ImproperlyConfigured(
                f"{var} must be a URL whose scheme is one of {', '.join(schemes)}; "
                f"got {_without_password(url)!r}"
            )
        try:
            return parse(url, backend)
        except (ValueError, ImproperlyConfigured) as error:
            raise ImproperlyConfigured(f"{var}: {error}") from None

    def time_of_day(self, var: str, default: str) -> tuple[int, int] | None:
        """A time of day as HH:MM, as (hour, minute); None when set empty."""
        raw = self.str(var, default=default).strip()
        if not raw:
            return None
        try:
            hour, minute = (int(part) for part in raw.split(":"))
        except ValueError:
            hour = minute = -1
        if not (0 <= hour < 24 and 0 <= minute < 60):
            raise ImproperlyConfigured(
                f"{var} must be a time of day as HH:MM, got {raw!r}"
            )
        return hour, minute


def _without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)
