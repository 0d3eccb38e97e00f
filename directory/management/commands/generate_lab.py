import time

from django.core.management.base import BaseCommand, CommandError

from directory.generate import SCALES, generate
from directory.search.indexing import rebuild
from people.models import Person


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
        started = time.perf_counter()
        counts = generate(
            people=people,
            publications=publications,
            events=events,
            seed=options["seed"],
        )
        written = time.perf_counter()
        self.stdout.write(
            f"Wrote {counts.people} people, {counts.publications} publications and "
            f"{counts.events} events in {written - started:.1f} s."
        )
        if not options["no_index"]:
            indexed = rebuild()
            self.stdout.write(
                f"Indexed {sum(indexed.values())} documents in "
                f"{time.perf_counter() - written:.1f} s."
            )
