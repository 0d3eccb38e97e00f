"""core.lib imports no Django, checked at run time in a fresh interpreter (the
import-linter contract checks the same in the source)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

IMPORT_ALL = """
import importlib, json, pkgutil, sys
import core.lib
for module in pkgutil.iter_modules(core.lib.__path__):
    importlib.import_module(f"core.lib.{module.name}")
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_every_module_of_core_lib_imports_without_django() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "core" in result.stdout
    for framework in ("django", "rest_framework"):
        assert f'"{framework}"' not in result.stdout
