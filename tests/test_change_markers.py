"""The words that mark a value as gone or a note as a repeat come from languages/*.toml, so a note in
another language the files hold is read alike."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from memory_sleep.engines.offline import repeats, values


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("Port des Exporters: 8000 (vorher 5432)", ("5432",)),
        ("Ansprechpartnerin ist Wren statt Lou", ("Lou",)),
        ("El puerto del exportador ya no 5432, ahora 8000", ("5432",)),
        ("Exporter listens on 8000 (was 5432)", ("5432",)),
        ("SSO ships in v1.12; the rebuilt dashboard is dropped", ("the rebuilt dashboard",)),
        ("Dropping Fly.io, moving Harbor to Render instead.", ("Fly.io",)),
        ("We ditched the Redis cache; Postgres holds sessions now", ("Redis cache",)),
        ("Moving off Heroku this sprint", ("Heroku",)),
    ],
)
def test_old_values_are_named_by_the_words_of_each_language_file(text: str, gone: tuple[str, ...]) -> None:
    assert values.replaced_values(text) == gone


def test_a_note_says_it_repeats_in_each_language_file() -> None:
    assert repeats.says_repeat("Zur Erinnerung: Kai arbeitet aus Europe/Berlin")
    assert repeats.says_repeat("Recap: Kai works from Europe/Berlin")
    assert not repeats.says_repeat("Kai works from Europe/Berlin")


PIECES = (
    "Exporter listens on 8000",
    " (was 5432)",
    " (previously: Kafka)",
    "moved from Pim to Teo",
    ", previously 10:50",
    "; before: wants a heads-up",
    " instead of Dev",
    " not 5432",
    " no longer on Slack",
    "; the rebuilt dashboard is dropped",
    "Dropping Fly.io, ",
    " 4 - 16 > 8",
    " v1.12",
    "\n  owner: Kai",
    " 继续完善（4个基础 + 5个专业）",
    "-",
    ">",
    " ",
    ",",
)


@given(st.lists(st.sampled_from(PIECES), max_size=12))
@settings(max_examples=300, deadline=None)
def test_a_text_without_an_arrow_is_read_alike_without_the_arrow_pattern(pieces: list[str]) -> None:
    text = "".join(pieces)
    assume("->" not in text)
    for full, arrowless in (values._OLD_VALUE, values._SUPERSEDED_VALUE):
        assert [(m.span(), m.groupdict()) for m in arrowless.finditer(text)] == [
            (m.span(), m.groupdict()) for m in full.finditer(text)
        ]


@given(st.lists(st.sampled_from(PIECES), max_size=12), st.sampled_from([str.upper, str.title, str]))
@settings(max_examples=300, deadline=None)
def test_a_text_the_cue_check_skips_is_one_the_patterns_find_nothing_in(
    pieces: list[str], case: Callable[[str], str]
) -> None:
    text = case("".join(pieces))
    if values._holds_no_cue(text):
        assert not values._OLD_VALUE[0].search(text)
        assert not values._SUPERSEDED_VALUE[0].search(text)
        assert not values._FROM_OLD.search(text)


@pytest.mark.parametrize("arrow", ["→", "->"])
def test_a_value_before_an_arrow_is_gone(arrow: str) -> None:
    text = f"Worker concurrency 4 {arrow} 16 (was 2)"
    assert values.replaced_values(text) == ("concurrency 4", "4", "2")
    assert "4" not in values.current_claim(text).split()


def test_what_a_change_still_names_is_not_the_value_it_says_is_gone() -> None:
    statement = (
        "Atlas 2.4 ships the sso flow; audit log v2 is late (previously: Atlas 2.4 will ship audit log v2)"
    )
    # its own note line states the new scope of the same release: the same statement, not the change
    assert not values.changes_away(statement, "Atlas 2.4 ships the sso flow; audit log v2 is late")
    # the old scope is what it says is gone
    assert values.changes_away(statement, "Atlas 2.4 will ship audit log v2")
    assert values.changes_away(
        "Quokka moved from Python 3.12 to 3.11", "Quokka moved from Python 3.11 to 3.12"
    )
