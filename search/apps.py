from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"
    verbose_name = "Search"

    def ready(self) -> None:
        from core import cache
        from search import hybrid
        from search.engines import wrap_engines
        from search.filters import warm_default_facets
        from search.jobs import register_jobs

        cache.warm_up_with(warm_default_facets)
        wrap_engines(hybrid.wrap)
        register_jobs()
