"""Uploaded images (members' photos, the group's logo): real JPEG/PNG/WebP only,
capped in bytes and pixels, and re-encoded so that nothing but pixels is stored."""

import io
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import models, transaction
from django.db.models import Q
from PIL import Image, ImageOps, UnidentifiedImageError

ALLOWED_FORMATS = {"JPEG", "PNG", "WEBP"}


def check_image(file, noun: str) -> None:
    """Reject anything that is not a JPEG, PNG or WebP image within the caps."""
    size = getattr(file, "size", None)
    if size is not None and size > settings.PHOTO_MAX_BYTES:
        raise ValidationError(
            f"The {noun} is {size // 1024} KiB; the limit is "
            f"{settings.PHOTO_MAX_BYTES // 1024} KiB.",
            code=f"{noun}_too_large",
        )
    file.seek(0)
    try:
        # open() reads only the header, so the pixel cap is checked before decoding.
        with Image.open(file) as image:
            if image.format not in ALLOWED_FORMATS:
                raise ValidationError(
                    f"{noun.capitalize()}s must be JPEG, PNG or WebP images, "
                    f"not {image.format}.",
                    code=f"{noun}_format",
                )
            width, height = image.size
            if width * height > settings.PHOTO_MAX_PIXELS:
                raise ValidationError(
                    f"The {noun} is {width}×{height} pixels; the limit is "
                    f"{settings.PHOTO_MAX_PIXELS:,} pixels.",
                    code=f"{noun}_too_many_pixels",
                )
            # Decode within the cap: verify() reads no JPEG data, so a cut-off file
            # would pass it and then fail when the image is re-encoded on save.
            image.load()
    except (UnidentifiedImageError, OSError, SyntaxError, Image.DecompressionBombError):
        raise ValidationError(
            "The file is not a readable JPEG, PNG or WebP image.",
            code=f"{noun}_invalid",
        ) from None
    except ValueError:
        # Pillow's cap on a PNG's compressed text (zTXt, iTXt), which it inflates
        # only after the pixels, when load() reaches the chunks that follow them.
        raise ValidationError(
            f"The {noun} carries more metadata than allowed (a PNG text block of "
            "over 1 MiB); export it again without metadata.",
            code=f"{noun}_metadata",
        ) from None
    finally:
        file.seek(0)


def reencode_image(
    file, *, max_size: tuple[int, int], thumbnail: tuple[int, int] | None = None
) -> list[ContentFile]:
    """Decode, drop metadata and re-encode within `max_size`; with `thumbnail`,
    also return a thumbnail cropped to that size."""
    file.seek(0)
    with Image.open(file) as image:
        image = ImageOps.exif_transpose(image)
        has_alpha = image.mode in ("RGBA", "LA", "P")
        image = image.convert("RGBA" if has_alpha else "RGB")
        # Pillow writes some of .info back out (a JPEG's comment, which may hold
        # anything, even HTML); a stored image keeps its pixels only.
        image.info.clear()
        fmt, ext = ("PNG", "png") if has_alpha else ("JPEG", "jpg")
        image.thumbnail(max_size)
        name = uuid.uuid4().hex
        files = [ContentFile(_encode(image, fmt), name=f"{name}.{ext}")]
        if thumbnail:
            thumb = ImageOps.fit(image, thumbnail)
            files.append(ContentFile(_encode(thumb, fmt), name=f"{name}-thumb.{ext}"))
        return files


def _encode(image: Image.Image, fmt: str) -> bytes:
    buffer = io.BytesIO()
    options = {"quality": 88, "optimize": True} if fmt == "JPEG" else {"optimize": True}
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def stored_files(instance: models.Model, fields: list[str]) -> set[str]:
    """The files a saved record names in `fields` now, before a save replaces them."""
    if instance.pk is None:
        return set()
    rows = type(instance)._default_manager.filter(pk=instance.pk).values_list(*fields)
    return {name for row in rows for name in row if name}


def delete_when_unused(
    model: type[models.Model], fields: list[str], names: set[str]
) -> None:
    """Once the transaction commits, delete the files no record names any more:
    a replaced or cleared image must not stay served at its old URL."""
    if not names:
        return
    storage = model._meta.get_field(fields[0]).storage

    def delete() -> None:
        named = Q()
        for field in fields:
            named |= Q(**{f"{field}__in": names})
        used = model._default_manager.filter(named).values_list(*fields)
        for name in names - {n for row in used for n in row}:
            storage.delete(name)

    transaction.on_commit(delete)
