"""The import-linter contracts hold on this tree, and fail on a deliberate breach
written into a copy of it (never into the tree itself)."""

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [LINT_IMPORTS, "--no-logo", "--no-cache"],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def tree_copy(tmp_path: Path) -> Path:
    config = (ROOT / "pyproject.toml").read_text()
    for package in tomllib.loads(config)["tool"]["importlinter"]["root_packages"]:
        shutil.copytree(
            ROOT / package,
            tmp_path / package,
            ignore=lambda folder, names: [
                n for n in names if not n.endswith(".py") and "." in n
            ],
        )
    (tmp_path / "pyproject.toml").write_text(config)
    return tmp_path


def test_the_tree_keeps_every_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


# Each breach as an app might write it, and the import the contract must name.
BREACHES = {
    # Another app's internals, at the top of a module.
    "sources/matching.py": (
        "from publications.importing.members import Members",
        "sources.matching -> publications.importing.members",
    ),
    # The same hidden inside a function, in the `import a.b` form.
    "people/views.py": (
        "def _hidden():\n    import events.feeds",
        "people.views -> events.feeds",
    ),
    # A lower layer's internals are its own too.
    "labdata/loader.py": (
        "from search.engines import get_engine",
        "labdata.loader -> search.engines",
    ),
}


def test_an_import_of_another_apps_internals_breaks_the_contract(
    tree_copy: Path,
) -> None:
    for module, (line, _) in BREACHES.items():
        path = tree_copy / module
        path.write_text(path.read_text() + "\n\n" + line + "\n")
    result = lint_imports(tree_copy)
    assert result.returncode == 1
    assert "Apps use each other only through their public entries BROKEN" in (
        result.stdout
    )
    for _, illegal in BREACHES.values():
        assert illegal in result.stdout


def test_an_import_of_django_in_core_lib_breaks_its_contract(tree_copy: Path) -> None:
    charts = tree_copy / "core/lib/charts.py"
    charts.write_text(charts.read_text() + "\n\nfrom django.utils.html import escape\n")
    # Through a module of ours that imports Django, too.
    text = tree_copy / "core/lib/text.py"
    text.write_text(text.read_text() + "\n\ndef _hidden():\n    import core.models\n")
    result = lint_imports(tree_copy)
    assert result.returncode == 1
    assert "core.lib needs no Django BROKEN" in result.stdout
    assert "core.lib.charts -> django" in result.stdout
    assert "core.lib.text -> core.models" in result.stdout
