def test_events_page_lists_news_and_talks(
    client, demo_lab, django_assert_max_num_queries
):
    with django_assert_max_num_queries(8):
        response = client.get("/events/")
    html = response.content.decode()
    assert "DeepDiverV2" in html
    assert "Cornell RL Seminar" in html


def test_event_page_links_its_people(client, demo_lab):
    from events.models import Event

    event = Event.objects.get(title__icontains="Efficient Attention Mechanisms")
    html = client.get(event.get_absolute_url()).content.decode()
    assert 'href="/people/lei-zhu/"' in html
    assert "Nov 14, 2024" in html
