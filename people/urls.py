from django.urls import path

from people import views

app_name = "people"
urlpatterns = [
    path("", views.PersonListView.as_view(), name="list"),
    # Before the profiles: "network" would otherwise read as a member's slug.
    path("network/", views.person_network, name="network"),
    path("<slug:slug>/", views.PersonDetailView.as_view(), name="detail"),
    path("<slug:slug>/calendar.ics", views.person_calendar, name="calendar"),
    path("<slug:slug>/vcard.vcf", views.person_vcard, name="vcard"),
    path(
        "<slug:slug>/connections/<slug:other>/",
        views.person_connections,
        name="connections",
    ),
]
