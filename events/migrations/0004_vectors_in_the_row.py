from django.db import migrations

from directory.search.operations import KeepVectorsInline


class Migration(migrations.Migration):
    dependencies = [("events", "0003_eventsearchdocument")]

    operations = [KeepVectorsInline("EventSearchDocument")]
