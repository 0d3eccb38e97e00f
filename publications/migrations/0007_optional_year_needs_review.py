import django.core.validators
from django.db import migrations, models

# PostgreSQL sorts NULL first when descending: the "newest first" index must say
# NULLS LAST, as the ordering now does, to be read instead of sorting. SQLite puts
# NULL last already (and has no NULLS LAST in an index), so its index stays.
NEWEST = 'ON publications_publication (year DESC{}, month DESC, title, id)'


def newest_index(nulls_last):
    def rebuild(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute("DROP INDEX IF EXISTS publication_newest")
            schema_editor.execute(
                "CREATE INDEX publication_newest "
                + NEWEST.format(" NULLS LAST" if nulls_last else "")
            )

    return rebuild


class Migration(migrations.Migration):

    dependencies = [
        ('directory', '0002_searchterm_topicclosure'),
        ('publications', '0006_search_document_field_names'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='publication',
            options={'ordering': (models.OrderBy(models.F('year'), descending=True, nulls_last=True), '-month', 'title', 'id')},
        ),
        migrations.RemoveConstraint(
            model_name='publication',
            name='publications_publication_year_sane',
        ),
        migrations.AddField(
            model_name='publication',
            name='needs_review',
            field=models.BooleanField(default=False, help_text='Set by an import that had to fill a gap of its source (a title taken from another field); untick once checked.'),
        ),
        migrations.AlterField(
            model_name='publication',
            name='year',
            field=models.PositiveSmallIntegerField(blank=True, help_text='Blank when the source gives none: shown as “n.d.”.', null=True, validators=[django.core.validators.MinValueValidator(1900), django.core.validators.MaxValueValidator(2100)]),
        ),
        migrations.AddConstraint(
            model_name='publication',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('year__gte', 1900), ('year__lte', 2100)), ('year__isnull', True), _connector='OR'), name='publications_publication_year_sane', violation_error_message='Year must lie between 1900 and 2100.'),
        ),
        migrations.RunPython(newest_index(True), newest_index(False)),
    ]
