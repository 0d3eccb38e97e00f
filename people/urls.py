from django.urls import path

from people import views

urlpatterns = [
    path("", views.PersonListView.as_view(), name="person-list"),
    path("<slug:slug>/", views.PersonDetailView.as_view(), name="person-detail"),
]
