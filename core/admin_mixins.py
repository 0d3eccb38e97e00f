from django import forms
from django.core.exceptions import ValidationError

from core import concurrency

VERSION_FIELD = "loaded_version"


class VersionedModelForm(forms.ModelForm):
    """A change form that refuses to save over an edit made since it was opened."""

    loaded_version = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.fields[VERSION_FIELD].initial = concurrency.version(
                self.instance.updated_at
            )

    def clean(self) -> dict:
        cleaned_data = super().clean()
        loaded = cleaned_data.get(VERSION_FIELD)
        # The admin's change view runs in a transaction, so the row stays locked
        # from this check until the save commits. A post without the field (a
        # script rather than the admin's page) is not checked.
        if loaded and self.instance.pk is not None:
            if concurrency.saved_version(self.instance) != loaded:
                raise ValidationError(
                    concurrency.stale_message(type(self.instance)), code="stale"
                )
        return cleaned_data


class VersionedAdminMixin:
    """Lost-update protection for a model with `updated_at`: see VersionedModelForm."""

    form = VersionedModelForm

    def get_fields(self, request, obj=None) -> list:
        return [f for f in super().get_fields(request, obj) if f != VERSION_FIELD]

    def get_fieldsets(self, request, obj=None) -> list:
        fieldsets = super().get_fieldsets(request, obj)
        # Only a change form that can be saved carries the version, as a hidden
        # field in the first fieldset.
        if obj is None or not self.has_change_permission(request, obj):
            return fieldsets
        (name, options), *rest = fieldsets
        fields = [*options["fields"], VERSION_FIELD]
        return [(name, {**options, "fields": fields}), *rest]
