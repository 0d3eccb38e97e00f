from django.urls import path

from people import views

urlpatterns = [
    path("", views.PersonListView.as_view(), name="person-list"),
    path("<slug:slug>/", views.PersonDetailView.as_view(), name="person-detail"),
    path("<slug:slug>/calendar.ics", views.person_calendar, name="person-calendar"),
    path("<slug:slug>/vcard.vcf", views.person_vcard, name="person-vcard"),
]
