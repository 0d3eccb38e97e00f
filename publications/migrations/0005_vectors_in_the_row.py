from django.db import migrations

from search.operations import KeepVectorsInline


class Migration(migrations.Migration):
    dependencies = [("publications", "0004_newest_first_index")]

    operations = [KeepVectorsInline("PublicationSearchDocument")]
