from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.static import serve
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from directory import views

_docs_csp = csp_update({"style-src": [UNSAFE_INLINE]})
# ReDoc builds its search index in a worker made from a blob of its own script.
_redoc_csp = csp_update({"style-src": [UNSAFE_INLINE], "worker-src": [SELF, "blob:"]})

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("people/", include("people.urls")),
    path("publications/", include("publications.urls")),
    path("events/", include("events.urls")),
    path("topics/", views.topic_list, name="topic-list"),
    path("topics/<slug:slug>/", views.topic_detail, name="topic-detail"),
    path("search/", views.search, name="search"),
    path("", include("directory.meta_urls")),
    path("admin/", admin.site.urls),
    path("api/", include("directory.api_router", namespace="api")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI's start-up script is served as a file; both document viewers style
    # their widgets inline, so their pages alone allow inline styles. ReDoc's page
    # leaves out the web fonts and logo it would fetch from other hosts
    # (templates/drf_spectacular/redoc.html).
    path(
        "api/docs/",
        _docs_csp(SpectacularSwaggerSplitView.as_view(url_name="api-schema")),
        name="api-docs",
    ),
    path(
        "api/redoc/",
        _redoc_csp(SpectacularRedocView.as_view(url_name="api-schema")),
        name="api-redoc",
    ),
]

handler404 = "directory.views.not_found"
handler500 = "directory.views.server_error"

if settings.SERVE_MEDIA:
    # Uploaded photos; a production deployment serves media from its web server
    # or object storage instead.
    urlpatterns.append(
        path(
            f"{settings.MEDIA_URL.strip('/')}/<path:path>",
            serve,
            {"document_root": settings.MEDIA_ROOT},
        )
    )
