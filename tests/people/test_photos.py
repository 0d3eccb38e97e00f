"""Photo uploads through the admin: real images are re-encoded, the rest refused."""

import io
import random
import re
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.test.client import encode_multipart
from django.urls import reverse
from django.views.static import serve
from PIL import ExifTags, Image
from PIL.PngImagePlugin import PngInfo

from directory import urls as site_urls
from people.models import Person
from tests import factories

MEMBER = {
    "given_name": "Grace",
    "family_name": "Hopper",
    "display_name": "Grace Hopper",
    "slug": "grace-hopper",
    "role": "researcher",
    "status": "current",
}
BOUNDARY = "photo-corpus-boundary"
SIZE = (60, 40)
# Metadata written into each upload; a re-encoded photo must not carry it.
MARKER = "upload-marker"
HTML = b"<html><script>alert(1)</script></html>"


def _add_url() -> str:
    return reverse("admin:people_person_add")


def _post_photo(client, url: str, *, filename: str, content: bytes, content_type: str):
    """Send the admin's person form with a file part written by hand, so that the
    file's name and type reach the server exactly as a hostile client sends them."""
    page = client.get(url)
    data = dict(MEMBER)
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        for name, value in formset.management_form.initial.items():
            data[f"{formset.prefix}-{name}"] = value
    file_part = (
        f"--{BOUNDARY}\r\n"
        f'Content-Disposition: form-data; name="photo"; filename="{filename}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n"
    ).encode() + content
    body = file_part + b"\r\n" + encode_multipart(BOUNDARY, data)
    return client.post(
        url, body, content_type=f"multipart/form-data; boundary={BOUNDARY}"
    )


def _photo_errors(response) -> list[str]:
    if response.context is None:
        return []
    return list(response.context["adminform"].form.errors.get("photo", []))


def _media_files(settings) -> list[Path]:
    return [p for p in Path(settings.MEDIA_ROOT).rglob("*") if p.is_file()]


# -- files ----------------------------------------------------------------------------


def _encode(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def _picture(mode: str = "RGB") -> Image.Image:
    colour = {"RGB": (200, 30, 30), "CMYK": (0, 128, 255, 0), "I;16": 40000}[mode]
    return Image.new(mode, SIZE, colour)


def _exif_marker() -> bytes:
    exif = Image.Exif()
    exif[ExifTags.Base.Artist] = MARKER
    return exif.tobytes()


def _png_text_marker() -> PngInfo:
    info = PngInfo()
    info.add_text("Comment", MARKER)
    return info


def _transparent_palette_png() -> bytes:
    image = Image.new("P", SIZE, 1)
    image.putpalette([0, 0, 0, 200, 30, 30])
    return _encode(image, "PNG", transparency=0, pnginfo=_png_text_marker())


def _noise(size: tuple[int, int]) -> Image.Image:
    rng = random.Random(0)
    return Image.frombytes("RGB", size, rng.randbytes(size[0] * size[1] * 3))


def _truncated_jpeg() -> bytes:
    whole = _encode(_noise((200, 200)), "JPEG")
    return whole[: len(whole) // 2]


def _png_declaring(width: int, height: int) -> bytes:
    """A PNG of a few hundred bytes whose header claims width × height pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit grey
    first_row = zlib.compress(b"\x00" * (width + 1))  # every later row is missing
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", first_row)
        + chunk(b"IEND", b"")
    )


def _png_with_trailing_text(kind: bytes) -> bytes:
    """A small PNG with, after its pixels, a text chunk that inflates to 20 MiB."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    png = _encode(_picture(), "PNG")
    header = b"Comment\x00\x00" if kind == b"zTXt" else b"Comment\x00\x01\x00\x00\x00"
    bomb = chunk(kind, header + zlib.compress(b"\x00" * (20 << 20), 9))
    iend = png[-12:]
    return png[:-12] + bomb + iend


SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)">'
    b"<script>alert(2)</script></svg>"
)

Build = Callable[[], bytes]

# name, content type, bytes, the format stored
ACCEPTED: dict[str, tuple[str, str, Build, str]] = {
    "jpeg": (
        "portrait.jpg",
        "image/jpeg",
        lambda: _encode(_picture(), "JPEG", exif=_exif_marker()),
        "JPEG",
    ),
    "png": (
        "portrait.png",
        "image/png",
        lambda: _encode(_picture(), "PNG", pnginfo=_png_text_marker()),
        "JPEG",
    ),
    "webp": (
        "portrait.webp",
        "image/webp",
        lambda: _encode(_picture(), "WEBP", exif=_exif_marker()),
        "JPEG",
    ),
    "png-with-transparency": (
        "logo.png",
        "image/png",
        _transparent_palette_png,
        "PNG",
    ),
    "jpeg-cmyk": (
        "print.jpg",
        "image/jpeg",
        lambda: _encode(_picture("CMYK"), "JPEG", exif=_exif_marker()),
        "JPEG",
    ),
    "png-16-bit-grey": (
        "scan.png",
        "image/png",
        lambda: _encode(_picture("I;16"), "PNG", pnginfo=_png_text_marker()),
        "JPEG",
    ),
}

# name, content type, bytes, a part of the message the admin shows
REFUSED: dict[str, tuple[str, str, Build, str]] = {
    "svg-with-script": ("photo.svg", "image/svg+xml", lambda: SVG, "valid image"),
    "svg-named-png": ("photo.png", "image/png", lambda: SVG, "valid image"),
    "tiff": (
        "photo.tif",
        "image/tiff",
        lambda: _encode(_picture(), "TIFF"),
        "must be JPEG, PNG or WebP images, not TIFF",
    ),
    "gif-named-jpeg": (
        "photo.jpg",
        "image/jpeg",
        lambda: _encode(_picture(), "GIF"),
        "must be JPEG, PNG or WebP images, not GIF",
    ),
    "text-named-png": (
        "photo.png",
        "image/png",
        lambda: b"Not a picture at all.\n" * 20,
        "valid image",
    ),
    "empty": ("photo.jpg", "image/jpeg", lambda: b"", "The submitted file is empty"),
    "truncated-jpeg": (
        "photo.jpg",
        "image/jpeg",
        _truncated_jpeg,
        "not a readable JPEG, PNG or WebP image",
    ),
    # Over the project's cap but under Pillow's own: the project's check answers,
    # from the header alone (the pixel rows are not even there to decode).
    "over-the-pixel-cap": (
        "photo.png",
        "image/png",
        lambda: _png_declaring(8000, 8000),
        "8000×8000 pixels; the limit is 40,000,000 pixels",
    ),
    # Text after the pixels is read only once they are decoded.
    "png-ztxt-bomb-after-idat": (
        "photo.png",
        "image/png",
        lambda: _png_with_trailing_text(b"zTXt"),
        "more metadata than allowed",
    ),
    "png-itxt-bomb-after-idat": (
        "photo.png",
        "image/png",
        lambda: _png_with_trailing_text(b"iTXt"),
        "more metadata than allowed",
    ),
    # 400 megapixels: Pillow refuses to open it at all.
    "decompression-bomb": (
        "photo.png",
        "image/png",
        lambda: _png_declaring(20000, 20000),
        "valid image",
    ),
}


# -- accepted -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "filename, content_type, build, stored_format",
    ACCEPTED.values(),
    ids=ACCEPTED.keys(),
)
def test_a_real_image_is_stored_re_encoded_under_a_generated_name(
    admin_client_logged_in, filename, content_type, build, stored_format
):
    upload = build()
    assert MARKER.encode() in upload

    response = _post_photo(
        admin_client_logged_in,
        _add_url(),
        filename=filename,
        content=upload,
        content_type=content_type,
    )

    assert response.status_code == 302, _photo_errors(response)
    person = Person.objects.get(slug="grace-hopper")
    ext = {"JPEG": "jpg", "PNG": "png"}[stored_format]
    assert re.fullmatch(rf"people/[0-9a-f]{{32}}\.{ext}", person.photo.name)
    assert re.fullmatch(
        rf"people/thumbs/[0-9a-f]{{32}}-thumb\.{ext}", person.photo_thumbnail.name
    )
    stored = Path(person.photo.path).read_bytes()
    assert stored != upload
    assert MARKER.encode() not in stored
    with Image.open(person.photo.path) as image:
        assert (image.format, image.size) == (stored_format, SIZE)


def test_exif_is_dropped_once_the_photo_is_turned_upright(
    admin_client_logged_in, settings
):
    exif = Image.Exif()
    exif[ExifTags.Base.Orientation] = 6  # shown turned 90° clockwise
    exif[ExifTags.Base.Make] = "SpyCam"
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[ExifTags.GPS.GPSLatitudeRef] = "N"
    gps[ExifTags.GPS.GPSLatitude] = (48.0, 51.0, 29.0)
    gps[ExifTags.GPS.GPSLongitudeRef] = "E"
    gps[ExifTags.GPS.GPSLongitude] = (2.0, 17.0, 40.0)
    upload = _encode(_picture(), "JPEG", exif=exif.tobytes())
    with Image.open(io.BytesIO(upload)) as original:
        assert original.getexif().get_ifd(ExifTags.IFD.GPSInfo)

    response = _post_photo(
        admin_client_logged_in,
        _add_url(),
        filename="../../etc/passwd.jpg",
        content=upload,
        content_type="image/jpeg",
    )

    assert response.status_code == 302, _photo_errors(response)
    person = Person.objects.get(slug="grace-hopper")
    media = Path(settings.MEDIA_ROOT).resolve()
    for file in (person.photo, person.photo_thumbnail):
        assert "passwd" not in file.name
        assert Path(file.path).resolve().is_relative_to(media)
        stored = Path(file.path).read_bytes()
        assert b"Exif" not in stored and b"SpyCam" not in stored
        with Image.open(file.path) as image:
            assert not image.getexif()
    with Image.open(person.photo.path) as image:
        assert image.size == (SIZE[1], SIZE[0])


def test_a_photo_saved_in_code_gets_a_generated_name_too(db, settings):
    upload = SimpleUploadedFile("../../etc/passwd.jpg", _encode(_picture(), "JPEG"))

    person = factories.person(photo=upload)

    assert re.fullmatch(r"people/[0-9a-f]{32}\.jpg", person.photo.name)
    media = Path(settings.MEDIA_ROOT).resolve()
    assert Path(person.photo.path).resolve().is_relative_to(media)


@pytest.mark.parametrize(
    "filename, build",
    [
        # A browser sniffing the bytes could read either as a page.
        ("polyglot.png", lambda: _encode(_picture(), "PNG") + HTML),
        ("comment.jpg", lambda: _encode(_picture(), "JPEG", comment=HTML)),
    ],
    ids=["png-followed-by-html", "jpeg-comment-with-html"],
)
def test_html_hidden_in_an_image_does_not_survive_re_encoding(
    admin_client_logged_in, filename, build
):
    upload = build()
    assert HTML in upload

    response = _post_photo(
        admin_client_logged_in,
        _add_url(),
        filename=filename,
        content=upload,
        content_type="image/png" if filename.endswith(".png") else "image/jpeg",
    )

    assert response.status_code == 302, _photo_errors(response)
    person = Person.objects.get(slug="grace-hopper")
    for file in (person.photo, person.photo_thumbnail):
        stored = Path(file.path).read_bytes()
        assert b"<script" not in stored and b"<html" not in stored


# -- refused --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "filename, content_type, build, message", REFUSED.values(), ids=REFUSED.keys()
)
def test_a_file_that_is_not_a_usable_photo_is_refused_with_a_message(
    admin_client_logged_in, settings, filename, content_type, build, message
):
    response = _post_photo(
        admin_client_logged_in,
        _add_url(),
        filename=filename,
        content=build(),
        content_type=content_type,
    )

    assert response.status_code == 200
    errors = _photo_errors(response)
    assert any(message in error for error in errors), errors
    assert not Person.objects.exists()
    assert _media_files(settings) == []


def test_a_photo_over_the_byte_cap_is_refused_with_the_limit(
    admin_client_logged_in, settings
):
    settings.PHOTO_MAX_BYTES = 50 * 1024
    upload = _encode(_noise((200, 200)), "PNG")
    assert len(upload) > settings.PHOTO_MAX_BYTES

    response = _post_photo(
        admin_client_logged_in,
        _add_url(),
        filename="big.png",
        content=upload,
        content_type="image/png",
    )

    assert response.status_code == 200
    errors = _photo_errors(response)
    assert any("the limit is 50 KiB" in error for error in errors), errors
    assert not Person.objects.exists()
    assert _media_files(settings) == []


def _member_with_a_photo(client) -> tuple[Person, str]:
    """Add a member with a photo through the admin; the member and their change URL."""
    first = _post_photo(
        client,
        _add_url(),
        filename="first.png",
        content=_encode(_picture(), "PNG"),
        content_type="image/png",
    )
    assert first.status_code == 302
    person = Person.objects.get(slug="grace-hopper")
    return person, reverse("admin:people_person_change", args=[person.pk])


def test_a_refused_upload_on_the_change_form_keeps_the_current_photo(
    admin_client_logged_in, settings
):
    person, change = _member_with_a_photo(admin_client_logged_in)
    kept = sorted(_media_files(settings))

    response = _post_photo(
        admin_client_logged_in,
        change,
        filename="second.jpg",
        content=_encode(_picture(), "GIF"),
        content_type="image/jpeg",
    )

    assert response.status_code == 200
    assert _photo_errors(response)
    refreshed = Person.objects.get(pk=person.pk)
    assert (refreshed.photo.name, refreshed.photo_thumbnail.name) == (
        person.photo.name,
        person.photo_thumbnail.name,
    )
    assert sorted(_media_files(settings)) == kept


# -- other ways in and out ------------------------------------------------------------


def test_the_api_takes_no_photo(admin_client_logged_in):
    factories.person(slug="grace-hopper")
    upload = SimpleUploadedFile(
        "photo.png", _encode(_picture(), "PNG"), content_type="image/png"
    )

    response = admin_client_logged_in.patch(
        "/api/people/grace-hopper/",
        encode_multipart(BOUNDARY, {"headline": "New", "photo": upload}),
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
    )

    assert response.status_code == 200
    person = Person.objects.get(slug="grace-hopper")
    assert person.headline == "New"
    assert not person.photo


def test_served_photos_are_images_the_browser_must_not_sniff(
    admin_client_logged_in, settings, monkeypatch
):
    routes = [p for p in site_urls.urlpatterns if getattr(p, "callback", None) is serve]
    if not routes:
        pytest.skip("this deployment serves media from elsewhere (SERVE_MEDIA=0)")
    # The route read MEDIA_ROOT when the URLconf loaded; the tests move it per test.
    monkeypatch.setitem(routes[0].default_args, "document_root", settings.MEDIA_ROOT)
    response = _post_photo(
        admin_client_logged_in,
        _add_url(),
        filename="photo.png",
        content=_encode(_picture(), "PNG") + HTML,
        content_type="image/png",
    )
    assert response.status_code == 302
    person = Person.objects.get(slug="grace-hopper")

    for file in (person.photo, person.photo_thumbnail):
        served = Client().get(file.url)
        assert served.status_code == 200
        assert served["Content-Type"] == "image/jpeg"
        assert served["X-Content-Type-Options"] == "nosniff"


def test_a_replaced_photo_and_its_thumbnail_are_deleted_once_saved(
    admin_client_logged_in, settings, django_capture_on_commit_callbacks
):
    person, change = _member_with_a_photo(admin_client_logged_in)
    old = sorted(_media_files(settings))
    assert len(old) == 2

    with django_capture_on_commit_callbacks(execute=True):
        second = _post_photo(
            admin_client_logged_in,
            change,
            filename="second.jpg",
            content=_encode(_noise(SIZE), "JPEG"),
            content_type="image/jpeg",
        )

    assert second.status_code == 302
    person.refresh_from_db()
    kept = sorted(_media_files(settings))
    assert kept == sorted(
        Path(settings.MEDIA_ROOT) / name
        for name in (person.photo.name, person.photo_thumbnail.name)
    )
    assert not set(old) & set(kept)
    for path in old:
        url = "/media/" + str(path.relative_to(settings.MEDIA_ROOT))
        assert admin_client_logged_in.get(url).status_code == 404


def test_a_photo_shared_with_another_record_is_not_deleted(
    db, settings, django_capture_on_commit_callbacks
):
    upload = SimpleUploadedFile("a.png", _encode(_picture(), "PNG"))
    ada = factories.person(photo=upload)
    twin = factories.person(
        photo=ada.photo.name, photo_thumbnail=ada.photo_thumbnail.name
    )
    with django_capture_on_commit_callbacks(execute=True):
        ada.photo = SimpleUploadedFile("b.png", _encode(_noise(SIZE), "PNG"))
        ada.save()
    assert twin.photo.storage.exists(twin.photo.name)
    assert twin.photo.storage.exists(twin.photo_thumbnail.name)


def test_a_cleared_photo_is_deleted(db, settings, django_capture_on_commit_callbacks):
    ada = factories.person(
        photo=SimpleUploadedFile("a.png", _encode(_picture(), "PNG"))
    )
    assert len(_media_files(settings)) == 2
    with django_capture_on_commit_callbacks(execute=True):
        ada.photo = ""
        ada.save()
    assert _media_files(settings) == []
