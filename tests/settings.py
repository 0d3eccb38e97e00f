"""Test settings: production defaults (DEBUG off) with plain HTTP and fast hashing."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault(
    "SECRET_KEY", "tests-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz"
)
os.environ.setdefault("DEBUG", "0")
# The test client speaks plain HTTP; the secure defaults are tested on their own.
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")

from directory.settings import *  # noqa: E402, F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Serve static files from the source folders; no collectstatic before tests.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# Throttling has its own test; elsewhere it must not interfere. Its counts stay in
# this process (the tests that share them between processes say where).
CACHES = {
    **CACHES,  # noqa: F405
    "throttle": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
}
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
}

# /readyz runs its checks on every call: each test sets up its own services; the
# caching of results has its own test.
HEALTH_CHECK_CACHE_SECONDS = 0

# Warming caches after each write is tested on its own (it starts a thread per
# committed write); elsewhere it would only slow the tests down.
WARM_CACHE_AFTER_WRITE = False

# One data-version file per test process (the suite runs in several), unless the
# test that starts another process names it.
if "DATA_VERSION_FILE" in os.environ:
    DATA_VERSION_FILE = Path(os.environ["DATA_VERSION_FILE"])
else:
    _versions = tempfile.mkdtemp(prefix="directory-tests-")
    atexit.register(shutil.rmtree, _versions, ignore_errors=True)
    DATA_VERSION_FILE = Path(_versions) / "data-version"

# A replica that mirrors the test database, for the read-replica tests (they switch
# the router on); elsewhere nothing reads from it.
DATABASES["replica1"] = {  # noqa: F405
    **DATABASES["default"],  # noqa: F405
    "TEST": {"MIRROR": "default"},
}

# Jobs run at once, in the test's process and transaction; tests/ops/test_worker.py
# runs them through a real worker, and tests/jobs/ switch this off to try brokers.
CELERY_TASK_ALWAYS_EAGER = True

# A failing source is retried four times, as in production, without the seconds of
# backoff between tries (tests/sources/test_http.py times the backoff itself).
SOURCES_RETRY_BACKOFF = 0.01
