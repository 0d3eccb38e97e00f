"""Dates known to a day, a month or a year, as CVs and home pages state them."""

import datetime

from django.db import models


class Precision(models.TextChoices):
    DAY = "day", "Day"
    MONTH = "month", "Month"
    YEAR = "year", "Year"


def format_partial(value: datetime.date | None, precision: str) -> str:
    """Render a date no more precisely than it is known."""
    if value is None:
        return ""
    if precision == Precision.YEAR:
        return f"{value.year}"
    if precision == Precision.MONTH:
        return value.strftime("%b %Y")
    return f"{value.strftime('%b')} {value.day}, {value.year}"


def truncate(value: datetime.date, precision: str) -> datetime.date:
    """Drop the parts of a date that its precision does not know."""
    if precision == Precision.YEAR:
        return value.replace(month=1, day=1)
    if precision == Precision.MONTH:
        return value.replace(day=1)
    return value


def iso_partial(value: datetime.date | None, precision: str) -> str:
    """The ISO 8601 form with reduced precision: 2025, 2025-09 or 2025-09-19."""
    if value is None:
        return ""
    if precision == Precision.YEAR:
        return f"{value.year:04d}"
    if precision == Precision.MONTH:
        return f"{value.year:04d}-{value.month:02d}"
    return value.isoformat()


def parse_partial(text: str) -> tuple[datetime.date, str]:
    """Parse 2025, 2025-09 or 2025-09-19 into a date and its precision."""
    parts = str(text).strip().split("-")
    try:
        numbers = [int(p) for p in parts]
        if len(numbers) == 1:
            return datetime.date(numbers[0], 1, 1), Precision.YEAR
        if len(numbers) == 2:
            return datetime.date(numbers[0], numbers[1], 1), Precision.MONTH
        if len(numbers) == 3:
            return datetime.date(*numbers), Precision.DAY
    except ValueError:
        pass
    raise ValueError(f"not a date of the form YYYY, YYYY-MM or YYYY-MM-DD: {text!r}")


class DateRange(models.Model):
    """A start and an optional end, each with its precision; open ends read Present."""

    start_date = models.DateField(null=True, blank=True)
    start_precision = models.CharField(
        max_length=5, choices=Precision.choices, default=Precision.MONTH
    )
    end_date = models.DateField(null=True, blank=True)
    end_precision = models.CharField(
        max_length=5, choices=Precision.choices, default=Precision.MONTH
    )
    is_ongoing = models.BooleanField(
        "present", default=False, help_text="The range runs to the present day."
    )

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=models.Q(end_date__isnull=True)
                | models.Q(start_date__isnull=True)
                | models.Q(end_date__gte=models.F("start_date")),
                name="%(app_label)s_%(class)s_end_not_before_start",
                violation_error_message="The end date cannot be before the start date.",
            ),
            models.CheckConstraint(
                condition=~models.Q(is_ongoing=True, end_date__isnull=False),
                name="%(app_label)s_%(class)s_ongoing_has_no_end",
                violation_error_message="An ongoing range has no end date.",
            ),
        ]

    @property
    def start_display(self) -> str:
        return format_partial(self.start_date, self.start_precision)

    @property
    def end_display(self) -> str:
        if self.is_ongoing:
            return "Present"
        return format_partial(self.end_date, self.end_precision)

    @property
    def period_display(self) -> str:
        start, end = self.start_display, self.end_display
        if start and end and start != end:
            return f"{start} – {end}"
        return start or end
