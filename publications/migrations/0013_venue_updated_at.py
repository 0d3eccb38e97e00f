import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("publications", "0012_publication_kind_and_status_not_stated")]

    operations = [
        migrations.AddField(
            model_name="venue",
            name="updated_at",
            field=models.DateTimeField(
                auto_now=True, default=django.utils.timezone.now
            ),
            preserve_default=False,
        )
    ]
