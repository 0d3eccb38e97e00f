"""Who wrote with whom: a member's co-authors and the group's co-authorship network,
laid out for the pictures (core.lib.charts)."""

from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations

from django.db.models import Count

from core.lib.charts import Network, NodeData, ego_network, force_network
from core.paths import slug_path
from people.models import Person
from publications.models import Authorship, Publication

# Beyond these the labels of a picture run into each other; the rest is counted.
PROFILE_COAUTHORS = 24
GROUP_MEMBERS = 50
GROUP_LINKS = 200


@dataclass
class CoauthorPicture:
    network: Network
    people: list[NodeData]  # everyone drawn but the middle, heaviest first
    hidden: int  # how many were left out of the picture

    @property
    def description(self) -> str:
        """The picture in words, for those who cannot see it."""
        center = self.network.nodes[0].label
        most = ", ".join(f"{n.label} ({n.weight})" for n in self.people[:5])
        return (
            f"{center} in the middle of {len(self.people)} co-authors. Most papers "
            f"shared with {most}. The table below lists every co-author drawn."
        )


def _key(person_id: int | None, name: str) -> str:
    """One node per member, and per printed name for anyone else."""
    return f"m{person_id}" if person_id else "n:" + " ".join(name.casefold().split())


def coauthor_picture(
    person: Person, limit: int = PROFILE_COAUTHORS
) -> CoauthorPicture | None:
    """`person` among their co-authors, sized by shared papers (one query)."""
    rows = (
        Authorship.objects.filter(
            publication__in=Publication.objects.filter(
                authorships__person=person
            ).values("pk")
        )
        .order_by("publication_id", "position")
        .values_list("publication_id", "person_id", "person__slug", "name")
    )
    papers: dict[str, set[int]] = defaultdict(set)
    authors: dict[int, set[str]] = defaultdict(set)
    labels: dict[str, tuple[str, str]] = {}
    for publication_id, person_id, slug, name in rows:
        if person_id == person.pk:
            continue
        key = _key(person_id, name)
        papers[key].add(publication_id)
        authors[publication_id].add(key)
        # The first printed form of a name stands for it (ordered rows: stable).
        labels.setdefault(key, (name, slug_path("people:detail", slug) if slug else ""))
    if not papers:
        return None
    everyone = sorted(
        (
            NodeData(key, labels[key][0], len(ids), labels[key][1])
            for key, ids in papers.items()
        ),
        key=lambda n: (-n.weight, n.label.casefold(), n.key),
    )
    drawn = everyone[:limit]
    keys = {n.key for n in drawn}
    center = NodeData("self", person.display_name, len(authors), "")
    links: Counter[tuple[str, str]] = Counter()
    for keys_of_paper in authors.values():
        for pair in combinations(sorted(keys_of_paper & keys), 2):
            links[pair] += 1
    return CoauthorPicture(
        network=ego_network(center, drawn, dict(links)),
        people=drawn,
        hidden=len(everyone) - len(drawn),
    )


@dataclass
class GroupPicture:
    network: Network
    members: list[NodeData]  # drawn, most papers first
    links: list[tuple[str, str, int]]  # drawn: two names and their shared papers
    hidden_members: int
    hidden_links: int


def group_picture(
    members: int = GROUP_MEMBERS, max_links: int = GROUP_LINKS
) -> GroupPicture | None:
    """The members with the most papers and the papers they wrote together."""
    # Counted from the authorships alone (their index covers it), for every
    # author at once: the ranking and how many were left out, in one query.
    counts = (
        Authorship.objects.filter(person__isnull=False)
        .values_list("person_id")
        .annotate(papers=Count("publication", distinct=True))
        .order_by()
    )
    ranked = sorted(counts, key=lambda row: (-row[1], row[0]))
    if not ranked:
        return None
    papers = dict(ranked[:members])
    drawn = Person.objects.filter(pk__in=papers).values_list(
        "pk", "slug", "display_name"
    )
    nodes = sorted(
        (
            NodeData(f"m{pk}", name, papers[pk], slug_path("people:detail", slug))
            for pk, slug, name in drawn
        ),
        key=lambda n: (-n.weight, n.label.casefold(), n.key),
    )
    ids = list(papers)
    pairs = (
        Authorship.objects.filter(
            person__in=ids, publication__authorships__person__in=ids
        )
        .values_list("person_id", "publication__authorships__person_id")
        .annotate(n=Count("publication", distinct=True))
        .order_by()
    )
    all_links = sorted(((f"m{a}", f"m{b}"), n) for a, b, n in pairs if a < b)
    strongest = sorted(all_links, key=lambda item: (-item[1], item[0]))[:max_links]
    links = dict(strongest)
    names = {n.key: n.label for n in nodes}
    return GroupPicture(
        network=force_network(nodes, links),
        members=nodes,
        links=[(names[a], names[b], n) for (a, b), n in strongest],
        hidden_members=len(ranked) - len(nodes),
        hidden_links=len(all_links) - len(strongest),
    )
