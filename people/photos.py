"""Photo checks and re-encoding: real JPEG/PNG/WebP only, capped in bytes and pixels."""

import io
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from PIL import Image, ImageOps, UnidentifiedImageError

ALLOWED_FORMATS = {"JPEG", "PNG", "WEBP"}
THUMBNAIL_SIZE = (256, 256)


def validate_photo(file) -> None:
    """Reject anything that is not a JPEG, PNG or WebP image within the caps."""
    size = getattr(file, "size", None)
    if size is not None and size > settings.PHOTO_MAX_BYTES:
        raise ValidationError(
            f"The photo is {size // 1024} KiB; the limit is "
            f"{settings.PHOTO_MAX_BYTES // 1024} KiB.",
            code="photo_too_large",
        )
    file.seek(0)
    try:
        # open() reads only the header, so the pixel cap is checked before decoding.
        with Image.open(file) as image:
            if image.format not in ALLOWED_FORMATS:
                raise ValidationError(
                    f"Photos must be JPEG, PNG or WebP images, not {image.format}.",
                    code="photo_format",
                )
            width, height = image.size
            if width * height > settings.PHOTO_MAX_PIXELS:
                raise ValidationError(
                    f"The photo is {width}×{height} pixels; the limit is "
                    f"{settings.PHOTO_MAX_PIXELS:,} pixels.",
                    code="photo_too_many_pixels",
                )
            # Decode within the cap: verify() reads no JPEG data, so a cut-off file
            # would pass it and then fail when the photo is re-encoded on save.
            image.load()
    except (UnidentifiedImageError, OSError, SyntaxError, Image.DecompressionBombError):
        raise ValidationError(
            "The file is not a readable JPEG, PNG or WebP image.", code="photo_invalid"
        ) from None
    finally:
        file.seek(0)


def reencode_photo(file) -> tuple[ContentFile, ContentFile]:
    """Decode, drop metadata and re-encode; return the photo and its thumbnail."""
    file.seek(0)
    with Image.open(file) as image:
        image = ImageOps.exif_transpose(image)
        has_alpha = image.mode in ("RGBA", "LA", "P")
        image = image.convert("RGBA" if has_alpha else "RGB")
        # Pillow writes some of .info back out (a JPEG's comment, which may hold
        # anything, even HTML); a stored photo keeps its pixels only.
        image.info.clear()
        fmt, ext = ("PNG", "png") if has_alpha else ("JPEG", "jpg")
        image.thumbnail((1600, 1600))
        thumb = ImageOps.fit(image, THUMBNAIL_SIZE)
        name = uuid.uuid4().hex
        return (
            ContentFile(_encode(image, fmt), name=f"{name}.{ext}"),
            ContentFile(_encode(thumb, fmt), name=f"{name}-thumb.{ext}"),
        )


def _encode(image: Image.Image, fmt: str) -> bytes:
    buffer = io.BytesIO()
    options = {"quality": 88, "optimize": True} if fmt == "JPEG" else {"optimize": True}
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()
