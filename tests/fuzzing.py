"""Hypothesis settings shared by the generated-request (schemathesis) tests."""

from hypothesis import HealthCheck, settings

# Reproducible (derandomized, no example database), and never failed for being
# slow: a request through the whole stack takes what it takes.
GENERATED_REQUESTS = settings(
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
    database=None,
)
