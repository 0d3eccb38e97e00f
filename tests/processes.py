"""Django in a child process: what is read from the environment at start."""

import os
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]


def django_process(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run `code` after django.setup() in a fresh interpreter; its output as text.

    The test settings, an in-memory database and the test client's host unless
    `env` says otherwise.
    """
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        env={
            "PATH": os.environ["PATH"],
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "ALLOWED_HOSTS": "testserver",
            "DATABASE_URL": "sqlite:///:memory:",
            **env,
        },
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
