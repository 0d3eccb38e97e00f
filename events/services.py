"""The events app's public entry: what other apps may call of it.

Other apps read events through `events.models`; anything else they need of this
app is offered here.
"""

from events.feeds import calendar_response

__all__ = ["calendar_response"]
