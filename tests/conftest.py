import pytest
from django.core.cache import cache
from django.core.management import call_command


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Keep uploads out of the real media folder."""
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache: rolled-back data must not be served."""
    cache.clear()


@pytest.fixture
def demo_lab(db):
    """The four seed members, loaded from demo/ as `make run` does."""
    call_command("load_demo", verbosity=0)


@pytest.fixture
def admin_client_logged_in(client, django_user_model):
    user = django_user_model.objects.create_superuser(
        "admin", "admin@example.org", "a-long-test-password"
    )
    client.force_login(user)
    return client
