import pytest

from people.models import Person
from tests import factories


@pytest.fixture
def lab(db, restore):
    return restore(_lab)


def _lab() -> dict[str, Person]:
    """A constructed lab: a KV-cache trio at Rice, a vision pair, an alumnus, and
    a co-author chain ana — bo — cy — di — ed."""
    ml = factories.topic(name="Efficient machine learning", slug="eml")
    quant = factories.topic(name="Quantization", slug="quant", parent=ml)
    kv = factories.topic(name="KV cache", slug="kv", parent=ml)
    vision = factories.topic(name="Computer vision", slug="cv")
    rice = factories.organization(name="Rice University", slug="rice")
    elsewhere = factories.organization(name="Elsewhere Institute", slug="else")
    p = {}
    for slug, topics, org in [
        ("ana", [quant, kv], rice),
        ("bo", [quant, kv], rice),
        ("cy", [kv], elsewhere),
        ("di", [vision], elsewhere),
        ("ed", [vision], None),
    ]:
        p[slug] = factories.person(
            slug=slug, display_name=slug.title(), organization=org
        )
        p[slug].topics.set(topics)
    p["al"] = factories.person(slug="al", status=Person.Status.ALUMNI)
    p["al"].topics.set([quant, kv])
    for _ in range(3):
        factories.publication(authors=[p["ana"], p["bo"], "Outsider"])
    factories.publication(authors=[p["bo"], p["cy"]])
    factories.publication(authors=[p["cy"], p["di"]])
    factories.publication(authors=[p["di"], p["ed"]])
    return p
