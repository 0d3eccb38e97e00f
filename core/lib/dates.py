"""Dates known to a day, a month or a year: rendering, parsing and truncating them.

A precision is one of the strings below, the values of `core.dates.Precision`.
"""

import datetime

DAY = "day"
MONTH = "month"
YEAR = "year"


def format_partial(value: datetime.date | None, precision: str) -> str:
    """Render a date no more precisely than it is known."""
    if value is None:
        return ""
    if precision == YEAR:
        return f"{value.year}"
    if precision == MONTH:
        return value.strftime("%b %Y")
    return f"{value.strftime('%b')} {value.day}, {value.year}"


def truncate(value: datetime.date, precision: str) -> datetime.date:
    """Drop the parts of a date that its precision does not know."""
    if precision == YEAR:
        return value.replace(month=1, day=1)
    if precision == MONTH:
        return value.replace(day=1)
    return value


def iso_partial(value: datetime.date | None, precision: str) -> str:
    """The ISO 8601 form with reduced precision: 2025, 2025-09 or 2025-09-19."""
    if value is None:
        return ""
    if precision == YEAR:
        return f"{value.year:04d}"
    if precision == MONTH:
        return f"{value.year:04d}-{value.month:02d}"
    return value.isoformat()


def parse_partial(text: str) -> tuple[datetime.date, str]:
    """Parse 2025, 2025-09 or 2025-09-19 into a date and its precision."""
    parts = str(text).strip().split("-")
    try:
        numbers = [int(p) for p in parts]
        if len(numbers) == 1:
            return datetime.date(numbers[0], 1, 1), YEAR
        if len(numbers) == 2:
            return datetime.date(numbers[0], numbers[1], 1), MONTH
        if len(numbers) == 3:
            return datetime.date(*numbers), DAY
    except ValueError:
        pass
    raise ValueError(f"not a date of the form YYYY, YYYY-MM or YYYY-MM-DD: {text!r}")
