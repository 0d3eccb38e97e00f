import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("publications", "0013_bibtexupload")]

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
