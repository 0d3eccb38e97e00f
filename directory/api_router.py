"""The one router of the JSON API, mounted at /api/."""

from rest_framework.routers import DefaultRouter

from core.api.views import OrganizationViewSet, TopicViewSet
from events.api.views import EventViewSet
from people.api.views import PersonViewSet
from publications.api.views import PublicationViewSet, VenueViewSet

router = DefaultRouter()
router.register("people", PersonViewSet, basename="person")
router.register("publications", PublicationViewSet, basename="publication")
router.register("events", EventViewSet, basename="event")
router.register("topics", TopicViewSet, basename="topic")
router.register("organizations", OrganizationViewSet, basename="organization")
router.register("venues", VenueViewSet, basename="venue")

app_name = "api"
urlpatterns = router.urls
