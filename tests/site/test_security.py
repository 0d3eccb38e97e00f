import pytest
from django.core.management import call_command


@pytest.mark.parametrize(
    "url", ["/", "/people/", "/publications/", "/api/people/", "/nope/"]
)
def test_every_response_carries_the_security_headers(client, db, url):
    response = client.get(url)
    csp = dict(
        part.strip().split(" ", 1)
        for part in response["Content-Security-Policy"].split(";")
    )
    assert csp["script-src"] == "'self'" and csp["style-src"] == "'self'"
    assert csp["object-src"] == "'none'" and csp["frame-ancestors"] == "'none'"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"


def test_api_docs_load_their_script_from_a_file(client, db):
    html = client.get("/api/docs/").content.decode()
    assert "<script>" not in html
    assert (
        "script-src 'self';"
        in client.get("/api/docs/")["Content-Security-Policy"] + ";"
    )


def test_unknown_host_is_a_400(client, db):
    client.raise_request_exception = False
    assert client.get("/", HTTP_HOST="evil.example").status_code == 400


def test_production_settings_pass_the_deploy_check(settings, monkeypatch):
    # The tests serve plain HTTP; production keeps the redirect on (DEBUG=0 default).
    settings.SECURE_SSL_REDIRECT = True
    # The browser tests set this for their own process; no deployment does.
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE", raising=False)
    call_command("check", deploy=True, fail_level="WARNING")


def test_passwords_need_length_and_must_not_be_common(db, django_user_model):
    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError

    for weak in ["short-pw", "password1234"]:
        with pytest.raises(ValidationError):
            validate_password(weak)
    validate_password("correct-horse-battery-staple")
