"""Rebuilding the search index as a job, so that staff can start it from the admin."""

from jobs.registry import Progress, register
from search.indexing import rebuild
from search.registry import searchables


def rebuild_index(_target: None, progress: Progress) -> str:
    """Rebuild every kind's documents and index, one kind (transaction) at a time."""
    names = sorted(searchables())
    counts: dict[str, int] = {}
    for done, kind in enumerate(names):
        progress(done, len(names), f"Indexing {kind}")
        counts.update(rebuild([kind]))
    progress(len(names), len(names), "Indexed")
    return "Indexed " + ", ".join(f"{n} {kind}" for kind, n in counts.items()) + "."


def register_jobs() -> None:
    register(
        "search.rebuild_index", label="Rebuild the search index", run=rebuild_index
    )
