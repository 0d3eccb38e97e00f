"""Which current members are most like a member, and why, computed in bulk.

A member is described by four things: their topics (research interests, and their
papers' topics at a lower weight, each also counting toward the topics above it),
their co-authors, the organisations they have been at (current, education,
experience) and the words of their search document (TF-IDF). The first, third and
fourth are unit vectors side by side in one matrix, so one product of it with its
transpose gives the weighted sum of three cosines for a block of members at once;
shared papers are added from a count of co-authored papers per pair.
"""

import math
import string
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import IntegrityError, transaction

from core.bulk import insert_rows
from core.cache import invalidate
from core.models import Organization, Topic, TopicClosure
from people.models import (
    Education,
    Experience,
    Person,
    PersonSearchDocument,
    SimilarPerson,
    StaleSimilarity,
)
from publications.models import Authorship, Publication

LISTED = 5
WEIGHTS = {"topics": 0.45, "papers": 0.25, "organizations": 0.15, "words": 0.15}
# A paper's topic counts less than a stated interest, and a topic above one less
# again for every step up the tree.
PAPER_TOPIC = 0.5
ANCESTOR_DECAY = 0.5
# Enough words to tell fields apart; a word in one document only, or in more than
# half of them, tells no two members apart.
MAX_WORDS = 1024
BLOCK = 1000
SHOWN_TOPICS = SHOWN_ORGANIZATIONS = 2
SHOWN_WORDS = 3
# Punctuation splits words, as the search query parser does.
_SPACES = str.maketrans(dict.fromkeys(string.punctuation + "“”‘’–—·…", " "))
STOPWORDS = frozenset(
    "the and for with from that this are was were into our their its has have "
    "been can not but which when where what how also using use used based via "
    "over under between more than such these those they them each other new "
    "who his her all any one two three we us on in of to by at as an is it "
    "paper papers report gains study".split()
)


@dataclass
class Features:
    """Every member's description, one row per member in `ids` order."""

    ids: list[int]
    row: dict[int, int]
    current: np.ndarray
    topics: np.ndarray
    topic_ids: list[int]
    ancestors: dict[int, set[int]]
    organizations: np.ndarray
    organization_ids: list[int]
    # Per member, the organisations they are at now (current, or an ongoing stint).
    there_now: dict[int, set[int]]
    words: np.ndarray
    vocabulary: list[str]
    shared_papers: dict[int, Counter]

    def matrix(self) -> np.ndarray:
        """The unit-vector blocks, each scaled by the square root of its weight."""
        blocks = [
            math.sqrt(WEIGHTS[name]) * _unit_rows(block)
            for name, block in (
                ("topics", self.topics),
                ("organizations", self.organizations),
                ("words", self.words),
            )
        ]
        return np.hstack(blocks).astype(np.float32)


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def load_features() -> Features:
    """Read what describes every member, in a fixed number of queries."""
    people = list(
        Person.objects.order_by("pk").values_list("pk", "status", "organization_id")
    )
    ids = [pk for pk, _, _ in people]
    row = {pk: i for i, pk in enumerate(ids)}
    current = np.array([status == Person.Status.CURRENT for _, status, _ in people])
    authored = defaultdict(list)
    for publication_id, person_id in Authorship.objects.filter(
        person__isnull=False
    ).values_list("publication_id", "person_id"):
        authored[publication_id].append(person_id)
    topics, topic_ids, ancestors = _topic_vectors(row, authored)
    organizations, organization_ids, there_now = _organization_vectors(row, people)
    words, vocabulary = _word_vectors(row)
    return Features(
        ids=ids,
        row=row,
        current=current,
        topics=topics,
        topic_ids=topic_ids,
        ancestors=ancestors,
        organizations=organizations,
        organization_ids=organization_ids,
        there_now=there_now,
        words=words,
        vocabulary=vocabulary,
        shared_papers=_shared_papers(authored),
    )


def _topic_vectors(row: dict[int, int], authored: dict[int, list[int]]):
    up: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for ancestor, descendant, depth in TopicClosure.objects.values_list(
        "ancestor_id", "descendant_id", "depth"
    ):
        up[descendant].append((ancestor, depth))
    topic_ids = sorted(Topic.objects.values_list("pk", flat=True))
    column = {pk: i for i, pk in enumerate(topic_ids)}
    weights: dict[tuple[int, int], float] = defaultdict(float)
    for person_id, topic_id in Person.topics.through.objects.values_list(
        "person_id", "topic_id"
    ):
        weights[person_id, topic_id] += 1.0
    on_papers: Counter = Counter()
    for publication_id, topic_id in Publication.topics.through.objects.values_list(
        "publication_id", "topic_id"
    ):
        for person_id in authored.get(publication_id, ()):
            on_papers[person_id, topic_id] += 1
    for key, papers in on_papers.items():
        weights[key] += PAPER_TOPIC * math.log1p(papers)
    vectors = np.zeros((len(row), len(topic_ids)))
    rows, columns, values = [], [], []
    for (person_id, topic_id), weight in weights.items():
        for ancestor, depth in up.get(topic_id, [(topic_id, 0)]):
            rows.append(row[person_id])
            columns.append(column[ancestor])
            values.append(weight * ANCESTOR_DECAY**depth)
    np.add.at(vectors, (rows, columns), values)
    # A topic most members share (the root of the lab's field) tells little.
    holders = np.count_nonzero(vectors, axis=0)
    vectors *= np.log1p(len(row) / np.maximum(holders, 1))
    ancestors = {t: {a for a, depth in pairs if depth} for t, pairs in up.items()}
    return vectors, topic_ids, ancestors


def _organization_vectors(row: dict[int, int], people: list[tuple]):
    pairs = {(pk, org) for pk, _, org in people if org}
    there_now: dict[int, set[int]] = defaultdict(set)
    for pk, org in pairs:
        there_now[pk].add(org)
    for model in (Education, Experience):
        for pk, org, ongoing in model.objects.filter(
            organization__isnull=False
        ).values_list("person_id", "organization_id", "is_ongoing"):
            pairs.add((pk, org))
            if ongoing:
                there_now[pk].add(org)
    organization_ids = sorted({org for _, org in pairs})
    column = {pk: i for i, pk in enumerate(organization_ids)}
    vectors = np.zeros((len(row), len(organization_ids)))
    for person_id, org in pairs:
        vectors[row[person_id], column[org]] = 1.0
    return vectors, organization_ids, there_now


def _word_vectors(row: dict[int, int]):
    """TF-IDF of the words of every member's search document but their names."""
    counts: dict[int, Counter] = {}
    for person_id, topics, body, extra in PersonSearchDocument.objects.values_list(
        "person_id", "topics", "body", "extra"
    ):
        words = f"{topics}\n{body}\n{extra}".casefold().translate(_SPACES).split()
        counts[person_id] = Counter(
            w for w in words if len(w) > 2 and w.isalpha() and w not in STOPWORDS
        )
    frequency = Counter(w for c in counts.values() for w in c)
    most = max(2, len(counts) // 2)
    kept = [w for w, n in frequency.most_common() if 2 <= n <= most][:MAX_WORDS]
    column = {w: i for i, w in enumerate(kept)}
    vectors = np.zeros((len(row), len(kept)))
    for person_id, words in counts.items():
        for word, n in words.items():
            if word in column and person_id in row:
                idf = math.log(len(counts) / frequency[word])
                vectors[row[person_id], column[word]] = (1 + math.log(n)) * idf
    return vectors, kept


def _shared_papers(authored: dict[int, list[int]]) -> dict[int, Counter]:
    shared: dict[int, Counter] = defaultdict(Counter)
    for members in authored.values():
        distinct = set(members)
        if len(distinct) < 2:
            continue
        for a in distinct:
            shared[a].update(b for b in distinct if b != a)
    return shared


def rank(features: Features, person_ids: Iterable[int]) -> list[tuple]:
    """(person, other, rank, score, reasons) for the members asked about."""
    sources = [features.row[pk] for pk in person_ids if pk in features.row]
    matrix = features.matrix()
    rows = []
    for start in range(0, len(sources), BLOCK):
        block = sources[start : start + BLOCK]
        scores = matrix[block] @ matrix.T
        for i, source in enumerate(block):
            person = features.ids[source]
            for other, n in features.shared_papers.get(person, {}).items():
                scores[i, features.row[other]] += WEIGHTS["papers"] * n / (n + 1)
        scores[:, ~features.current] = 0.0
        scores[np.arange(len(block)), block] = 0.0
        count = min(LISTED, scores.shape[1] - 1)
        if count <= 0:
            continue
        best = np.argpartition(-scores, count - 1, axis=1)[:, :count]
        for i, source in enumerate(block):
            chosen = sorted(best[i], key=lambda j: (-scores[i, j], features.ids[j]))
            listed = [j for j in chosen if scores[i, j] > 1e-6]
            for position, j in enumerate(listed, start=1):
                rows.append(
                    (
                        features.ids[source],
                        features.ids[j],
                        position,
                        round(float(scores[i, j]), 6),
                        reasons(features, source, j),
                    )
                )
    return rows


def reasons(features: Features, a: int, b: int) -> dict:
    """Why two members (rows of `features`) are alike, as ids and words."""
    overlap = features.topics[a] * features.topics[b]
    shared = {features.topic_ids[c]: overlap[c] for c in np.nonzero(overlap)[0]}
    # The most specific shared topics: a topic above another shared one says less.
    above = {up for t in shared for up in features.ancestors.get(t, ())}
    topics = sorted((t for t in shared if t not in above), key=lambda t: -shared[t])
    topics = topics[:SHOWN_TOPICS]
    organizations = [
        features.organization_ids[c]
        for c in np.nonzero(features.organizations[a] * features.organizations[b])[0]
    ][:SHOWN_ORGANIZATIONS]
    # "Both at" only where both are now; elsewhere they may have been years apart.
    now = features.there_now.get(features.ids[a], set()) & features.there_now.get(
        features.ids[b], set()
    )
    overlap = features.words[a] * features.words[b]
    words = [
        features.vocabulary[c]
        for c in np.argsort(-overlap)[:SHOWN_WORDS]
        if overlap[c] > 0
    ]
    return {
        "papers": features.shared_papers.get(features.ids[a], {}).get(
            features.ids[b], 0
        ),
        "topics": topics,
        "organizations": organizations,
        "organizations_now": [o for o in organizations if o in now],
        "words": words,
    }


@transaction.atomic
def compute_similar(person_ids: Iterable[int] | None = None) -> int:
    """Recompute the similar members of these members (default: everyone)."""
    features = load_features()
    everyone = person_ids is None
    asked = features.ids if everyone else list(set(person_ids))
    rows = rank(features, asked)
    if everyone:
        SimilarPerson.objects.all().delete()
        StaleSimilarity.objects.all().delete()
    else:
        SimilarPerson.objects.filter(person__in=asked).delete()
        StaleSimilarity.objects.filter(person__in=asked).delete()
    insert_rows(
        SimilarPerson,
        ["person", "other", "rank", "score", "reasons"],
        rows,
    )
    if everyone:
        invalidate()
    return len(rows)


def rebuild_similar() -> str:
    """Recompute every list, as `compute_similar` does; report how long it took."""
    started = time.perf_counter()
    written = compute_similar()
    elapsed = time.perf_counter() - started
    return f"Computed {written} similar members in {elapsed:.1f} s."


def mark_stale(person_ids: set[int], *, themselves: bool = True) -> None:
    """These members changed: the lists naming them are stale, and (unless told
    otherwise) their own."""
    listing = SimilarPerson.objects.filter(other__in=person_ids).values_list(
        "person_id", flat=True
    )
    stale = set(listing) - set(person_ids)
    if themselves:
        stale |= set(person_ids)
    existing = Person.objects.filter(pk__in=stale).values_list("pk", flat=True)
    StaleSimilarity.objects.bulk_create(
        [StaleSimilarity(person_id=pk) for pk in existing],
        ignore_conflicts=True,
        batch_size=1000,
    )


def before_delete(sender, instance: Person, **kwargs) -> None:
    """A member being deleted leaves the lists naming them a place short (their
    own list goes with them: a marker written now would outlive them)."""
    mark_stale({instance.pk}, themselves=False)


def recompute_stale() -> None:
    """Recompute every stale list in one pass (one load of the features): run in
    the background after each committed write (core.cache.warm_up_with)."""
    stale = list(StaleSimilarity.objects.values_list("person_id", flat=True))
    if stale:
        compute_similar(stale)


def similar_people(person: Person) -> list[SimilarPerson]:
    """A member's similar members, best first.

    A stale list is recomputed in the background after the write that made it
    stale, and until then the previous list is shown: at 10,000 members one
    recomputation reads every member's features, seconds a visitor would wait.
    Without background work (WARM_CACHE_AFTER_WRITE=0), or for a member with no
    list yet, it is recomputed here first."""
    if StaleSimilarity.objects.filter(person=person).exists() and (
        not settings.WARM_CACHE_AFTER_WRITE
        or not SimilarPerson.objects.filter(person=person).exists()
    ):
        try:
            with transaction.atomic():
                compute_similar([person.pk])
        except IntegrityError:
            pass  # another request wrote the same list at the same moment: read it
    rows = list(
        SimilarPerson.objects.filter(person=person)
        .select_related("other__organization")
        .order_by("rank")
    )
    for row in rows:
        row.person = person
    describe(rows)
    return rows


def describe(rows: list[SimilarPerson]) -> None:
    """Give each row the topics and organisations its reasons name (two queries),
    those both are at now, and its reasons in words, `reason_text`."""
    topic_ids = {t for r in rows for t in r.reasons.get("topics", ())}
    org_ids = {o for r in rows for o in r.reasons.get("organizations", ())}
    topics = Topic.objects.in_bulk(topic_ids) if topic_ids else {}
    orgs = Organization.objects.in_bulk(org_ids) if org_ids else {}
    for r in rows:
        r.shared_topics = [
            topics[t] for t in r.reasons.get("topics", ()) if t in topics
        ]
        r.shared_organizations = [
            orgs[o] for o in r.reasons.get("organizations", ()) if o in orgs
        ]
        now = set(r.reasons.get("organizations_now", ()))
        r.organizations_now = [o for o in r.shared_organizations if o.pk in now]
        r.reason_text = " · ".join(_reason_parts(r))


def _reason_parts(row: SimilarPerson) -> list[str]:
    parts = []
    papers = row.reasons.get("papers", 0)
    if papers:
        parts.append(f"{papers} shared paper{'s' if papers != 1 else ''}")
    if row.shared_topics:
        label = "shared topics" if len(row.shared_topics) > 1 else "shared topic"
        parts.append(f"{label}: {', '.join(t.name for t in row.shared_topics)}")
    now = row.organizations_now
    before = [o for o in row.shared_organizations if o not in now]
    if now:
        parts.append(f"both at {' and '.join(o.name for o in now)}")
    if before:
        parts.append(f"both have been at {' and '.join(o.name for o in before)}")
    if not parts and row.reasons.get("words"):
        parts.append(f"both write about {', '.join(row.reasons['words'])}")
    return parts
