import pytest
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from django.urls import reverse

from jobs.models import Job
from jobs.registry import get_kind
from sources.models import Candidate
from tests import factories

pytestmark = pytest.mark.django_db

ORCID = "0000-0002-1825-0097"
SYNC = reverse("admin:jobs_job_start", args=["sources.sync_person"])
# Jobs are sent to the broker when the request's writes commit: these tests commit.
committing = pytest.mark.django_db(transaction=True)


@pytest.fixture
def orcid(source_server, settings):
    """ORCID (and OpenAlex) served from recorded responses on loopback."""
    settings.ORCID_API_URL = source_server.url
    settings.OPENALEX_API_URL = source_server.url
    source_server.add(f"/{ORCID}/record", "orcid_record.json")
    return source_server


@pytest.fixture
def editor(client, django_user_model):
    user = django_user_model.objects.create_user(
        "editor", password="a-long-test-password", is_staff=True
    )
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["change_person", "view_person"])
    )
    client.force_login(user)
    return user


def test_a_members_page_offers_sync_now_only_when_connected_to_a_source(client, editor):
    connected = factories.person(orcid=ORCID)
    unconnected = factories.person()

    def page(person) -> str:
        url = reverse("admin:people_person_change", args=[person.pk])
        return client.get(url).content.decode()

    assert ">Sync from ORCID and OpenAlex</button>" in page(connected)
    assert f'name="target" value="{connected.pk}"' in page(connected)
    assert "Sync from ORCID" not in page(unconnected)


@committing
def test_sync_now_runs_the_members_sync_as_a_job_and_shows_its_report(
    client, editor, orcid
):
    person = factories.person(orcid=ORCID, display_name="Josiah Carberry")

    response = client.post(SYNC, {"target": person.pk})

    job = Job.objects.get()
    assert response.url == job.get_absolute_url()
    assert (job.kind, job.state, job.requested_by) == (
        "sources.sync_person",
        Job.State.DONE,
        editor,
    )
    assert job.summary.startswith("Josiah Carberry: ")
    assert job.done == job.total > 0
    assert Candidate.objects.exists()
    page = client.get(response.url).content.decode()
    assert "Sync from ORCID and OpenAlex of Josiah Carberry is done." in page


@committing
def test_a_sync_whose_source_fails_ends_as_a_failed_job_with_the_report(
    client, editor, orcid
):
    person = factories.person(orcid="0000-0001-5109-3700")

    client.post(SYNC, {"target": person.pk})

    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert "1 error" in job.error
    assert "404" in job.error


def test_syncing_everyone_goes_member_by_member_and_reports_every_failure(orcid):
    factories.person(orcid=ORCID, slug="a-carberry")
    factories.person(orcid="0000-0001-5109-3700", slug="b-missing")
    factories.person(slug="c-unconnected")

    get_kind("sources.sync_all").task.apply()

    job = Job.objects.get()
    assert (job.state, job.done, job.total) == (Job.State.FAILED, 2, 2)
    assert job.error.startswith("2 members: ")
    assert "1 error" in job.error.splitlines()[0]
    assert job.requested_by is None


def test_the_schedule_names_tasks_that_exist(settings):
    from directory.celery import app

    app.loader.import_default_modules()  # as a worker and beat do when they start
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in app.tasks
    assert settings.CELERY_BEAT_SCHEDULE["sync-sources-daily"]["task"] == (
        "sources.sync_all"
    )


def test_sync_sources_queue_puts_the_sync_on_the_queue(orcid, capsys):
    factories.person(orcid=ORCID, slug="carberry")

    call_command("sync_sources", "--queue", "--person", "carberry")

    job = Job.objects.get()
    assert job.kind == "sources.sync_person"
    assert "Sync from ORCID and OpenAlex of " in capsys.readouterr().out


def test_sync_sources_queue_without_a_broker_syncs_here_and_says_so(
    orcid, no_broker, capsys
):
    factories.person(orcid=ORCID, slug="carberry")

    call_command("sync_sources", "--queue")

    out = capsys.readouterr().out
    assert out.startswith("No job queue is configured (CELERY_BROKER_URL): syncing")
    assert not Job.objects.exists()
    assert Candidate.objects.exists()


@committing
def test_sync_sources_queue_with_the_broker_down_keeps_the_job(
    orcid, broker_down, capsys
):
    factories.person(orcid=ORCID, slug="carberry")

    call_command("sync_sources", "--queue")

    assert Job.objects.get().state == Job.State.UNAVAILABLE
    assert capsys.readouterr().out.startswith("The job queue is unavailable: ")


def test_sync_sources_names_an_unknown_member():
    with pytest.raises(CommandError, match="No member has the slug 'nobody'"):
        call_command("sync_sources", "--queue", "--person", "nobody")
