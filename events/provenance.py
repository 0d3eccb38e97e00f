"""Where each field of an event comes from (see core/provenance.py)."""

from core.provenance import (
    ROW_ORDER,
    ROW_OWNER,
    SEARCH_TEXT,
    SLUG,
    FieldSources,
    derived,
    from_lab,
    hidden,
    lab,
)
from events import models as events

FIELDS: FieldSources = {
    events.Event: {
        **from_lab("kind", "title", "location", "host", "description"),
        **from_lab("end_date", "people", "publications", "topics"),
        "slug": (SLUG,),
        "date": (lab("date"),),
        "date_precision": (derived("how much of date the file gives"),),
        "updated_at": (hidden("when the record was last saved"),),
    },
    events.EventLink: {
        **from_lab("kind", "label", "url"),
        "event": (ROW_OWNER,),
        "position": (ROW_ORDER,),
    },
    events.EventSearchDocument: {
        **SEARCH_TEXT,
        "event": (ROW_OWNER,),
    },
}
