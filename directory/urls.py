from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.static import serve

from directory import views

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("people/", include("people.urls")),
    path("publications/", include("publications.urls")),
    path("events/", include("events.urls")),
    path("topics/<slug:slug>/", views.topic_detail, name="topic-detail"),
    path("search/", views.search, name="search"),
    path("admin/", admin.site.urls),
]

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
