from django.urls import path

from publications import views

app_name = "publications"
urlpatterns = [
    path("", views.PublicationListView.as_view(), name="list"),
    # Before the detail routes: "export.bib" would otherwise read as a slug.
    path(
        "export.bib",
        views.publication_export,
        {"fmt": "bib"},
        name="export-bib",
    ),
    path(
        "export.ris",
        views.publication_export,
        {"fmt": "ris"},
        name="export-ris",
    ),
    path(
        "export.json",
        views.publication_export,
        {"fmt": "json"},
        name="export-json",
    ),
    path("<slug:slug>/", views.PublicationDetailView.as_view(), name="detail"),
    path("<slug:slug>.bib", views.publication_bibtex, name="bibtex"),
]
