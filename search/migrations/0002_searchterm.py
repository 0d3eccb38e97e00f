# The search vocabulary moves here from the shared app (label "directory"), which
# created it in its migration 0002. Only Django's record of the model moves: the
# table keeps its name and its rows, and the shared app's 0003 forgets the model.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('directory', '0002_searchterm_topicclosure'),
        ('search', '0001_embedding'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='SearchTerm',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('word', models.CharField(max_length=64, unique=True)),
                    ],
                    options={
                        'db_table': 'directory_searchterm',
                    },
                ),
            ],
        ),
    ]
