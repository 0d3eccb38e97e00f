from drf_spectacular.openapi import AutoSchema

from core import concurrency

# What each standard operation does, in the reader's words. Docstrings are written
# for the code's readers and stay out of the schema: an operation with neither
# an explicit description nor an entry here has none.
OPERATIONS = {
    "list": "{Many}, a page at a time, filtered by the query parameters below; "
    "an unknown parameter is refused with 400.",
    "retrieve": "One {one} by its slug.",
    "create": "Add {a} {one}: needs a token or session whose user may add "
    "{many}. Answers 201 with the {one} as a GET returns it, and its address in "
    "`Location`; a slug already taken is refused with 400.",
    "update": "Replace every editable field of {a} {one}: needs the permission to "
    "change {many}. Fields left out take their defaults.",
    "partial_update": "Change some fields of {a} {one}: needs the permission to "
    "change {many}. Fields left out keep their values.",
    "destroy": "Remove {a} {one}: needs the permission to delete {many}. Refused "
    "with 409 while other records still need it.",
}

SUMMARIES = {
    "list": "List {many}",
    "retrieve": "Get {a} {one}",
    "create": "Add {a} {one}",
    "update": "Replace {a} {one}",
    "partial_update": "Change {a} {one}",
    "destroy": "Remove {a} {one}",
}


class DirectorySchema(AutoSchema):
    """The schema as readers need it: anyone may read, and each operation says
    what it does in their words (docstrings are for the code's readers)."""

    def get_auth(self) -> list[dict]:
        auth = super().get_auth()
        if self.method in ("GET", "HEAD", "OPTIONS") and {} not in auth:
            auth.append({})
        return auth

    def get_summary(self) -> str | None:
        return self._operation_text(SUMMARIES) or None

    def get_description(self) -> str:
        text = self._operation_text(OPERATIONS)
        queryset = getattr(self.view, "queryset", None)
        if (
            text
            and self.view.action == "retrieve"
            and concurrency.is_versioned(queryset.model)
        ):
            text += (
                " Its `ETag` names this version: send it back as `If-Match` with a "
                "write, so that a change made by someone else since is not overwritten."
            )
        return text

    def _operation_text(self, texts: dict[str, str]) -> str:
        template = texts.get(getattr(self.view, "action", None))
        queryset = getattr(self.view, "queryset", None)
        if template is None or queryset is None:
            return ""
        meta = queryset.model._meta
        one, many = str(meta.verbose_name), str(meta.verbose_name_plural)
        return template.format(
            one=one,
            many=many,
            Many=many.capitalize(),
            a="an" if one[0] in "aeiou" else "a",
        )
