"""What an admin change form posts, for tests that save one through the admin."""


def as_posted(response) -> dict:
    """What the change form posts when saved as it was opened."""
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        forms += [inline.formset.management_form, *inline.formset.forms]
    data = {}
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            if value is None or value is False:
                continue
            data[form[name].html_name] = "on" if value is True else value
    return data
