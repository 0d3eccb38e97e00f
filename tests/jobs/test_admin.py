import time
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.template import Context, Template
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from jobs.models import Job
from people.models import Person
from tests import factories
from tests.jobs.conftest import finished

pytestmark = pytest.mark.django_db

START = reverse("admin:jobs_job_start", args=["tests.count_initials"])
SLOW_START = reverse("admin:jobs_job_start", args=["tests.slow"])


@pytest.fixture
def editor(client, django_user_model):
    """Staff who may change members (and so sync them), but not see every job."""
    user = django_user_model.objects.create_user(
        "editor", password="a-long-test-password", is_staff=True
    )
    user.user_permissions.add(Permission.objects.get(codename="change_person"))
    client.force_login(user)
    return user


# Jobs are sent to the broker when the request's writes commit: these tests commit.
committing = pytest.mark.django_db(transaction=True)


def _messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


@committing
def test_starting_a_job_shows_its_page_with_the_outcome(client, editor):
    person = factories.person(display_name="Grace Hopper")

    response = client.post(START, {"target": person.pk})

    job = Job.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("admin:jobs_job_change", args=[job.pk])
    page = client.get(response.url)
    assert page.status_code == 200
    assert _messages(page) == [f"Count initials of Grace Hopper is done. {job.summary}"]
    assert job.requested_by == editor
    person_url = reverse("admin:people_person_change", args=[person.pk])
    assert f'<a href="{person_url}">Grace Hopper</a>' in page.content.decode()
    assert b'http-equiv="refresh"' not in page.content
    assert "no-store" in page["Cache-Control"]


@committing
def test_a_queued_job_page_shows_progress_and_reloads_itself(
    client, editor, redis_queue
):
    person = factories.person(display_name="Grace Hopper")
    response = client.post(START, {"target": person.pk})
    Job.objects.update(done=1, total=4, message="Fetching works")

    page = client.get(response.url)

    html = page.content.decode()
    assert _messages(page) == ["Count initials of Grace Hopper is queued."]
    assert '<meta http-equiv="refresh" content="3">' in html
    assert '<progress max="4" value="1">25 %</progress>' in html
    assert "1 of 4: Fetching works" in html


@committing
def test_asking_twice_says_the_work_is_already_queued(client, editor, redis_queue):
    person = factories.person(display_name="Grace Hopper")
    client.get(client.post(START, {"target": person.pk}).url)

    response = client.post(START, {"target": person.pk})

    assert Job.objects.count() == 1
    assert _messages(client.get(response.url)) == [
        "Count initials of Grace Hopper was already queued."
    ]


@committing
def test_with_the_broker_unreachable_the_admin_says_so_and_keeps_the_job(
    client, editor, broker_down
):
    person = factories.person(display_name="Grace Hopper")

    response = client.post(START, {"target": person.pk})
    page = client.get(response.url)

    assert page.status_code == 200
    assert _messages(page) == [
        "The job queue is unavailable: Count initials of Grace Hopper is kept and "
        "will be queued as soon as the queue is back."
    ]
    assert Job.objects.get().state == Job.State.UNAVAILABLE
    assert "Waiting for the job queue" in page.content.decode()


@committing
def test_without_a_broker_a_slow_job_runs_behind_a_page_that_follows_it(
    client, editor, no_broker, slow_source
):
    person = factories.person(display_name="Grace Hopper")

    began = time.monotonic()
    response = client.post(SLOW_START, {"target": person.pk})
    assert time.monotonic() - began < 1  # not held until the source answers

    page = client.get(response.url)
    assert _messages(page) == [
        "No job queue is configured, so Slow sync of Grace Hopper runs in the "
        "background of this server; this page follows it."
    ]
    assert b'http-equiv="refresh"' in page.content
    slow_source.set()
    job = finished(Job.objects.get())
    assert job.state == Job.State.DONE
    assert (
        "The source answered for Grace Hopper."
        in client.get(response.url).content.decode()
    )


def test_the_job_list_and_page_mark_failed_a_job_whose_process_ended(
    admin_client_logged_in,
):
    job = Job.objects.create(
        kind="tests.slow",
        target="1",
        state=Job.State.RUNNING,
        started_at=timezone.now() - timedelta(minutes=5),
        heartbeat_at=timezone.now() - timedelta(minutes=2),
    )
    html = admin_client_logged_in.get(reverse("admin:jobs_job_changelist")).content
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert ">Failed<" in html.decode()

    Job.objects.filter(pk=job.pk).update(state=Job.State.RUNNING)
    page = admin_client_logged_in.get(job.get_absolute_url()).content.decode()
    assert "No progress for over 1 minute: the process running it ended" in page


@committing
def test_a_failed_job_is_reported_as_an_error(admin_client_logged_in):
    person = factories.person(display_name="Grace Hopper")
    url = reverse("admin:jobs_job_start", args=["tests.fail"])

    response = admin_client_logged_in.post(url, {"target": person.pk})

    page = admin_client_logged_in.get(response.url)
    assert _messages(page) == [
        "Fail of Grace Hopper failed: RuntimeError: the source answered 503"
    ]
    assert '<p class="errornote">RuntimeError' in page.content.decode()


def test_starting_needs_the_kinds_permission_and_writes_nothing_without_it(
    client, django_user_model
):
    user = django_user_model.objects.create_user(
        "viewer", password="a-long-test-password", is_staff=True
    )
    client.force_login(user)

    response = client.post(START, {"target": factories.person().pk})

    assert response.status_code == 403
    assert not Job.objects.exists()


@pytest.mark.parametrize("target", ["", "abc", "999999"])
def test_a_missing_or_malformed_target_is_not_found(client, editor, target):
    assert client.post(START, {"target": target}).status_code == 404
    assert not Job.objects.exists()


def test_an_unknown_kind_is_not_found_and_a_get_is_refused(client, editor):
    unknown = reverse("admin:jobs_job_start", args=["tests.nothing"])
    assert client.post(unknown).status_code == 404
    assert client.get(START).status_code == 405


def test_a_kind_that_does_not_apply_to_the_record_starts_nothing(client, editor):
    alumna = factories.person(status=Person.Status.ALUMNI)

    response = client.post(START, {"target": alumna.pk}, follow=True)

    assert response.redirect_chain[0][0] == reverse(
        "admin:people_person_change", args=[alumna.pk]
    )
    assert "does not apply to" in _messages(response)[0]
    assert not Job.objects.exists()


def test_staff_follow_their_own_jobs_but_not_others(client, editor, admin_user):
    own = Job.objects.create(kind="tests.count_initials", requested_by=editor)
    other = Job.objects.create(
        kind="tests.count_initials", target="2", requested_by=admin_user
    )

    assert client.get(own.get_absolute_url()).status_code == 200
    assert client.get(other.get_absolute_url()).status_code == 403


def test_the_job_list_takes_a_fixed_number_of_queries(
    admin_client_logged_in, admin_user, django_assert_num_queries
):
    for n in range(5):
        Job.objects.create(
            kind="tests.count_initials",
            target=str(n),
            target_label=f"Member {n}",
            requested_by=admin_user,
            done=n,
            total=5,
        )
    url = reverse("admin:jobs_job_changelist")
    admin_client_logged_in.get(url)

    with django_assert_num_queries(7):
        response = admin_client_logged_in.get(url)

    html = response.content.decode()
    assert html.count("<progress") == 5
    assert "Member 4" in html
    # Kinds without a target can be started from the list by superusers.
    assert ">Rebuild the search index</button>" in html


def test_the_start_button_shows_only_to_who_may_start_on_what_it_applies_to(
    editor, django_user_model
):
    template = Template(
        "{% load jobs %}{% job_start_button 'tests.count_initials' person %}"
    )
    current = factories.person()
    alumna = factories.person(status=Person.Status.ALUMNI)
    viewer = django_user_model.objects.create_user("viewer", is_staff=True)

    def render(user, person) -> str:
        request = RequestFactory().get("/")
        request.user = user
        return template.render(Context({"request": request, "person": person}))

    button = render(editor, current)
    assert f'action="{START}"' in button
    assert f'name="target" value="{current.pk}"' in button
    assert render(editor, alumna) == ""
    assert render(viewer, current) == ""


def test_a_job_page_takes_a_fixed_number_of_queries(
    admin_client_logged_in, admin_user, django_assert_num_queries
):
    person = factories.person(display_name="Grace Hopper")
    job = Job.objects.create(
        kind="tests.count_initials",
        target=str(person.pk),
        target_label="Grace Hopper",
        requested_by=admin_user,
        done=2,
        total=3,
    )
    admin_client_logged_in.get(job.get_absolute_url())

    with django_assert_num_queries(5):
        response = admin_client_logged_in.get(job.get_absolute_url())

    assert '<progress max="3" value="2">67 %</progress>' in response.content.decode()
