"""One log line per request, with a request id that every other line carries too.

The id is the client's (or the load balancer's) `X-Request-ID` when it is a short
token, else a new one; the response echoes it. With LOG_FORMAT=json each line is
one JSON object (time, level, logger, message, request_id and the request's
method, path, status and duration_ms).

What a client sent (a path with `%0a`, a header, a username) reaches many loggers,
Django's among them, so the formatters escape it rather than each caller: a text
line keeps newlines and other control characters as `\\n`, `\\x1b`…, and JSON
escapes them by itself. Only a traceback keeps its own lines.
"""

import contextvars
import json
import logging
import re
import time
import uuid
from datetime import UTC, datetime

from django.http import HttpRequest, HttpResponse

logger = logging.getLogger("core.requests")

_request_id = contextvars.ContextVar("request_id", default="-")
# Anything else (spaces, quotes, newlines) could forge or break log lines.
_VALID_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")
_FIELDS = ("method", "path", "status", "duration_ms")
# C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """Return `text` on one line: control characters written as escapes."""
    return _CONTROL.sub(_escape, text)


def request_log(get_response):
    def middleware(request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _VALID_ID.fullmatch(given) else uuid.uuid4().hex
        # Not reset at the end: Django logs a 4xx or 5xx after the middleware has
        # returned, and that line should carry the id too; the next request (or a
        # new thread, which starts with a fresh context) replaces it.
        _request_id.set(request_id)
        started = time.perf_counter()
        response = get_response(request)
        duration_ms = round((time.perf_counter() - started) * 1000, 1)
        response["X-Request-ID"] = request_id
        logger.info(
            "%s %s %s %.1f ms",
            request.method,
            request.path,
            response.status_code,
            duration_ms,
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": duration_ms,
            },
        )
        return response

    return middleware


class RequestIdFilter(logging.Filter):
    """Give every record the id of the request it was logged in ("-" outside)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _request_id.get()
        return True


class TextFormatter(logging.Formatter):
    """The text format, one line per record whatever the message holds."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802
        # The traceback is added after this, with its own newlines.
        return escape_controls(super().formatMessage(record))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
        }
        line.update({f: getattr(record, f) for f in _FIELDS if hasattr(record, f)})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)
