from django.db import migrations

from search.operations import KeepVectorsInline


class Migration(migrations.Migration):
    dependencies = [("people", "0003_personsearchdocument")]

    operations = [KeepVectorsInline("PersonSearchDocument")]
