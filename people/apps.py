from django.apps import AppConfig


class PeopleConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "people"

    def ready(self) -> None:
        # Imported here, not above: they load models, which Django loads only
        # after every app's config.
        from django.db.models.signals import pre_delete

        from core import cache
        from people import search, similarity
        from people.models import Person, SimilarPerson, StaleSimilarity
        from search.registration import watch_models
        from search.registry import derive

        search.register()
        # Similar members follow the search documents: what a member is found by
        # is what they are compared on.
        derive(
            "person",
            after_index=similarity.mark_stale,
            after_rebuild=similarity.rebuild_similar,
        )
        cache.warm_up_with(similarity.recompute_stale)
        pre_delete.connect(
            similarity.before_delete, sender=Person, dispatch_uid="similar:delete"
        )
        watch_models(self, derived=[SimilarPerson, StaleSimilarity])
