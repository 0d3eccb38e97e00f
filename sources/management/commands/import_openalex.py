import json

from django.core.management.base import CommandError, CommandParser

from sources.clients import fetch_openalex_author
from sources.commands import IMPORT_ERRORS, ImportCommand
from sources.identifiers import clean_openalex_id
from sources.importer import import_openalex
from sources.openalex import parse_document


class Command(ImportCommand):
    help = (
        "Import OpenAlex works and authors: files holding a work, an author or a "
        "list response, or an author and all their works fetched with --author."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*", metavar="FILE")
        parser.add_argument(
            "--author", metavar="ID", help="Fetch this OpenAlex author and their works."
        )
        super().add_arguments(parser)

    def handle(self, *args, **options) -> None:
        if bool(options["files"]) == bool(options["author"]):
            raise CommandError("Give either FILEs or --author ID.")
        person = self.person(options["person"])
        works, authors, unread = [], [], []
        if options["author"]:
            author_id = clean_openalex_id(options["author"])
            if not author_id.startswith("A"):
                raise CommandError(
                    f"{options['author']!r} is not an OpenAlex author id."
                )
            try:
                author, works, unread = fetch_openalex_author(
                    author_id, progress=self.progress()
                )
            except IMPORT_ERRORS as exc:
                raise CommandError(str(exc)) from None
            authors = [author]
        # Every file is read and parsed before anything is written.
        for path in options["files"]:
            try:
                found_works, found_authors = parse_document(json.loads(self.read(path)))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise CommandError(f"{path}: {_reason(exc)}") from None
            works += found_works
            authors += found_authors
        try:
            report = import_openalex(
                works,
                authors,
                person=person,
                accept=options["accept"],
                dry_run=options["dry_run"],
                progress=self.progress(),
                errors=unread,
            )
        except IMPORT_ERRORS as exc:
            raise CommandError(f"{exc}; nothing was written") from None
        self.finish(report)


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc})"
    if isinstance(exc, KeyError):
        return f"not an OpenAlex record (it has no {exc})"
    return str(exc)
