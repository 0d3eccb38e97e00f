import datetime

from django.core.management import call_command

from people.connections import coauthor_path, connection_between
from people.models import Education, Person, SimilarPerson, StaleSimilarity
from people.similarity import compute_similar, recompute_stale, similar_people
from tests import factories


def test_similar_members_come_with_reasons_in_words(lab):
    compute_similar()
    rows = similar_people(lab["ana"])
    assert [r.other.slug for r in rows][:2] == ["bo", "cy"]
    assert rows[0].reason_text == (
        "3 shared papers · shared topics: Quantization, KV cache"
        " · both at Rice University"
    )
    assert rows[1].reason_text == "shared topic: KV cache"


def test_one_shared_paper_is_said_in_the_singular(lab):
    compute_similar()
    rows = {r.other.slug: r for r in similar_people(lab["cy"])}
    assert rows["bo"].reason_text.startswith("1 shared paper · ")
    assert "shared topic: KV cache" in rows["bo"].reason_text


def test_both_at_only_where_both_are_there_now(lab):
    # cy studied at Rice once; ana is there now: they have both been there.
    Education.objects.create(
        person=lab["cy"],
        organization=lab["ana"].organization,
        degree="B.Sc.",
        start_date=datetime.date(2001, 1, 1),
        end_date=datetime.date(2004, 1, 1),
    )
    compute_similar()
    rows = {r.other.slug: r for r in similar_people(lab["ana"])}
    assert "both at" not in rows["cy"].reason_text
    assert "both have been at Rice University" in rows["cy"].reason_text
    assert "both at Rice University" in rows["bo"].reason_text


def test_the_demo_lab_names_shared_topics_and_claims_nothing_false(demo_lab):
    # Its four members share no paper and no organisation.
    compute_similar()
    for person in Person.objects.all():
        rows = similar_people(person)
        assert rows
        for row in rows:
            assert row.reason_text.startswith("shared topic")
            assert "paper" not in row.reason_text
            assert "both" not in row.reason_text


def test_only_current_members_are_listed_and_never_oneself(lab):
    compute_similar()
    listed = set(SimilarPerson.objects.values_list("other__slug", flat=True))
    assert "al" not in listed
    assert not SimilarPerson.objects.filter(person_id=lab["ana"].pk, other=lab["ana"])
    # An alumnus still gets current members like them.
    assert [r.other.slug for r in similar_people(lab["al"])][:2] == ["ana", "bo"]


def test_members_with_nothing_in_common_are_not_listed(lab):
    compute_similar()
    assert "ana" not in [r.other.slug for r in similar_people(lab["ed"])]


def test_at_most_five_are_listed_in_rank_order(db):
    topic = factories.topic()
    people = [factories.person() for _ in range(8)]
    for person in people:
        person.topics.set([topic])
    compute_similar()
    rows = similar_people(people[0])
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5]
    assert [r.score for r in rows] == sorted((r.score for r in rows), reverse=True)


def test_a_write_marks_the_list_stale_and_the_next_read_recomputes_it(lab):
    compute_similar()
    assert not StaleSimilarity.objects.exists()
    lab["ed"].topics.add(*lab["ana"].topics.all())
    # Ed's own list, and the lists that name Ed, are stale now.
    stale = set(StaleSimilarity.objects.values_list("person__slug", flat=True))
    assert {"ed", "di"} <= stale
    assert "ana" in [r.other.slug for r in similar_people(lab["ed"])]
    assert not StaleSimilarity.objects.filter(person=lab["ed"]).exists()


def test_with_background_work_a_stale_list_is_shown_until_the_warm_up_recomputes_it(
    lab, settings
):
    settings.WARM_CACHE_AFTER_WRITE = True
    compute_similar()
    before = [r.other.slug for r in similar_people(lab["ed"])]
    lab["ed"].topics.add(*lab["ana"].topics.all())
    # The read serves the previous list at once, with no recomputation.
    assert [r.other.slug for r in similar_people(lab["ed"])] == before
    assert StaleSimilarity.objects.filter(person=lab["ed"]).exists()
    recompute_stale()  # what the background warm-up after the commit runs
    assert not StaleSimilarity.objects.exists()
    assert "ana" in [r.other.slug for r in similar_people(lab["ed"])]


def test_a_new_member_gets_a_list_on_first_read(lab):
    compute_similar()
    newcomer = factories.person(slug="new")
    newcomer.topics.set(lab["ana"].topics.all())
    assert [r.other.slug for r in similar_people(newcomer)][:2] == ["ana", "bo"]


def test_deleting_a_member_marks_the_lists_naming_them_stale(lab):
    compute_similar()
    bo = lab["bo"].pk
    lab["bo"].delete()
    assert StaleSimilarity.objects.filter(person=lab["ana"]).exists()
    assert not StaleSimilarity.objects.filter(person_id=bo).exists()
    assert "bo" not in [r.other.slug for r in similar_people(lab["ana"])]


def test_rebuild_search_index_recomputes_similar_members(lab, capsys):
    SimilarPerson.objects.all().delete()
    call_command("rebuild_search_index")
    assert "similar members" in capsys.readouterr().out
    assert SimilarPerson.objects.filter(person=lab["ana"]).count() >= 2
    assert not StaleSimilarity.objects.exists()


def test_compute_similar_command(lab, capsys):
    call_command("compute_similar")
    assert capsys.readouterr().out.startswith("Computed ")
    assert SimilarPerson.objects.filter(person=lab["ana"]).exists()


def test_the_coauthor_path_takes_the_fewest_steps(lab):
    ids = {slug: p.pk for slug, p in lab.items()}
    direct = coauthor_path(ids["ana"], ids["bo"])
    assert [(s.person.slug, s.other.slug, s.paper_count) for s in direct] == [
        ("ana", "bo", 3)
    ]
    two = coauthor_path(ids["ana"], ids["cy"])
    assert [(s.person.slug, s.other.slug) for s in two] == [("ana", "bo"), ("bo", "cy")]
    three = coauthor_path(ids["ana"], ids["di"])
    assert [s.other.slug for s in three] == ["bo", "cy", "di"]
    assert three[1].papers[0].authorships.filter(person=lab["cy"]).exists()
    # Four papers apart is too far.
    assert coauthor_path(ids["ana"], ids["ed"]) == []
    assert coauthor_path(ids["ana"], ids["al"]) == []


def test_the_connection_lists_papers_topics_and_places_with_their_overlap(lab):
    rice = lab["ana"].organization
    for slug, start, end in [("ana", 2015, 2021), ("bo", 2019, 2024)]:
        Education.objects.create(
            person=lab[slug],
            organization=factories.organization(name=f"School of {slug}"),
            degree="B.Sc.",
        )
        Education.objects.create(
            person=lab[slug],
            organization=rice,
            degree="Ph.D.",
            start_date=datetime.date(start, 9, 1),
            end_date=datetime.date(end, 6, 1),
        )
    connection = connection_between(lab["ana"], lab["bo"])
    assert connection.shared_paper_count == 3
    assert [t.name for t in connection.shared_topics] == ["KV cache", "Quantization"]
    assert [(p.organization.name, p.together) for p in connection.places] == [
        ("Rice University", "now")
    ]
    Person.objects.filter(pk=lab["bo"].pk).update(organization=None)
    lab["bo"].refresh_from_db()
    places = connection_between(lab["ana"], lab["bo"]).places
    assert [(p.organization.name, p.together) for p in places] == [
        ("Rice University", "2019 – 2021")
    ]


def test_places_at_different_times_say_so(lab):
    Person.objects.filter(pk__in=[lab["di"].pk, lab["cy"].pk]).update(organization=None)
    org = factories.organization(name="Old Lab")
    for slug, year in [("cy", 2001), ("di", 2010)]:
        Education.objects.create(
            person=lab[slug],
            organization=org,
            degree="M.Sc.",
            start_date=datetime.date(year, 1, 1),
            end_date=datetime.date(year + 2, 1, 1),
        )
    cy, di = Person.objects.get(slug="cy"), Person.objects.get(slug="di")
    places = connection_between(cy, di).places
    assert [(p.organization.name, p.overlap) for p in places] == [("Old Lab", False)]
