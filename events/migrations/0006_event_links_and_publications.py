from django.db import migrations, models


def one_to_list(apps, schema_editor):
    Event = apps.get_model("events", "Event")
    Through = Event.publications.through
    Through.objects.bulk_create(
        Through(event_id=event_id, publication_id=publication_id)
        for event_id, publication_id in Event.objects.filter(
            publication__isnull=False
        ).values_list("id", "publication_id")
    )


def list_to_one(apps, schema_editor):
    # Going back keeps the first publication of each event (the old field held one).
    Event = apps.get_model("events", "Event")
    Through = Event.publications.through
    for row in Through.objects.order_by("event_id", "publication_id"):
        Event.objects.filter(pk=row.event_id, publication__isnull=True).update(
            publication_id=row.publication_id
        )


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0005_search_document_field_names"),
        ("publications", "0007_facts_as_sources_give"),
    ]

    operations = [
        # A link may name its target without an address.
        migrations.AlterField(
            model_name="eventlink",
            name="url",
            field=models.URLField(blank=True, max_length=500),
        ),
        migrations.AddConstraint(
            model_name="eventlink",
            constraint=models.CheckConstraint(
                condition=~models.Q(label="") | ~models.Q(url=""),
                name="events_eventlink_label_or_url",
                violation_error_message="A link needs a label or a URL.",
            ),
        ),
        # The old field gives up the reverse name `events` to the new one.
        migrations.AlterField(
            model_name="event",
            name="publication",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="+",
                to="publications.publication",
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="publications",
            field=models.ManyToManyField(
                blank=True, related_name="events", to="publications.publication"
            ),
        ),
        migrations.RunPython(one_to_list, list_to_one),
        migrations.RemoveField(model_name="event", name="publication"),
    ]
