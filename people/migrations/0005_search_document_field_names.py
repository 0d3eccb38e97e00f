from django.db import migrations, models

# The document columns get names that say what they hold; the database keeps its
# columns (a to d), which the full-text indexes are built from: state only.
RENAMES = [
    ("a", "heading", "Names or title."),
    ("b", "topics", "Topics and their aliases."),
    ("c", "body", "Headline, summary, main text."),
    ("d", "extra", "Everything else."),
]


class Migration(migrations.Migration):

    dependencies = [
        ("people", "0004_vectors_in_the_row"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                operation
                for column, name, help_text in RENAMES
                for operation in (
                    migrations.RenameField("personsearchdocument", column, name),
                    migrations.AlterField(
                        "personsearchdocument",
                        name,
                        models.TextField(
                            blank=True, db_column=column, help_text=help_text
                        ),
                    ),
                )
            ]
        ),
    ]
