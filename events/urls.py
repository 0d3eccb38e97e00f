from django.urls import path

from events import views
from events.feeds import NewsFeed

app_name = "events"
urlpatterns = [
    path("", views.EventListView.as_view(), name="list"),
    # Before the detail route: "feed" would otherwise read as an event's slug.
    path("feed/", NewsFeed(), name="feed"),
    path("calendar.ics", views.event_calendar, name="calendar"),
    path("<slug:slug>/", views.EventDetailView.as_view(), name="detail"),
]
