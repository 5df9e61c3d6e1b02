"""The word splitting every lexical comparison rests on."""

from __future__ import annotations

from memory_sleep.text import tokens, word_sequence


def test_words_with_accents_or_umlauts_stay_whole() -> None:
    """ "Björn" split into "bj" and "rn" made two people's names look alike and their own unmatchable."""
    assert tokens("Björn owns Lucía's search; Größe für José") >= {"björn", "lucía", "größe", "josé"}
    assert word_sequence("Ask Björn, then Çağrı") == ["ask", "björn", "çağrı"]


def test_hosts_versions_and_cjk_keep_their_shape() -> None:
    assert tokens("deploy to billing.example.io at v1.2 on db-1") >= {"billing.example.io", "v1.2", "db-1"}
    assert {"東京", "京に"} <= tokens("東京に行く")
