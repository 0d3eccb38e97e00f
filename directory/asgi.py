"""
ASGI config for directory project.

It exposes the ASGI callable as a module-level variable named ``application``.

For more information on this file, see
https://docs.djangoproject.com/en/5.2/howto/deployment/asgi/
"""

import os

from django.conf import settings
from django.core.asgi import get_asgi_application

from core.statement_timeout import limit_statements

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "directory.settings")

application = get_asgi_application()
limit_statements(settings.STATEMENT_TIMEOUT_MS)
