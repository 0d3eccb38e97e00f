from core.slugs import unique_slug


def test_unique_slug_numbers_a_taken_slug_and_takes_it() -> None:
    taken = {"deep-learning"}
    assert unique_slug("Deep Learning", taken, 120) == "deep-learning-2"
    assert unique_slug("Deep learning!", taken, 120) == "deep-learning-3"
    assert taken == {"deep-learning", "deep-learning-2", "deep-learning-3"}


def test_unique_slug_leaves_room_for_the_number_within_the_limit() -> None:
    slug = unique_slug("x" * 300, set(), 20)
    assert slug == "x" * 12


def test_unique_slug_of_a_text_with_nothing_to_slugify() -> None:
    assert unique_slug("…", set(), 120) == "publication"
