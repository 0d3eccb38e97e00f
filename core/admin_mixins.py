import datetime
import hashlib
import json
from typing import NamedTuple

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from core import concurrency
from core.dates import Precision
from core.lib.dates import iso_partial, parse_partial

VERSION_FIELD = "loaded_version"
ROW_VERSION_FIELD = "loaded_row"


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


def row_digests(instance) -> dict[str, str]:
    """A short digest of each stored value of a row, by field."""
    return {
        field.attname: hashlib.sha256(
            repr(field.value_from_object(instance)).encode()
        ).hexdigest()[:12]
        for field in instance._meta.concrete_fields
        if not field.primary_key
    }


class VersionedRowForm(forms.ModelForm):
    """An inline's row that refuses to save over an edit made since the page opened.

    Rows have no `updated_at`: the form carries a digest of each stored value, and
    a row saved meanwhile (on its own page, by an import) is refused with what it
    holds now.
    """

    loaded_row = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.fields[ROW_VERSION_FIELD].initial = json.dumps(
                row_digests(self.instance), separators=(",", ":")
            )

    def clean(self) -> dict:
        cleaned_data = super().clean()
        loaded = cleaned_data.get(ROW_VERSION_FIELD)
        if loaded and self.instance.pk is not None:
            self._check_unchanged(loaded)
        return cleaned_data

    def _check_unchanged(self, loaded: str) -> None:
        try:
            digests = json.loads(loaded)
        except ValueError:
            digests = {}
        model = type(self.instance)
        # Locked until the parent's save commits, as the parent's own row is.
        saved = model._default_manager.select_for_update().filter(pk=self.instance.pk)
        saved = saved.first()
        if saved is None or not isinstance(digests, dict):
            return
        changed = [
            model._meta.get_field(name)
            for name, digest in row_digests(saved).items()
            if digests.get(name, digest) != digest
        ]
        if changed:
            now = "; ".join(
                f"{field.verbose_name}: {getattr(saved, field.name) or '—'}"
                for field in changed
            )
            raise ValidationError(
                f"This {model._meta.verbose_name} was changed by someone else since "
                f"you opened the page; it now reads {now}. Reload the page to see "
                "it, then make your change again.",
                code="stale",
            )


def versioned_row_form(form: type[forms.ModelForm]) -> type[forms.ModelForm]:
    if issubclass(form, VersionedRowForm):
        return form
    return type(form.__name__, (VersionedRowForm, form), {})


class _VersionFieldAdmin:
    """A change form that can be saved carries `version_field`, hidden, in its
    first fieldset; a page that only shows the record does not."""

    version_field: str

    def get_fields(self, request, obj=None) -> list:
        return [f for f in super().get_fields(request, obj) if f != self.version_field]

    def get_fieldsets(self, request, obj=None) -> list:
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or not self.has_change_permission(request, obj):
            return fieldsets
        (name, options), *rest = fieldsets
        fields = [*options["fields"], self.version_field]
        return [(name, {**options, "fields": fields}), *rest]


class VersionedAdminMixin(_VersionFieldAdmin):
    """Lost-update protection for a model with `updated_at` (see VersionedModelForm)
    and for the rows of its inlines (see VersionedRowForm)."""

    form = VersionedModelForm
    version_field = VERSION_FIELD

    def get_inline_instances(self, request, obj=None) -> list:
        inlines = super().get_inline_instances(request, obj)
        if obj is None:
            return inlines
        for inline in inlines:
            # Instances are made per request: changing them changes nothing else.
            if not inline.has_change_permission(request, obj) or inline.fieldsets:
                continue
            inline.form = versioned_row_form(inline.form)
            if inline.fields is not None:
                inline.fields = [*inline.fields, ROW_VERSION_FIELD]
        return inlines


class VersionedRowAdminMixin(_VersionFieldAdmin):
    """The same protection for a row with no `updated_at` on its own page, against
    a save of its parent's inlines since it opened (see VersionedRowForm)."""

    version_field = ROW_VERSION_FIELD

    def get_form(self, request, obj=None, **kwargs):
        kwargs.setdefault("form", versioned_row_form(self.form))
        return super().get_form(request, obj, **kwargs)


class PartialDate(NamedTuple):
    """A date as typed, and how precisely that was (a value of core.dates.Precision)."""

    date: datetime.date
    precision: str


class PartialDateField(forms.Field):
    """A date typed as precisely as the source gives it: 2019, 2019-09 or
    2019-09-19; cleans to a PartialDate."""

    widget = forms.TextInput(attrs={"size": 10})
    default_error_messages = {
        "invalid": "Enter a year (2019), a month (2019-09) or a day (2019-09-19)."
    }

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault(
            "help_text", "A year, a month or a day: as precisely as the source says."
        )
        super().__init__(**kwargs)

    def to_python(self, value) -> PartialDate | None:
        if isinstance(value, PartialDate) or value in self.empty_values:
            return value or None
        if isinstance(value, datetime.date):
            return PartialDate(value, Precision.DAY)
        try:
            return PartialDate(*parse_partial(value))
        except ValueError:
            raise ValidationError(
                self.error_messages["invalid"], code="invalid"
            ) from None

    def prepare_value(self, value):
        if isinstance(value, PartialDate):
            return iso_partial(value.date, value.precision)
        return value

    def has_changed(self, initial, data) -> bool:
        try:
            return self.to_python(initial) != self.to_python(data)
        except ValidationError:
            return True


class PartialDatesForm(forms.ModelForm):
    """A model form whose dates are typed as precisely as they are known.

    `partial_dates` maps each PartialDateField to the model field that keeps its
    precision; that field is set from what was typed and is not on the form. Dates
    that share one precision field must be typed alike."""

    partial_dates: dict[str, str] = {}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name, precision in self.partial_dates.items():
            value = getattr(self.instance, name)
            if name in self.fields and value is not None:
                kept = getattr(self.instance, precision)
                self.initial[name] = PartialDate(value, kept)

    def clean(self) -> dict:
        # First, so that the dates are plain dates even when a later check (a
        # stale version) raises: the instance is built from them all the same.
        typed: dict[str, str] = {}
        for name, precision in self.partial_dates.items():
            value = self.cleaned_data.get(name)
            if not isinstance(value, PartialDate):
                continue
            if typed.setdefault(precision, value.precision) != value.precision:
                self.add_error(
                    name, "Give this date as precisely as the one before it."
                )
                continue
            self.cleaned_data[name] = value.date
            # The precision is not a field of the form: the instance takes it here.
            setattr(self.instance, precision, value.precision)
        return super().clean()


class LinkWithoutAddressFilter(admin.SimpleListFilter):
    """Records with a link whose address no source gave (a `links` relation of
    ExternalLink rows), for staff to fill in."""

    title = "links"
    parameter_name = "links"

    def lookups(self, request, model_admin) -> list[tuple[str, str]]:
        return [("no_address", "Has a link without an address")]

    def queryset(self, request, queryset):
        if self.value() == "no_address":
            owners = queryset.model.objects.filter(links__url="").values("pk")
            return queryset.filter(pk__in=owners)
        return queryset
