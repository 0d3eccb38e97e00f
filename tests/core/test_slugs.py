import pytest
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from core.slugs import RESERVED, slug_of, unique_slug


def test_unique_slug_numbers_a_taken_slug_and_takes_it() -> None:
    taken = {"deep-learning"}
    assert unique_slug("Deep Learning", taken, 120, fallback="x") == "deep-learning-2"
    assert unique_slug("Deep learning!", taken, 120, fallback="x") == "deep-learning-3"
    assert taken == {"deep-learning", "deep-learning-2", "deep-learning-3"}


def test_unique_slug_leaves_room_for_the_number_within_the_limit() -> None:
    slug = unique_slug("x" * 300, set(), 20, fallback="x")
    assert slug == "x" * 12


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("祝磊", "zhu-lei"),
        ("Лев Толстой", "lev-tolstoy"),
        ("Γιώργος Παπαδόπουλος", "giorgos-papadopoylos"),
        ("محمد علي", "mhmd-ly"),
        ("박민아", "bag-min-a"),
        ("Zoë Ødegård", "zoe-odegard"),
        ("Jean-Luc O'Neil", "jean-luc-oneil"),
    ],
)
def test_a_name_in_any_script_is_transliterated(name: str, slug: str) -> None:
    assert unique_slug(name, set(), 120, fallback="0000-0002-1825-0097") == slug


@pytest.mark.parametrize("text", ["😀🎉", "…!?", "", "★ ☆"])
def test_a_text_with_nothing_to_spell_takes_the_records_id(text: str) -> None:
    taken: set[str] = set()
    assert unique_slug(text, taken, 120, fallback="0000-0002-1825-0097") == (
        "0000-0002-1825-0097"
    )
    assert unique_slug(text, taken, 120, fallback="0000-0002-1825-0097") == (
        "0000-0002-1825-0097-2"
    )


@pytest.mark.parametrize("word", ["Export", "new", "feed", "network", "api"])
def test_a_word_of_the_sites_urls_is_suffixed(word: str) -> None:
    assert unique_slug(word, set(), 120, fallback="x") == f"{word.lower()}-2"


def _literal_words(resolver: URLResolver, prefix: str = "") -> set[str]:
    """The words of every route beside or above a slug route, as each level of
    the URLconf spells them ("export.bib": export and bib)."""
    words: set[str] = set()
    for pattern in resolver.url_patterns:
        route = str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            if route in ("admin/", "api/"):
                # Their own routes (the API's by regex) lie under that word alone.
                words.add(route.strip("/"))
                continue
            words |= _literal_words(pattern, prefix + route)
        if isinstance(pattern, URLPattern | URLResolver) and not route.startswith("<"):
            first = route.split("/")[0]
            words |= {w for w in first.replace(".", " ").split() if w}
    return words


def test_every_word_of_the_urlconf_is_reserved() -> None:
    assert _literal_words(get_resolver()) <= RESERVED
    assert {"admin", "api", "export", "new", "edit", "feed", "search"} <= RESERVED


@pytest.mark.parametrize("word", sorted(RESERVED))
def test_the_slug_made_of_a_reserved_word_reaches_each_detail_page(word) -> None:
    slug = unique_slug(word, set(), 120, fallback="x")
    for prefix, name in (
        ("/people/", "people:detail"),
        ("/publications/", "publications:detail"),
        ("/events/", "events:detail"),
        ("/topics/", "topic-detail"),
    ):
        assert resolve(f"{prefix}{slug}/").view_name == name
    assert resolve(f"/publications/{slug}.bib").view_name == "publications:bibtex"
    assert slug_of(slug) == slug
