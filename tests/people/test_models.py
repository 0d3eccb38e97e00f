import datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from core.dates import Precision
from people.models import Education, Experience, Person, Service
from tests import factories


@pytest.mark.django_db
def test_end_before_start_is_refused_by_validation_and_database():
    person = factories.person()
    org = factories.organization()
    entry = Experience(
        person=person,
        organization=org,
        role="Intern",
        start_date=datetime.date(2024, 5, 1),
        end_date=datetime.date(2023, 1, 1),
    )
    with pytest.raises(ValidationError, match="end date cannot be before the start"):
        entry.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        entry.save()


@pytest.mark.django_db
def test_an_ongoing_range_cannot_also_end():
    entry = Education(
        person=factories.person(),
        organization=factories.organization(),
        degree="PhD",
        start_date=datetime.date(2025, 9, 1),
        end_date=datetime.date(2026, 1, 1),
        is_ongoing=True,
    )
    with pytest.raises(ValidationError, match="ongoing range has no end"):
        entry.full_clean()


@pytest.mark.django_db
def test_duplicate_slug_is_refused():
    factories.person(slug="ada")
    with pytest.raises(IntegrityError), transaction.atomic():
        factories.person(slug="ada")


@pytest.mark.django_db
def test_years_outside_a_sane_range_are_refused():
    service = Service(
        person=factories.person(), kind="reviewer", role="Reviewer", year=3025
    )
    with pytest.raises(ValidationError, match="year"):
        service.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        service.save()


@pytest.mark.django_db
def test_periods_render_at_their_precision():
    entry = Experience(
        person=factories.person(),
        role="Intern",
        start_date=datetime.date(2020, 1, 1),
        start_precision=Precision.YEAR,
        is_ongoing=True,
    )
    assert entry.period_display == "2020 – Present"
    entry.is_ongoing = False
    entry.end_date = datetime.date(2021, 3, 1)
    entry.end_precision = Precision.MONTH
    assert entry.period_display == "2020 – Mar 2021"


@pytest.mark.django_db
def test_initials_stand_in_for_a_missing_photo():
    person = factories.person(given_name="Lei", family_name="Zhu")
    assert person.initials == "LZ"
    assert not person.photo_thumbnail


@pytest.mark.parametrize(
    ("native", "lang"),
    [
        ("祝磊", "zh"),
        ("左京伟", "zh"),
        ("やまだ たろう", "ja"),
        ("山田 タロウ", "ja"),
        ("김민준", "ko"),
        ("Müller", ""),
        ("", ""),
    ],
)
def test_a_native_names_language_follows_its_script(native, lang):
    assert Person(native_name=native).native_name_lang == lang


def test_a_position_title_that_repeats_the_role_is_shown_once():
    same = Person(
        role="senior_research_scientist", position_title="Senior Research Scientist"
    )
    other = Person(
        role="phd_student", position_title="2nd-year Ph.D., Computer Science"
    )
    assert same.titles == ["Senior research scientist"]
    assert other.titles == ["PhD student", "2nd-year Ph.D., Computer Science"]


@pytest.mark.django_db
def test_orcid_pasted_as_a_link_is_stored_in_its_short_form():
    person = factories.person()
    person.orcid = "https://orcid.org/0000-0002-1825-0097"
    person.full_clean()
    person.save()
    person.refresh_from_db()
    assert person.orcid == "0000-0002-1825-0097"


@pytest.mark.django_db
def test_orcid_with_a_wrong_check_digit_is_refused_and_not_saved():
    person = factories.person()
    person.orcid = "0000-0002-1825-0098"
    with pytest.raises(ValidationError) as error:
        person.full_clean()
    assert "check digit" in str(error.value.message_dict["orcid"])
    with pytest.raises(ValidationError), transaction.atomic():
        person.save()
    person.refresh_from_db()
    assert person.orcid == ""


@pytest.mark.django_db
def test_orcid_is_unique_but_many_members_may_have_none():
    factories.person(orcid="0000-0002-1825-0097")
    factories.person(), factories.person()
    other = Person(
        given_name="B",
        family_name="C",
        display_name="B C",
        slug="b-c",
        role="postdoc",
        orcid="https://orcid.org/0000-0002-1825-0097",
    )
    with pytest.raises(ValidationError, match="Another member has this ORCID iD"):
        other.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        other.save()


@pytest.mark.django_db
def test_openalex_author_id_is_shortened_and_must_name_an_author():
    person = factories.person(openalex_id="https://openalex.org/A5023888391")
    person.refresh_from_db()
    assert person.openalex_id == "A5023888391"
    person.openalex_id = "W2741809807"
    with pytest.raises(ValidationError, match="OpenAlex id"):
        person.full_clean()


@pytest.mark.django_db
def test_education_and_experience_rows_default_to_entered_by_hand():
    person = factories.person()
    row = Education.objects.create(
        person=person, organization=factories.organization(), degree="PhD"
    )
    assert (row.source, row.source_id, row.retrieved_at) == ("manual", "", None)
