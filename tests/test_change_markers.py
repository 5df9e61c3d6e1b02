"""The words that mark a value as gone or a note as a repeat come from languages/*.toml, so a note in
another language the files hold is read alike."""

from __future__ import annotations

import pytest

from memory_sleep.engines.offline import matching, repeats


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("Port des Exporters: 8000 (vorher 5432)", ("5432",)),
        ("Ansprechpartnerin ist Wren statt Lou", ("Lou",)),
        ("El puerto del exportador ya no 5432, ahora 8000", ("5432",)),
        ("Exporter listens on 8000 (was 5432)", ("5432",)),
        ("SSO ships in v1.12; the rebuilt dashboard is dropped", ("the rebuilt dashboard",)),
    ],
)
def test_old_values_are_named_by_the_words_of_each_language_file(text: str, gone: tuple[str, ...]) -> None:
    assert matching.replaced_values(text) == gone


def test_a_note_says_it_repeats_in_each_language_file() -> None:
    assert repeats.says_repeat("Zur Erinnerung: Kai arbeitet aus Europe/Berlin")
    assert repeats.says_repeat("Recap: Kai works from Europe/Berlin")
    assert not repeats.says_repeat("Kai works from Europe/Berlin")
