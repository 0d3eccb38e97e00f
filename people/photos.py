"""Members' photos: checked and re-encoded as every uploaded image is (core.images)."""

from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.db import models, transaction
from django.db.models import Q

from core.images import check_image, reencode_image

THUMBNAIL_SIZE = (256, 256)


def validate_photo(file) -> None:
    """Reject anything that is not a JPEG, PNG or WebP image within the caps."""
    check_image(file, "photo")


def reencode_photo(file) -> tuple[ContentFile, ContentFile]:
    """Decode, drop metadata and re-encode; return the photo and its thumbnail."""
    photo, thumb = reencode_image(file, max_size=(1600, 1600), thumbnail=THUMBNAIL_SIZE)
    return photo, thumb


def delete_when_unused(
    model: type[models.Model], storage: Storage, names: set[str]
) -> None:
    """Once the transaction commits, delete the files no record names any more:
    a replaced or cleared photo must not stay served at its old URL."""
    names = {name for name in names if name}

    def delete() -> None:
        used = model.objects.filter(
            Q(photo__in=names) | Q(photo_thumbnail__in=names)
        ).values_list("photo", "photo_thumbnail")
        for name in names - {n for pair in used for n in pair}:
            storage.delete(name)

    if names:
        transaction.on_commit(delete)
