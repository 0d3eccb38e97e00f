import io
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from core.models import Organization, Topic
from events.models import Event
from people.models import Person
from publications.models import Authorship, Publication
from tests import factories

# What each seed page states, counted by hand from ../shared/seeds/.
EXPECTED = {
    # slug: (publications, education, experience, events, awards)
    "lei-zhu": (2, 3, 1, 5, 2),
    "jingwei-zuo": (2, 4, 6, 2, 0),
    "s-zheng": (4, 2, 6, 0, 0),
    "zhongzhu-zhou": (15, 5, 5, 10, 10),
}


def _snapshot() -> dict:
    tables = connection.introspection.django_table_names(only_existing=True)
    with connection.cursor() as cursor:
        counts = {}
        for table in sorted(tables):
            cursor.execute(f'SELECT COUNT(*) FROM "{table}"')  # noqa: S608 - our own tables
            counts[table] = cursor.fetchone()[0]
    stamps = sorted(
        list(Person.objects.values_list("slug", "updated_at"))
        + list(Publication.objects.values_list("slug", "updated_at"))
        + list(Event.objects.values_list("slug", "updated_at"))
    )
    return {"counts": counts, "stamps": stamps}


@pytest.mark.parametrize("slug", EXPECTED)
def test_each_member_is_complete(demo_lab, slug):
    person = Person.objects.get(slug=slug)
    publications, education, experience, events, awards = EXPECTED[slug]
    assert Publication.objects.by_person(person).count() == publications
    assert person.education.count() == education
    assert person.experience.count() == experience
    assert person.events.count() == events
    assert person.awards.count() == awards


def test_names_in_every_script_and_pronunciations(demo_lab):
    zhu = Person.objects.get(slug="lei-zhu")
    zuo = Person.objects.get(slug="jingwei-zuo")
    zhou = Person.objects.get(slug="zhongzhu-zhou")
    assert zhu.native_name == "祝磊"
    assert (zuo.native_name, zuo.preferred_name) == ("左京伟", "Chris")
    assert zuo.pronunciation == "/dzwaw Jeeng-way/"
    assert zhou.pronunciation == "/ZHONG-JOO JOH/"
    assert zhou.preferred_name == "Charlie"


def test_seed_003_belongs_to_s_zheng(demo_lab):
    zheng = Person.objects.get(slug="s-zheng")
    assert zheng.organization.name == "New York University"
    hilberta = Publication.objects.get(slug="hilberta")
    first = hilberta.authorships.get(position=1)
    assert first.person == zheng


def test_toma_has_two_co_first_authors_in_order(demo_lab):
    authors = list(
        Publication.objects.get(slug="toma").authorships.order_by("position")
    )
    assert [a.name for a in authors] == [
        "W. Lu",
        "S. Zheng",
        "Y. Xia",
        "S. Wang",
    ]
    assert [a.equal_contribution for a in authors] == [True, True, False, False]
    assert authors[1].person.slug == "s-zheng"


def test_agentverse_keeps_sixteen_authors_and_co_first_marks(demo_lab):
    authors = list(Publication.objects.get(slug="agentverse").authorships.all())
    assert len(authors) == 16
    assert [a.name for a in authors[:3]] == ["Weize Chen", "Yusheng Su", "Jingwei Zuo"]
    assert [a.equal_contribution for a in authors] == [True, True] + [False] * 14
    assert authors[2].person.slug == "jingwei-zuo"
    assert authors[-1].name == "Jie Zhou"


def test_duoattention_lists_the_member_third(demo_lab):
    authors = list(Publication.objects.get(slug="duoattention").authorships.all())
    assert len(authors) == 8
    assert authors[0].name == "Guangxuan Xiao"
    assert authors[2].person.slug == "jingwei-zuo"
    assert [a.person_id is not None for a in authors].count(True) == 1


def test_dates_keep_their_precision_and_open_ends(demo_lab):
    zuo = Person.objects.get(slug="jingwei-zuo")
    google = zuo.experience.get(role__startswith="Student Researcher")
    assert google.period_display == "Sep 2026 – Present"
    cmu = zuo.experience.get(organization__slug="carnegie-mellon-university")
    assert cmu.period_display == "Jul 2024 – Oct 2024"
    talk = Event.objects.get(title__icontains="Efficient Attention Mechanisms")
    assert talk.date_display == "Nov 14, 2024"


def test_verbatim_bibtex_is_kept(demo_lab):
    biformer = Publication.objects.get(slug="biformer")
    assert "google_scholar_id = {d1gkVwhDpl0C}" in biformer.bibtex
    assert biformer.authorships.count() == 5


def test_loading_twice_changes_nothing(demo_lab):
    before = _snapshot()
    call_command("load_demo", verbosity=0)
    assert _snapshot() == before
    assert Person.objects.count() == 4
    assert Authorship.objects.filter(position=1).count() == Publication.objects.count()


def test_shared_records_are_created_once(demo_lab):
    assert Topic.objects.filter(slug="kv-cache-quantization").count() == 1
    assert Organization.objects.filter(slug="university-of-sydney").count() == 1
    assert (
        Publication.objects.get(slug="oscar")
        .topics.filter(slug="kv-cache-quantization")
        .exists()
    )


# -- loading once: `make run` -----------------------------------------------------

BASE_DIR = Path(__file__).resolve().parents[2]


def test_an_edit_survives_the_load_that_make_run_does(demo_lab):
    Person.objects.filter(slug="lei-zhu").update(headline="Edited by staff")
    Publication.objects.filter(slug="toma").update(title="Edited title")
    before = _snapshot()
    out = io.StringIO()
    call_command("load_demo", "--if-missing", stdout=out)
    assert "Demo lab already loaded" in out.getvalue()
    assert _snapshot() == before
    assert Person.objects.get(slug="lei-zhu").headline == "Edited by staff"
    # Asked for explicitly, the demo is loaded again over the edits.
    call_command("load_demo", verbosity=0)
    assert Person.objects.get(slug="lei-zhu").headline != "Edited by staff"
    assert Publication.objects.get(slug="toma").title != "Edited title"


def test_the_load_that_make_run_does_fills_a_database_without_the_demo(db):
    factories.person(slug="someone-else")
    call_command("load_demo", "--if-missing", verbosity=0)
    assert Person.objects.count() == 5
    assert Publication.objects.filter(slug="duoattention").exists()


def _planned(*arguments: str) -> str:
    """The commands `make` would run, without running them."""
    return subprocess.run(
        ["make", "-n", *arguments],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_make_run_and_make_test_load_the_demo_only_when_it_is_missing():
    for target in ("run", "test", "test-fast", "coverage"):
        commands = _planned(target)
        loads = [line for line in commands.splitlines() if "load_demo" in line]
        assert loads and all("--if-missing" in line for line in loads), target


def test_make_run_with_demo_0_serves_a_site_without_the_demo():
    commands = _planned("run", "DEMO=0")
    assert "runserver" in commands and "load_demo" not in commands
