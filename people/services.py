"""The people app's public entry: what other apps may call of it.

Other apps read members through `people.models` (and nest them in their API with
`people.api.serializers`); anything else they need of this app is offered here.
"""

from people.similarity import rebuild_similar

__all__ = ["rebuild_similar"]
