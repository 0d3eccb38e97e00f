"""The lab file's `lab:` mapping: loaded into the one lab record, or refused clearly."""

from pathlib import Path

import pytest

from core.models import Lab
from labdata.loader import load_lab_files
from labdata.reader import LabFileError


def _file(tmp_path: Path, text: str, name: str = "lab.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_demo_describes_itself_as_a_sample(demo_lab):
    lab = Lab.objects.get()
    assert lab.kind == Lab.Kind.COLLECTION
    assert "sample directory built from four researchers' public pages" in (
        lab.description
    )


def test_a_lab_file_creates_then_updates_the_one_record(db, tmp_path):
    path = _file(tmp_path, "lab:\n  name: Test Group\n  email: g@example.org\n")
    assert load_lab_files([path]) == {"lab created": 1}
    assert load_lab_files([path]) == {}

    _file(tmp_path, "lab:\n  name: Renamed Group\n")
    assert load_lab_files([path]) == {"lab updated": 1}
    lab = Lab.objects.get()
    assert (lab.name, lab.email, lab.kind) == ("Renamed Group", "", "group")


def test_files_without_a_lab_leave_the_record_alone(db, tmp_path):
    Lab.objects.create(name="Kept")
    load_lab_files([_file(tmp_path, "topics: [{slug: agents}]\n")])
    assert Lab.objects.get().name == "Kept"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("lab: [Test Group]\n", "lab must be a mapping of its fields"),
        ("lab:\n  description: No name\n", "lab: a name is required"),
        ("lab:\n  name: G\n  motto: Faster\n", "lab: unknown keys ['motto']"),
        ("lab:\n  name: G\n  email: not-an-address\n", "lab: email: Enter a valid"),
        ("lab:\n  name: G\n  kind: club\n", "lab: kind: Value 'club' is not"),
        ("lab:\n  name: G\n  url: [a, b]\n", "lab: url must be text, not list"),
    ],
)
def test_a_bad_lab_file_is_refused_with_its_name_and_reason(
    db, tmp_path, text, message
):
    path = _file(tmp_path, text)
    with pytest.raises(LabFileError, match=rf"^{path}: ") as error:
        load_lab_files([path])
    assert message in str(error.value)
    assert not Lab.objects.exists()


def test_two_files_that_disagree_about_the_lab_are_refused(db, tmp_path):
    first = _file(tmp_path, "lab:\n  name: One\n", "a.yaml")
    second = _file(tmp_path, "lab:\n  name: Two\n", "b.yaml")
    with pytest.raises(LabFileError, match="defined differently elsewhere"):
        load_lab_files([first, second])
