from django.core.management.base import BaseCommand

from people.similarity import rebuild_similar


class Command(BaseCommand):
    help = (
        "Recompute every member's most similar current members (also run by "
        "rebuild_search_index)."
    )

    def handle(self, *args, **options) -> None:
        self.stdout.write(rebuild_similar())
