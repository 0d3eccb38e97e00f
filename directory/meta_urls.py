"""Site-wide metadata: sitemap.xml and robots.txt."""

from django.contrib.sitemaps.views import sitemap
from django.http import HttpRequest, HttpResponse
from django.urls import path, reverse
from django.views.decorators.http import require_GET

from directory.sitemaps import SITEMAPS


@require_GET
def robots_txt(request: HttpRequest) -> HttpResponse:
    """Let crawlers read everything but the admin, and show them the sitemap."""
    lines = [
        "User-agent: *",
        f"Disallow: {reverse('admin:index')}",
        "Allow: /",
        f"Sitemap: {request.build_absolute_uri(reverse('sitemap'))}",
    ]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain")


urlpatterns = [
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    path("robots.txt", robots_txt, name="robots-txt"),
]
