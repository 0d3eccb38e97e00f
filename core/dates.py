"""Dates known to a day, a month or a year, as CVs and home pages state them.

The model side: the precision as choices and the abstract `DateRange`; the date
maths is `core.lib.dates`.
"""

from django.db import models

from core.lib import dates as partial
from core.lib.dates import format_partial


class Precision(models.TextChoices):
    DAY = partial.DAY, "Day"
    MONTH = partial.MONTH, "Month"
    YEAR = partial.YEAR, "Year"


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
