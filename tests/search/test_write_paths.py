"""Every write reaches the search documents and the tables derived from them.

A save, delete or many-to-many change is followed by the re-index rules each app
declares (search.registration); a bulk write (bulk_create, bulk_update, a QuerySet's
update, insert_rows) sends no signal, so the function that makes one, or the
function of the same module that calls it, schedules the re-index itself. This test
finds every bulk write of a model a rule follows and checks that one of them does.
"""

import ast
from pathlib import Path
from types import SimpleNamespace

from django.apps import apps

from search.registration import followed_models

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "directory", "events", "jobs", "labdata", "people")
PACKAGES += ("publications", "search", "sources")
BULK = {"bulk_create", "bulk_update", "update"}
# What schedules a re-index: search.indexing's functions, and the services that call
# them for a write other apps (and the admin) make.
SCHEDULING = {"schedule", "index", "rebuild", "person_set_status"}
# Writes no document, similar list or picture reads, each with the reason.
EXEMPT = {
    # A generated lab is indexed whole by `rebuild` when it is written.
    "labdata/generate.py": {"*"},
    # Citation counts and ORCID put-codes: a source's facts no document holds.
    "publications/services.py": {"publication_refresh_source_facts"},
    # Featured and reviewed: flags read from the records, in no document.
    "publications/admin.py": {"mark_selected", "unmark_selected", "mark_reviewed"},
}


def _models() -> dict[str, object]:
    """Every model by its name, and as `models.<name>` (`from people import models`)."""
    names = {m.__name__: m for m in apps.get_models(include_auto_created=True)}
    return {**names, "models": SimpleNamespace(**names)}


def _resolve(node: ast.expr, names: dict[str, object]):
    """The model an expression such as `Person.topics.through` names, if any."""
    try:
        code = compile(ast.Expression(node), "<model>", "eval")
        return eval(code, {"__builtins__": {}}, names)  # noqa: S307 (names only)
    except Exception:
        return None


def _written_model(call: ast.Call, names: dict[str, object], admin_model):
    func = call.func
    if isinstance(func, ast.Name) and func.id == "insert_rows" and call.args:
        return _resolve(call.args[0], names)
    if not (isinstance(func, ast.Attribute) and func.attr in BULK):
        return None
    node = func.value
    if isinstance(node, ast.Name) and node.id == "queryset":
        return admin_model  # an admin action's selection
    # Down the chain to `<model>.objects` (`.filter(...)` and the like between).
    while isinstance(node, ast.Call | ast.Attribute):
        if isinstance(node, ast.Attribute) and node.attr == "objects":
            return _resolve(node.value, names)
        node = node.func if isinstance(node, ast.Call) else node.value
    return None


def _admin_model(cls: ast.ClassDef, names: dict[str, object]):
    """The model a ModelAdmin is registered for (its decorator) or edits (`model`)."""
    for decorator in cls.decorator_list:
        if isinstance(decorator, ast.Call) and decorator.args:
            if getattr(decorator.func, "attr", "") == "register":
                return _resolve(decorator.args[0], names)
    for statement in cls.body:
        if isinstance(statement, ast.Assign) and any(
            getattr(t, "id", "") == "model" for t in statement.targets
        ):
            return _resolve(statement.value, names)
    return None


def _called(function: ast.AST) -> set[str]:
    return {
        node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
    }


def _bulk_writes(tree: ast.Module, names: dict[str, object]):
    """(function, call, model) of each bulk write of a model, in a module."""
    owners = {
        id(f): _admin_model(cls, names)
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for f in cls.body
        if isinstance(f, ast.FunctionDef)
    }
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef):
            for call in ast.walk(function):
                if isinstance(call, ast.Call):
                    model = _written_model(call, names, owners.get(id(function)))
                    if model is not None:
                        yield function, call, model


def unscheduled_bulk_writes() -> list[str]:
    names = _models()
    followed = set(followed_models())
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "migrations" in path.parts or "*" in EXEMPT.get(relative, ()):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            functions = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)]
            for function, call, model in _bulk_writes(tree, names):
                if model not in followed or function.name in EXEMPT.get(relative, ()):
                    continue
                callers = [f for f in functions if function.name in _called(f)]
                if not any(_called(f) & SCHEDULING for f in [function, *callers]):
                    found.append(
                        f"{relative}:{call.lineno} {function.name}: {model._meta.label}"
                    )
    return found


def test_every_bulk_write_of_a_followed_model_schedules_the_reindex(db):
    assert unscheduled_bulk_writes() == []


def test_the_check_finds_an_admin_action_and_a_helper_nobody_schedules_for(db):
    names = _models()
    tree = ast.parse(
        "@admin.register(Person)\n"
        "class A:\n"
        "    def act(self, request, queryset):\n"
        "        queryset.update(status='alumni')\n"
        "def helper(rows):\n"
        "    insert_rows(Authorship, ['person'], rows)\n"
    )
    found = sorted((f.name, m.__name__) for f, _, m in _bulk_writes(tree, names))
    assert found == [("act", "Person"), ("helper", "Authorship")]
