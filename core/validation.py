"""Django validation errors as one line of text, for reports that are not forms."""

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError


def validation_messages(exc: ValidationError) -> str:
    """Join an error's messages into one line, each field's under its name."""
    if hasattr(exc, "message_dict"):
        return "; ".join(
            " ".join(errors)
            if name == NON_FIELD_ERRORS
            else f"{name}: {' '.join(errors)}"
            for name, errors in exc.message_dict.items()
        )
    return " ".join(exc.messages)
