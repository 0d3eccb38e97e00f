"""The venues an import's entries name: existing ones by any of their names, or new."""

from django.core.exceptions import ValidationError

from core.slugs import unique_slug
from core.validation import validation_messages
from publications.bibtex.fields import venue_name
from publications.bibtex.names import fold
from publications.importing.report import InvalidEntry
from publications.models import Venue


class Venues:
    """Existing venues by every name they go by; new ones planned, created on write."""

    def __init__(self) -> None:
        self.lookup: dict[str, Venue] = {}
        self.slugs: set[str] = set()
        self.new: list[Venue] = []
        self.resolved: dict[tuple[str, str], Venue | None] = {}
        for venue in Venue.objects.all():
            self._remember(venue)

    def _remember(self, venue: Venue) -> None:
        self.slugs.add(venue.slug)
        for name in (venue.name, venue.short_name):
            if name:
                self.lookup.setdefault("=" + name.casefold(), venue)
        self.lookup.setdefault("~" + fold(venue_name(venue.name)[0]), venue)
        if venue.short_name:
            self.lookup.setdefault("#" + venue.short_name.casefold(), venue)

    def labels(self) -> dict[int, tuple[str, str]]:
        """The name and short name of every existing venue, by id."""
        return {v.pk: (v.name, v.short_name) for v in self.lookup.values()}

    def known(self, text: str, *, journal: bool = False) -> Venue | None:
        """The existing (or already planned) venue a text names, if any."""
        if not text:
            return None
        name, acronym = venue_name(text, journal=journal)
        for key in (
            "=" + text.casefold(),
            "#" + acronym.casefold() if acronym else "",
            "=" + name.casefold(),
            "~" + fold(name),
        ):
            if key and key in self.lookup:
                return self.lookup[key]
        return None

    def resolve(self, text: str, kind: str) -> Venue | None:
        """The venue a text names, planned as a new one when none exists."""
        if (text, kind) not in self.resolved:
            self.resolved[text, kind] = self._resolve(text, kind)
        return self.resolved[text, kind]

    def _resolve(self, text: str, kind: str) -> Venue | None:
        known = self.known(text, journal=kind == "journal")
        if known is not None or not text:
            return known
        name, acronym = venue_name(text, journal=kind == "journal")
        venue = Venue(
            name=name[:300],
            short_name=acronym[:60],
            slug=unique_slug(acronym or name, self.slugs, 120, fallback="venue"),
            kind=kind if kind in Venue.Kind.values else Venue.Kind.OTHER,
        )
        try:
            venue.full_clean(validate_unique=False, validate_constraints=False)
        except ValidationError as exc:
            raise InvalidEntry(f"venue {text!r}: {validation_messages(exc)}") from None
        self._remember(venue)
        self.new.append(venue)
        return venue
