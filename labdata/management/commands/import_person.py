from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from labdata.loader import import_lab_files
from labdata.reader import LabFileError
from search.indexing import index_missing


class Command(BaseCommand):
    help = (
        "Create or update members from lab files written by export_person (or by "
        "hand). Each file is the whole truth about the records it holds: a field "
        "left out is cleared. A co-author or co-presenter who is not in the files "
        "must already be in the database. One transaction: on any error nothing "
        "is written."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "files",
            nargs="+",
            type=Path,
            metavar="FILE",
            help="Lab files; give several to import members who cite each other.",
        )

    def handle(self, *args, files: list[Path], verbosity: int = 1, **options) -> None:
        for path in files:
            if not path.is_file():
                raise CommandError(f"No such file: {path}")
        try:
            stats = import_lab_files(files)
        except LabFileError as exc:
            raise CommandError(f"{exc}\nNothing was imported.") from None
        index_missing()
        if verbosity > 0:
            self.stdout.write(stats.report("Already up to date: nothing changed."))
