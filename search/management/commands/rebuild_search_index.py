import time

from django.core.management.base import BaseCommand, CommandError

from search.indexing import rebuild
from search.registry import after_rebuild_hooks, searchables


class Command(BaseCommand):
    help = "Rebuild the full-text search documents and index from scratch."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "kinds",
            nargs="*",
            help=f"Only these kinds: {', '.join(sorted(searchables()))}.",
        )

    def handle(self, *args, kinds: list[str], **options) -> None:
        unknown = set(kinds) - set(searchables())
        if unknown:
            raise CommandError(f"Unknown kinds: {', '.join(sorted(unknown))}")
        started = time.perf_counter()
        counts = rebuild(kinds or None)
        elapsed = time.perf_counter() - started
        summary = ", ".join(f"{n} {kind}" for kind, n in counts.items())
        self.stdout.write(f"Indexed {summary} in {elapsed:.1f} s.")
        for kind in counts:
            for hook in after_rebuild_hooks(kind):
                self.stdout.write(hook())
