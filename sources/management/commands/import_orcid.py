from django.core.management.base import CommandError, CommandParser

from sources.clients import fetch_orcid_record
from sources.commands import IMPORT_ERRORS, ImportCommand
from sources.identifiers import clean_orcid
from sources.importer import import_orcid_record
from sources.orcid import parse_record_text


class Command(ImportCommand):
    help = (
        "Import an ORCID v3.0 public record (JSON or XML, from FILE or fetched with "
        "--orcid): names, keywords, links, employments, educations and works."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", help="A record saved from the API.")
        parser.add_argument("--orcid", metavar="ID", help="Fetch this iD's record.")
        parser.add_argument(
            "--create",
            action="store_true",
            help="Add a member for a record whose iD no member has.",
        )
        super().add_arguments(parser)

    def handle(self, *args, **options) -> None:
        if bool(options["file"]) == bool(options["orcid"]):
            raise CommandError("Give either a FILE or --orcid ID.")
        person = self.person(options["person"])
        if options["orcid"]:
            orcid = clean_orcid(options["orcid"])
            if not orcid:
                raise CommandError(f"{options['orcid']!r} is not an ORCID iD.")
            try:
                record = fetch_orcid_record(orcid)
            except IMPORT_ERRORS as exc:
                raise CommandError(str(exc)) from None
        else:
            path = options["file"]
            try:
                record = parse_record_text(self.read(path))
            except (ValueError, KeyError, TypeError) as exc:
                raise CommandError(f"{path}: {exc}") from None
        try:
            report = import_orcid_record(
                record,
                person=person,
                create=options["create"],
                accept=options["accept"],
                dry_run=options["dry_run"],
                progress=self.progress(),
            )
        except IMPORT_ERRORS as exc:
            where = options["file"] or f"ORCID iD {record.orcid}"
            raise CommandError(f"{where}: {exc}; nothing was written") from None
        self.finish(report)
