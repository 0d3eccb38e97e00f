"""Members' photos: checked and re-encoded as every uploaded image is (core.images)."""

from django.core.files.base import ContentFile

from core.images import check_image, reencode_image

THUMBNAIL_SIZE = (256, 256)


def validate_photo(file) -> None:
    """Reject anything that is not a JPEG, PNG or WebP image within the caps."""
    check_image(file, "photo")


def reencode_photo(file) -> tuple[ContentFile, ContentFile]:
    """Decode, drop metadata and re-encode; return the photo and its thumbnail."""
    photo, thumb = reencode_image(file, max_size=(1600, 1600), thumbnail=THUMBNAIL_SIZE)
    return photo, thumb
