from django.urls import path

from publications import views

urlpatterns = [
    path("", views.PublicationListView.as_view(), name="publication-list"),
    # Before the detail routes: "export.bib" would otherwise read as a slug.
    path(
        "export.bib",
        views.publication_export,
        {"fmt": "bib"},
        name="publication-export-bib",
    ),
    path(
        "export.ris",
        views.publication_export,
        {"fmt": "ris"},
        name="publication-export-ris",
    ),
    path(
        "export.json",
        views.publication_export,
        {"fmt": "json"},
        name="publication-export-json",
    ),
    path(
        "<slug:slug>/", views.PublicationDetailView.as_view(), name="publication-detail"
    ),
    path("<slug:slug>.bib", views.publication_bibtex, name="publication-bibtex"),
]
