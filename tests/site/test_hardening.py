import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import path
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.views import APIView

from core.client_ip import client_ip
from directory import urls as site_urls
from publications.models import Publication
from tests import factories

BASE_DIR = Path(__file__).resolve().parents[2]
LOGIN = "/admin/login/"
PASSWORD = "a-long-test-password"
IMPORT = "/admin/publications/publication/import-bibtex/"
# Put in every crash below: it must reach the log and never the client.
CANARY = "hardening-canary-5e1f0c"
LEAKS = ["Traceback", CANARY, "SECRET_KEY", "SELECT "]


def _crash(request):
    # A query first, so that a debug page would have SQL to show.
    Publication.objects.filter(title=CANARY).exists()
    raise RuntimeError(f"{CANARY} SECRET_KEY={django_settings.SECRET_KEY}")


class _CrashingEndpoint(APIView):
    permission_classes = []

    def get(self, request):
        return _crash(request)


# This module doubles as the URLconf of the error-page tests: the site plus two
# views that crash.
urlpatterns = [
    path("crash/", _crash),
    path("api/crash/", _CrashingEndpoint.as_view()),
    *site_urls.urlpatterns,
]
handler404 = site_urls.handler404
handler500 = site_urls.handler500


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_superuser(
        "alice", "alice@example.org", PASSWORD
    )


def _sign_in(client: Client, username: str, password: str, **extra):
    data = {"username": username, "password": password, "next": "/admin/"}
    return client.post(LOGIN, data, **extra)


def _fail(times: int, **extra) -> list[int]:
    """Sign in as alice with a wrong password; the statuses of the answers."""
    client = Client()
    return [
        _sign_in(client, "alice", "wrong-guess", **extra).status_code
        for _ in range(times)
    ]


def _form_token(response) -> str:
    html = response.content.decode()
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1]


# Sign-in lockout (django-axes)


def test_five_wrong_passwords_lock_the_sign_in_even_with_the_right_one(alice):
    assert _fail(5) == [200, 200, 200, 200, 429]
    client = Client()
    locked = _sign_in(client, "alice", PASSWORD)
    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session
    assert "lockout.html" in [t.name for t in locked.templates]
    html = locked.content.decode()
    assert "<h1>Too many failed sign-in attempts</h1>" in html
    assert "After 5 wrong passwords" in html and "for 15 minutes" in html
    assert client.get("/admin/").status_code == 302  # still not signed in


def test_a_lockout_holds_only_that_username_from_that_address(alice, django_user_model):
    django_user_model.objects.create_superuser("bob", "bob@example.org", PASSWORD)
    _fail(5)
    assert _sign_in(Client(), "bob", PASSWORD).status_code == 302
    elsewhere = _sign_in(Client(), "alice", PASSWORD, REMOTE_ADDR="192.0.2.7")
    assert elsewhere.status_code == 302
    assert _sign_in(Client(), "alice", PASSWORD).status_code == 429


def test_axes_reset_lifts_a_lockout(alice):
    _fail(5)
    call_command("axes_reset", stdout=io.StringIO())
    assert _sign_in(Client(), "alice", PASSWORD).status_code == 302


def test_staff_see_a_lockout_in_the_admin_and_can_lift_it(
    alice, admin_client_logged_in
):
    _fail(5)
    listing = admin_client_logged_in.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200 and "alice" in listing.content.decode()
    attempt = AccessAttempt.objects.get(username="alice")
    delete = f"/admin/axes/accessattempt/{attempt.pk}/delete/"
    assert admin_client_logged_in.post(delete, {"post": "yes"}).status_code == 302
    assert _sign_in(Client(), "alice", PASSWORD).status_code == 302


def test_a_successful_sign_in_starts_the_count_again(alice):
    assert _fail(4) == [200] * 4
    assert _sign_in(Client(), "alice", PASSWORD).status_code == 302
    assert _fail(4) == [200] * 4


def _spray(usernames: range, **extra) -> list[int]:
    """One wrong password for each of many usernames, from one address."""
    client = Client()
    return [
        _sign_in(client, f"user{n}", "wrong-guess", **extra).status_code
        for n in usernames
    ]


def test_forty_usernames_tried_from_one_address_lock_that_address(alice, settings):
    limit = settings.LOGIN_ADDRESS_FAILURE_LIMIT
    assert 5 < limit < 40
    statuses = _spray(range(40))
    assert statuses == [200] * (limit - 1) + [429] * (41 - limit)
    locked = _sign_in(Client(), "alice", PASSWORD)
    assert locked.status_code == 429
    assert f"After {limit} wrong passwords from your network" in locked.content.decode()
    elsewhere = _sign_in(Client(), "alice", PASSWORD, REMOTE_ADDR="192.0.2.7")
    assert elsewhere.status_code == 302


def test_a_successful_sign_in_does_not_clear_the_count_of_its_address(alice, settings):
    limit = settings.LOGIN_ADDRESS_FAILURE_LIMIT
    assert _spray(range(limit - 1)) == [200] * (limit - 1)
    assert _sign_in(Client(), "alice", PASSWORD).status_code == 302
    assert _spray(range(100, 101)) == [429]


def test_without_proxies_a_forwarded_header_cannot_dodge_the_lockout(alice):
    for n in range(5):
        _fail(1, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
    dodge = _sign_in(Client(), "alice", PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert dodge.status_code == 429


def test_behind_a_proxy_the_lockout_keys_on_the_address_it_forwards(alice, settings):
    settings.PROXY_COUNT = 1
    _fail(5, HTTP_X_FORWARDED_FOR="203.0.113.5")
    # A client can prepend addresses; the proxy's own entry is the last one.
    spoofed = "198.51.100.1, 203.0.113.5"
    locked = _sign_in(Client(), "alice", PASSWORD, HTTP_X_FORWARDED_FOR=spoofed)
    assert locked.status_code == 429
    other = _sign_in(Client(), "alice", PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.6")
    assert other.status_code == 302


@pytest.mark.parametrize(
    "proxies, forwarded, expected",
    [
        (0, "198.51.100.1", "127.0.0.1"),
        (1, "", "127.0.0.1"),
        (1, "198.51.100.1, 203.0.113.5", "203.0.113.5"),
        (2, "198.51.100.1, 203.0.113.5", "198.51.100.1"),
        (3, "203.0.113.5", "203.0.113.5"),
        (2, "not-an-address, 203.0.113.5", "127.0.0.1"),
    ],
)
def test_the_client_address_is_counted_back_from_the_last_proxy(
    rf, settings, proxies, forwarded, expected
):
    settings.PROXY_COUNT = proxies
    request = rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected


def test_a_forged_forwarded_header_does_not_escape_the_api_throttle(db, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "2/minute", "user": "2/minute"},
    }
    api = APIClient()
    statuses = [
        api.get("/api/topics/", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code
        for n in range(3)
    ]
    assert statuses == [200, 200, 429]


# Cookie flags


COOKIE_SETTINGS = [
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SESSION_COOKIE_HTTPONLY",
    "SESSION_COOKIE_SAMESITE",
    "CSRF_COOKIE_SAMESITE",
    "SECURE_SSL_REDIRECT",
]


@pytest.fixture(scope="module")
def production_settings() -> dict:
    """The cookie settings directory/settings.py gives with DEBUG=0 and nothing else."""
    code = (
        "import json, directory.settings as s; "
        f"print(json.dumps({{n: getattr(s, n) for n in {COOKIE_SETTINGS!r}}}))"
    )
    env = {"PATH": os.environ.get("PATH", ""), "DEBUG": "0", "SECRET_KEY": "k" * 50}
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def test_production_cookies_are_secure_httponly_and_lax(production_settings):
    assert production_settings == {
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "CSRF_COOKIE_SAMESITE": "Lax",
        "SECURE_SSL_REDIRECT": True,
    }


def test_signing_in_over_https_sets_the_production_cookie_flags(
    alice, settings, production_settings
):
    for name, value in production_settings.items():
        setattr(settings, name, value)
    assert Client().get(LOGIN)["Location"] == f"https://testserver{LOGIN}"
    client = Client(enforce_csrf_checks=True)
    page = client.get(LOGIN, secure=True)
    csrf = page.cookies["csrftoken"]
    assert csrf["secure"] is True and csrf["samesite"] == "Lax"

    data = {
        "username": "alice",
        "password": PASSWORD,
        "csrfmiddlewaretoken": _form_token(page),
    }
    # Over HTTPS, Django's CSRF check also wants a same-origin Referer.
    referer = f"https://testserver{LOGIN}"
    response = client.post(LOGIN, data, secure=True, headers={"referer": referer})
    assert response.status_code == 302
    session = response.cookies["sessionid"]
    assert session["secure"] is True and session["httponly"] is True
    assert session["samesite"] == "Lax"
    assert response.cookies["csrftoken"]["secure"] is True  # rotated on sign-in


# CSRF


def test_the_sign_in_form_needs_its_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    data = {"username": "alice", "password": PASSWORD}
    assert client.post(LOGIN, data).status_code == 403
    assert "_auth_user_id" not in client.session
    token = _form_token(client.get(LOGIN))
    response = client.post(LOGIN, {**data, "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)


def _bibtex() -> dict:
    entry = b"@article{k1, title={Tokens}, author={Ada Lovelace}, year={2024}}"
    return {"file": SimpleUploadedFile("k.bib", entry, "application/x-bibtex")}


@pytest.mark.parametrize(
    "url, data",
    [
        (IMPORT, _bibtex),
        (IMPORT, lambda: {"token": "a-pending-import"}),
        ("/admin/people/person/add/", lambda: {"given_name": "Eve"}),
        ("/admin/logout/", dict),
    ],
    ids=["bibtex-upload", "bibtex-confirm", "admin-change-form", "logout"],
)
def test_staff_forms_refuse_a_post_without_its_token(alice, url, data):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(url, data()).status_code == 403
    client.get("/admin/")  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    assert client.post(url, {**data(), "csrfmiddlewaretoken": token}).status_code in (
        200,
        302,
    )


def test_every_post_form_in_the_templates_carries_a_csrf_token():
    forms = [
        (template, form)
        for template in (BASE_DIR / "templates").rglob("*.html")
        for form in re.findall(r"<form\b.*?</form>", template.read_text(), re.S)
        if re.search(r"<form\b[^>]*method=\"post\"", form, re.I)
    ]
    assert len(forms) >= 2  # the BibTeX upload and its confirmation
    for template, form in forms:
        assert "{% csrf_token %}" in form, template


# Error pages


@pytest.fixture
def crashing_site(client, db, settings):
    settings.DEBUG = False
    settings.ROOT_URLCONF = __name__
    client.raise_request_exception = False
    return client


def test_a_crash_shows_the_plain_500_page_and_logs_the_details(crashing_site, caplog):
    response = crashing_site.get("/crash/")
    assert response.status_code == 500
    assert [t.name for t in response.templates] == ["500.html"]
    html = response.content.decode()
    assert "<h1>Something went wrong</h1>" in html
    for leak in [*LEAKS, django_settings.SECRET_KEY]:
        assert leak not in html, leak
    [record] = [r for r in caplog.records if r.name == "django.request"]
    assert CANARY in str(record.exc_info[1])


def test_an_api_crash_is_a_json_500_without_details(crashing_site):
    response = crashing_site.get("/api/crash/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "error": {
            "status": 500,
            "code": "server_error",
            "message": "A server error occurred.",
        }
    }
    for leak in [*LEAKS, django_settings.SECRET_KEY]:
        assert leak not in response.content.decode(), leak


# Oversized requests


BIG = 100 * 1024
TOO_MANY_FIELDS = "&".join(["topic=ml"] * (BIG // 9))


@pytest.mark.parametrize("url", ["/publications/", "/api/publications/"])
@pytest.mark.parametrize(
    "query, status",
    [
        ("q=" + "x" * BIG, 200),
        (TOO_MANY_FIELDS, 400),
    ],
    ids=["one-long-search", "too-many-fields"],
)
def test_a_100_kb_query_string_is_never_a_server_error(client, db, url, query, status):
    response = client.get(f"{url}?{query}")
    assert response.status_code == status
    if url.startswith("/api/") and status == 400:
        assert response.json()["error"]["status"] == 400


@pytest.fixture
def editor_api(django_user_model) -> APIClient:
    user = django_user_model.objects.create_superuser(
        "editor", "editor@example.org", PASSWORD
    )
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api


def test_an_api_body_over_the_upload_limit_is_a_json_413(editor_api, settings):
    body = json.dumps({"title": "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE})
    response = editor_api.post(
        "/api/publications/", body, content_type="application/json"
    )
    assert response.status_code == 413
    assert response.json() == {
        "error": {
            "status": 413,
            "code": "request_too_large",
            "message": "The request body is larger than the server accepts.",
        }
    }
    assert not Publication.objects.exists()


def test_an_api_post_with_too_many_fields_is_a_json_400(editor_api, settings):
    fields = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1
    body = "&".join(f"field{n}=1" for n in range(fields))
    response = editor_api.post(
        "/api/publications/", body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "parse_error"
    assert not Publication.objects.exists()


def test_an_oversized_form_post_is_a_400_page(client, db, settings):
    fields = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1
    too_many = {f"field{n}": "1" for n in range(fields)}
    too_big = {"username": "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE}
    for data in [too_many, too_big]:
        response = client.post(LOGIN, data)
        assert response.status_code == 400
        assert "<h1>Bad request</h1>" in response.content.decode()


def test_a_10000_character_search_is_cut_short_and_still_finds(client, db):
    factories.publication(title="Sparse attention for long contexts", slug="sparse")
    query = ("sparse attention " * 600)[:10_000]
    page = client.get("/search/", {"q": query})
    assert page.status_code == 200
    assert "Sparse attention for long contexts" in page.content.decode()
    api = client.get("/api/publications/", {"q": query})
    assert api.status_code == 200
    assert [p["slug"] for p in api.json()["results"]] == ["sparse"]
