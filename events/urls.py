from django.urls import path

from events import views
from events.feeds import NewsFeed

urlpatterns = [
    path("", views.EventListView.as_view(), name="event-list"),
    # Before the detail route: "feed" would otherwise read as an event's slug.
    path("feed/", NewsFeed(), name="event-feed"),
    path("calendar.ics", views.event_calendar, name="event-calendar"),
    path("<slug:slug>/", views.EventDetailView.as_view(), name="event-detail"),
]
