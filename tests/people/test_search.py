import pytest

from people.models import Award, Experience
from search.indexing import deferred
from tests import factories


def _found(client, q: str) -> list[str]:
    response = client.get("/people/", {"q": q})
    assert response.status_code == 200
    return [p.slug for p in response.context["object_list"]]


def test_a_member_is_found_by_their_news(client, demo_lab):
    # Lei Zhu's NeurIPS spotlight on MoE speculative decoding is only in his news.
    assert "lei-zhu" in _found(client, "speculative decoding spotlight")


@pytest.fixture
def member(db):
    return factories.person(slug="ana")


def test_linking_an_event_from_either_side_reindexes_the_member(client, member):
    talk = factories.event(title="Keynote on photonic accelerators")
    talk.people.add(member)
    assert _found(client, "photonic") == ["ana"]
    talk.people.remove(member)
    assert _found(client, "photonic") == []
    member.events.add(talk)
    assert _found(client, "photonic") == ["ana"]
    member.events.clear()
    assert _found(client, "photonic") == []


def test_clearing_an_events_people_reindexes_them(client, member):
    other = factories.person(slug="bo")
    talk = factories.event(title="Photonic accelerators")
    talk.people.set([member, other])
    assert sorted(_found(client, "photonic")) == ["ana", "bo"]
    talk.people.clear()
    assert _found(client, "photonic") == []


def test_editing_or_deleting_an_event_reindexes_its_people(client, member):
    talk = factories.event(title="Photonic accelerators")
    talk.people.add(member)
    talk.title = "Optical interconnects"
    talk.save()
    assert _found(client, "photonic") == []
    assert _found(client, "optical") == ["ana"]
    talk.delete()
    assert _found(client, "optical") == []


def test_deferred_writes_index_the_member_once_at_the_end(client, member):
    with deferred():
        talk = factories.event(title="Photonic accelerators")
        talk.people.add(member)
        assert _found(client, "photonic") == []
    assert _found(client, "photonic") == ["ana"]


def test_an_awards_body_and_detail_count(client, member):
    Award.objects.create(
        person=member, title="Best paper", granting_body="Photonics Society"
    )
    assert _found(client, "photonics") == ["ana"]


def test_a_paper_on_tensor_parallelism_outranks_a_bullet_mentioning_it(
    client, demo_lab
):
    # Zhongzhu Zhou's Ladder-Residual is about overlapping communication under
    # tensor parallelism; Jingwei Zuo's internship compared tensor parallel setups.
    assert _found(client, "tensor parallelism")[:2] == ["zhongzhu-zhou", "jingwei-zuo"]
    data = client.get("/api/people/", {"q": "tensor parallelism"}).json()
    assert [p["slug"] for p in data["results"]][:2] == ["zhongzhu-zhou", "jingwei-zuo"]


@pytest.mark.parametrize(
    ("title", "summary", "bullet", "query"),
    [
        (
            "Ladders for tensor parallelism",
            "Overlapping communication with computation in large model inference.",
            "Tuned tensor parallel layouts for large models.",
            "tensor parallelism",
        ),
        (
            "Faster serving of large models",
            "A router that sends each token to a few experts in mixture of experts.",
            "Built dashboards for mixture of experts training runs.",
            "mixture of experts",
        ),
    ],
)
def test_the_author_of_a_paper_on_a_subject_comes_before_a_bullet_mentioning_it(
    client, db, title, summary, bullet, query
):
    with deferred():
        author = factories.person(slug="author", bio="Works on systems for ML.")
        factories.publication(title=title, summary=summary, authors=[author])
        # A longer document than the other member's (not many times longer: FTS5's
        # length normalisation still lets a much shorter profile win).
        factories.publication(
            title="Compilers for sparse kernels",
            summary="Scheduling sparse matrix kernels on accelerators.",
            authors=[author, "Someone Else"],
        )
        other = factories.person(slug="other")
        Experience.objects.create(person=other, role="Research intern", notes=bullet)
    assert _found(client, query) == ["author", "other"]
