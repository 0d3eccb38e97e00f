"""A longer schemathesis run on the demo lab: reads anonymous, writes with a token."""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from schemathesis.specs.openapi.checks import positive_data_acceptance

from directory.api_router import router
from tests.fuzzing import GENERATED_REQUESTS

RESOURCES = ["people", "publications", "events", "topics", "organizations", "venues"]
EXAMPLES = 50
# Enough real records that a case with a known slug is common, not every case.
KNOWN_SLUGS = 6
WRITES = {"POST", "PUT", "PATCH", "DELETE"}


@pytest.fixture
def api_schema(db):
    from directory.wsgi import application

    # As Django's test client does: the test's transaction must outlive requests.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def write_headers(django_user_model) -> dict[str, str]:
    user = django_user_model.objects.create_superuser(
        "fuzzer", "fuzzer@example.org", "a-long-test-password"
    )
    return {"Authorization": f"Token {Token.objects.create(user=user).key}"}


def _operations(schema) -> list:
    return [result.ok() for result in schema.get_all_operations()]


def test_every_operation_belongs_to_a_resource(api_schema):
    resources = {op.path.split("/")[2] for op in _operations(api_schema)}
    assert resources == set(RESOURCES)


@pytest.mark.slow
@pytest.mark.parametrize("resource", RESOURCES)
def test_generated_requests_answer_as_documented(
    demo_lab, api_schema, write_headers, resource
):
    """No 5xx, and statuses, content types and bodies as the schema says.

    Slow: fifty generated requests for each of a resource's operations."""
    # Read without the test client: it would reconnect close_old_connections.
    records = next(v for name, v, _ in router.registry if name == resource).queryset
    slugs = list(records.order_by("slug").values_list("slug", flat=True)[:KNOWN_SLUGS])
    assert slugs
    operations = [
        op for op in _operations(api_schema) if op.path.startswith(f"/api/{resource}/")
    ]
    assert {op.method.upper() for op in operations} == {"GET", *WRITES}
    # Deletes last: they remove the records the other cases take.
    for operation in sorted(operations, key=lambda op: op.method.upper() == "DELETE"):
        # An anonymous write ends at 401 before its body is read: writes carry a
        # superuser's token, so that validation and saving are exercised too.
        headers = write_headers if operation.method.upper() in WRITES else None
        _check_operation(operation, slugs, headers)


def _check_operation(operation, slugs: list[str], headers: dict | None) -> None:
    strategy = operation.as_strategy()
    if "{slug}" in operation.path:
        # A generated slug names no record: half the cases take a real one.
        known = [operation.as_strategy(path_parameters={"slug": s}) for s in slugs]
        strategy = st.one_of(strategy, st.one_of(known))

    @given(case=strategy)
    @settings(GENERATED_REQUESTS, max_examples=EXAMPLES)
    def check(case):
        # Filter values are slugs of records that must exist, which a schema
        # cannot say: an unknown one is rightly a 400, not a failure.
        case.call_and_validate(
            headers=headers, excluded_checks=[positive_data_acceptance]
        )

    check()
