from django.db import migrations

from directory.search.operations import KeepVectorsInline


class Migration(migrations.Migration):
    dependencies = [("publications", "0004_newest_first_index")]

    operations = [KeepVectorsInline("PublicationSearchDocument")]
