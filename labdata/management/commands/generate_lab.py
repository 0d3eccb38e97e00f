import time

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from core.bulk import large_cache, without_cycle_collection
from labdata.generate import SCALES, generate
from people.models import Person
from people.services import rebuild_similar
from search.indexing import rebuild_in_parallel


class Command(BaseCommand):
    help = "Generate a large, realistic directory (deterministic for a seed)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--scale", choices=sorted(SCALES))
        parser.add_argument("--people", type=int)
        parser.add_argument("--publications", type=int)
        parser.add_argument("--events", type=int)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--no-index", action="store_true", help="Skip building the search index."
        )

    def handle(self, *args, **options) -> None:
        people, publications, events = SCALES[options["scale"] or "large"]
        people = options["people"] or people
        publications = options["publications"] or publications
        events = options["events"] if options["events"] is not None else events
        if min(people, publications, events) < 0 or people == 0:
            raise CommandError("Counts must be positive.")
        if Person.objects.exists():
            raise CommandError(
                "The database already has people: generate into an empty one."
            )
        with large_cache(), without_cycle_collection():
            started = time.perf_counter()
            counts = generate(
                people=people,
                publications=publications,
                events=events,
                seed=options["seed"],
            )
            written = time.perf_counter()
            self.stdout.write(
                f"Wrote {counts.people} people, {counts.publications} publications "
                f"and {counts.events} events in {written - started:.1f} s."
            )
            if not options["no_index"]:
                indexed = rebuild_in_parallel()
                self.stdout.write(
                    f"Indexed {sum(indexed.values())} documents in "
                    f"{time.perf_counter() - written:.1f} s."
                )
                self.stdout.write(rebuild_similar())
        if connection.vendor == "postgresql" and not connection.in_atomic_block:
            # Freshly loaded tables have no statistics until autovacuum comes round,
            # and the planner then scans whole tables to join a page of rows; VACUUM
            # also sets the visibility map that lets counts read the index alone.
            vacuumed = time.perf_counter()
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
            self.stdout.write(
                f"Vacuumed and analysed in {time.perf_counter() - vacuumed:.1f} s."
            )
