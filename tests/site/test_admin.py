import pytest
from django.contrib import admin
from django.urls import reverse

from core.models import Lab

MODELS = [
    model
    for model in admin.site._registry
    if model._meta.app_label in {"directory", "people", "publications", "events"}
]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m._meta.label)
def test_every_changelist_and_add_form_renders(admin_client_logged_in, demo_lab, model):
    opts = model._meta
    changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    add = reverse(f"admin:{opts.app_label}_{opts.model_name}_add")
    assert admin_client_logged_in.get(changelist).status_code == 200
    # The lab is one record, which the demo has: "add" opens it.
    addable = not (model is Lab and Lab.objects.exists())
    assert admin_client_logged_in.get(add).status_code == (200 if addable else 302)
    assert admin_client_logged_in.get(changelist, {"q": "zhu"}).status_code == 200
    first = model.objects.first()
    if first is not None:
        change = reverse(
            f"admin:{opts.app_label}_{opts.model_name}_change", args=[first.pk]
        )
        assert admin_client_logged_in.get(change).status_code == 200
