import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("directory", "0004_lab")]

    operations = [
        migrations.AddField(
            model_name=model,
            name="updated_at",
            field=models.DateTimeField(
                auto_now=True, default=django.utils.timezone.now
            ),
            preserve_default=False,
        )
        for model in ("topic", "organization")
    ]
