"""The Celery app: its settings are Django's CELERY_* settings; tasks come from apps.

Run a worker with `celery -A directory worker` and the schedule with
`celery -A directory beat` (see the README's "Long work on a job queue").
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")

app = Celery("directory")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Each app's tasks.py; the job kinds that apps register from ready() become tasks
# when Django sets up in the worker.
app.autodiscover_tasks()
