from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from labdata.loader import load_lab_directory
from labdata.reader import LabFileError, read_lab_files
from people.models import Person
from search.indexing import index_missing


class Command(BaseCommand):
    help = (
        "Load the demo lab from its YAML files (idempotent, one transaction); "
        "the files win over edits made since, unless --if-missing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--path",
            type=Path,
            default=settings.BASE_DIR / "demo",
            help="Folder of lab files (default: demo/).",
        )
        parser.add_argument(
            "--if-missing",
            action="store_true",
            help="Load only into a database that holds none of the demo's members "
            "(`make run`): edits made to the demo are kept.",
        )

    def handle(
        self,
        *args,
        path: Path,
        if_missing: bool = False,
        verbosity: int = 1,
        **options,
    ) -> None:
        if not path.is_dir():
            raise CommandError(f"No such folder: {path}")
        try:
            if if_missing and _demo_is_loaded(path):
                if verbosity > 0:
                    self.stdout.write(
                        "Demo lab already loaded: kept as it is, edits included "
                        "(`make demo` loads it again over them)."
                    )
                return
            stats = load_lab_directory(path)
        except LabFileError as exc:
            raise CommandError(str(exc)) from None
        index_missing()
        if verbosity > 0:
            self.stdout.write(
                stats.report("Demo lab already up to date: nothing changed.")
            )


def _demo_is_loaded(path: Path) -> bool:
    # Any one of the demo's members counts: staff may have deleted another, and a
    # load would bring it back over their decision.
    people = read_lab_files(path.rglob("*.yaml"))["people"]
    return Person.objects.filter(slug__in=list(people)).exists()
