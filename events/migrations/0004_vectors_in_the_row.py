from django.db import migrations

from search.operations import KeepVectorsInline


class Migration(migrations.Migration):
    dependencies = [("events", "0003_eventsearchdocument")]

    operations = [KeepVectorsInline("EventSearchDocument")]
