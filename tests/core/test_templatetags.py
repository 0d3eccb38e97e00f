from core.templatetags.directory_tags import link_addresses


def test_link_addresses_keeps_every_character_around_an_address():
    text = "arXiv:2309.10285 (https://arxiv.org/abs/2309.10285), as recorded <there>"

    assert link_addresses(text) == (
        'arXiv:2309.10285 (<a href="https://arxiv.org/abs/2309.10285" '
        'rel="nofollow">https://arxiv.org/abs/2309.10285</a>), as recorded '
        "&lt;there&gt;"
    )


def test_link_addresses_leaves_a_full_stop_after_an_address_outside_it():
    assert link_addresses("See https://example.org/a?b=1&c=2.") == (
        'See <a href="https://example.org/a?b=1&amp;c=2" rel="nofollow">'
        "https://example.org/a?b=1&amp;c=2</a>."
    )
