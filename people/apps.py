from django.apps import AppConfig


class PeopleConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "people"

    def ready(self) -> None:
        # Imported here, not above: they load models, which Django loads only
        # after every app's config.
        from django.db.models.signals import pre_delete

        from core import cache
        from people import search, similarity, topics
        from people.models import Person, PersonTopic, SimilarPerson, StaleSimilarity
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
        # The topics members are on follow them too: an interest or a paper's topic.
        derive("person", after_index=topics.refresh, after_rebuild=topics.rebuild)
        cache.warm_up_with(similarity.recompute_stale)
        pre_delete.connect(
            similarity.before_delete, sender=Person, dispatch_uid="similar:delete"
        )
        watch_models(self, derived=[PersonTopic, SimilarPerson, StaleSimilarity])
