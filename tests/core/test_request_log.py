"""One log line per request with its id; JSON lines when LOG_FORMAT=json."""

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import django_process

BASE_DIR = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def test_each_request_is_logged_once_with_id_status_and_duration(client, caplog):
    with caplog.at_level(logging.INFO, logger="core.requests"):
        response = client.get("/people/", HTTP_X_REQUEST_ID="lb-1234")
    assert response["X-Request-ID"] == "lb-1234"
    lines = [r for r in caplog.records if r.name == "core.requests"]
    assert len(lines) == 1
    assert (lines[0].method, lines[0].path, lines[0].status) == ("GET", "/people/", 200)
    assert lines[0].duration_ms > 0
    assert lines[0].getMessage().startswith("GET /people/ 200 ")


@pytest.mark.parametrize("given", ["", "two words", "x" * 129, 'a"b', "a\nb"])
def test_an_unusable_request_id_is_replaced(client, given):
    response = client.get("/robots.txt", HTTP_X_REQUEST_ID=given)
    assert response["X-Request-ID"] != given
    assert len(response["X-Request-ID"]) == 32


def test_json_lines_carry_the_request_id_on_every_record():
    done = django_process(
        "from django.test import Client; "
        "Client().get('/api/unknown/', HTTP_X_REQUEST_ID='req-7')",
        LOG_FORMAT="json",
    )
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    request_line = next(x for x in lines if x["logger"] == "core.requests")
    assert request_line["request_id"] == "req-7"
    assert request_line["status"] == 404
    assert request_line["method"] == "GET" and request_line["path"] == "/api/unknown/"
    # Django's own warning about the 404 carries the same id.
    assert any(
        x["logger"] == "django.request" and x["request_id"] == "req-7" for x in lines
    )


def test_an_unknown_log_format_is_refused():
    done = subprocess.run(
        [sys.executable, "-c", "import directory.settings"],
        env={"PATH": os.environ["PATH"], "DEBUG": "1", "LOG_FORMAT": "xml"},
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "LOG_FORMAT must be text or json" in done.stderr


def _log_lines_of(path: str, log_format: str) -> list[str]:
    """Request `path` in a fresh process with the site's logging; its stderr lines."""
    code = f"from django.test import Client; Client().get({path!r})"
    return django_process(code, LOG_FORMAT=log_format).stderr.splitlines()


FORGED = "/api/unknown/%0d%0a2026-01-01 00:00:00,000 ERROR core.auth [-] admin in"


def test_a_newline_in_the_url_cannot_forge_a_text_log_line():
    lines = _log_lines_of(FORGED, "text")
    assert lines, "nothing was logged"
    assert not any(line.startswith("2026-01-01") for line in lines)
    request_line = next(x for x in lines if " core.requests " in x)
    assert "/api/unknown/\\r\\n2026-01-01 00:00:00,000 ERROR" in request_line


def test_a_newline_in_the_url_stays_inside_its_json_line():
    lines = _log_lines_of(FORGED, "json")
    records = [json.loads(line) for line in lines]
    assert {r["logger"] for r in records} >= {"core.requests", "django.request"}


def test_control_characters_are_escaped_but_a_traceback_keeps_its_lines():
    from core.request_log import TextFormatter

    try:
        raise ValueError("boom")
    except ValueError:
        import sys as _sys

        exc_info = _sys.exc_info()
    record = logging.LogRecord(
        "x", logging.ERROR, __file__, 1, "user %s", ("a\x1b[31mb\u2028c\td",), exc_info
    )
    text = TextFormatter("%(levelname)s %(message)s").format(record)
    first, *rest = text.splitlines()
    assert first == "ERROR user a\\x1b[31mb\\u2028c\\td"
    assert rest[0].startswith("Traceback") and "ValueError: boom" in rest[-1]


def test_a_json_line_holds_a_forged_line_and_a_traceback_as_data():
    from core.request_log import JsonFormatter

    try:
        raise ValueError("broken\nFAKE 200")
    except ValueError:
        record = logging.LogRecord(
            "core.requests",
            logging.ERROR,
            __file__,
            1,
            "GET %s",
            ("/x\nFAKE",),
            sys.exc_info(),
        )
    record.request_id, record.status, record.path = "abc", 500, "/x\nFAKE"
    line = JsonFormatter().format(record)
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["message"] == "GET /x\nFAKE" and parsed["status"] == 500
    assert parsed["request_id"] == "abc" and "FAKE 200" in parsed["exception"]
