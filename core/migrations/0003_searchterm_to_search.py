# The search vocabulary now belongs to the search app (its migration 0002), which
# keeps the table directory_searchterm; this app forgets the model, the table stays.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('directory', '0002_searchterm_topicclosure'),
        ('search', '0002_searchterm'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='SearchTerm'),
            ],
        ),
    ]
