from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from labdata.loader import load_lab_directory
from labdata.reader import LabFileError
from search.indexing import index_missing


class Command(BaseCommand):
    help = "Load the demo lab from its YAML files (idempotent, one transaction)."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--path",
            type=Path,
            default=settings.BASE_DIR / "demo",
            help="Folder of lab files (default: demo/).",
        )

    def handle(self, *args, path: Path, verbosity: int = 1, **options) -> None:
        if not path.is_dir():
            raise CommandError(f"No such folder: {path}")
        try:
            stats = load_lab_directory(path)
        except LabFileError as exc:
            raise CommandError(str(exc)) from None
        index_missing()
        if verbosity > 0:
            self.stdout.write(
                stats.report("Demo lab already up to date: nothing changed.")
            )
