import time

import pytest

from sources.http import SourceError, get_json, new_session


def test_it_retries_429_and_honours_retry_after(source_server):
    source_server.add(
        "/thing",
        (429, {"Retry-After": "1"}, "slow down"),
        (503, {}, "busy"),
        {"ok": True},
    )
    started = time.monotonic()
    data = get_json(new_session(backoff=0.01), f"{source_server.url}/thing")
    assert data == {"ok": True}
    assert len(source_server.requests) == 3
    # The one-second Retry-After was waited out, not the tiny backoff.
    assert time.monotonic() - started >= 1


def test_it_gives_up_after_its_retries_with_one_clear_error(source_server):
    source_server.add("/down", (503, {}, "busy"))
    with pytest.raises(SourceError, match=r"GET http://127.*/down: .*HTTP 503"):
        get_json(new_session(retries=2, backoff=0.01), f"{source_server.url}/down")
    assert len(source_server.requests) == 3


def test_it_does_not_retry_a_404_and_names_it(source_server):
    with pytest.raises(SourceError, match="not found"):
        get_json(new_session(backoff=0.01), f"{source_server.url}/nothing")
    assert len(source_server.requests) == 1


def test_it_names_an_unreachable_source():
    # Port 9 on loopback: nothing listens there.
    with pytest.raises(SourceError, match="unreachable"):
        get_json(new_session(retries=1, backoff=0.01), "http://127.0.0.1:9/x")


def test_it_rejects_an_answer_that_is_not_json(source_server):
    source_server.add("/html", (200, {"Content-Type": "text/html"}, "<html>"))
    with pytest.raises(SourceError, match="not JSON"):
        get_json(new_session(), f"{source_server.url}/html")


def test_it_times_out_on_a_silent_source():
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts the connection, never answers
    port = listener.getsockname()[1]
    try:
        with pytest.raises(SourceError, match="no answer within"):
            get_json(
                new_session(retries=0), f"http://127.0.0.1:{port}/", timeout=(1, 0.3)
            )
    finally:
        listener.close()
