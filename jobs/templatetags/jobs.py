from django import template

from jobs.registry import get_kind

register = template.Library()


@register.inclusion_tag("admin/jobs/start_button.html", takes_context=True)
def job_start_button(context, kind_name: str, target=None) -> dict:
    """A button that starts `kind_name` on `target`, for those who may start it."""
    try:
        kind = get_kind(kind_name)
    except LookupError:
        return {"kind": None}
    user = context["request"].user
    if not kind.allowed(user) or (target is not None and not kind.applicable(target)):
        return {"kind": None}
    return {"kind": kind, "target": target, "csrf_token": context.get("csrf_token")}
