from django.urls import path

from publications import views

urlpatterns = [
    path("", views.PublicationListView.as_view(), name="publication-list"),
    path(
        "<slug:slug>/", views.PublicationDetailView.as_view(), name="publication-detail"
    ),
    path("<slug:slug>.bib", views.publication_bibtex, name="publication-bibtex"),
]
