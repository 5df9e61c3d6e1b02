"""The word splitting every lexical comparison rests on."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memory_sleep import text
from memory_sleep.text import CJK_RANGES, CLOCK, deadline_in, tokens, word_sequence

PATTERNS = ("_TERM", "_WORD", "_CJK", "_SPACE_BETWEEN_CJK")


def test_words_with_accents_or_umlauts_stay_whole() -> None:
    """ "Björn" split into "bj" and "rn" made two people's names look alike and their own unmatchable."""
    assert tokens("Björn owns Lucía's search; Größe für José") >= {"björn", "lucía", "größe", "josé"}
    assert word_sequence("Ask Björn, then Çağrı") == ["ask", "björn", "çağrı"]


def test_hosts_versions_and_cjk_keep_their_shape() -> None:
    assert tokens("deploy to billing.example.io at v1.2 on db-1") >= {"billing.example.io", "v1.2", "db-1"}
    assert {"東京", "京に"} <= tokens("東京に行く")


@given(st.text(st.characters(max_codepoint=0x303F)))
def test_text_before_the_cjk_blocks_splits_the_same_without_the_cjk_patterns(sample: str) -> None:
    """Text with no character from U+3040 on is read by patterns without the CJK classes (they cost
    ~9 ms to compile) until a process meets one that has: they find exactly what the full ones find."""
    plain, full = text._compiled(""), text._compiled(CJK_RANGES)
    for without, with_cjk in zip(plain[:3], full[:3], strict=True):  # terms, words, CJK characters
        assert without.findall(sample) == with_cjk.findall(sample)
    assert plain[3].sub("", sample) == full[3].sub("", sample)  # spaces between CJK characters


def test_the_cjk_patterns_serve_from_the_first_text_that_may_hold_cjk_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, pattern in zip(PATTERNS, text._compiled(""), strict=True):
        monkeypatch.setattr(text, name, pattern)
    monkeypatch.setattr(text, "_cjk_compiled", False)
    assert text.words_and_runs("naïve → café") == ["naïve", "café"]
    assert not text._cjk_compiled
    assert text.words_and_runs("東京に行く, vite") == ["東京に行く", "vite"]
    assert text._cjk_compiled and [getattr(text, name) for name in PATTERNS] == list(
        text._compiled(CJK_RANGES)
    )
    assert text.tokens("会议 on Thursday") >= {"会议", "thursday"}


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("TODO renew the domain by 2026-12-04", "2026-12-04"),
        ("ask Raj for the load numbers due Dec 3", "2026-12-03"),
        ("Action: get Raj access to the staging cluster by 3 Dec", "2026-12-03"),
        ("Next: fix the flaky test `test_resolve_tenant` (MER-1600) bis 2.12", "2026-12-02"),
        ("document the reindex runbook (bis 15.12.)", "2026-12-15"),
        ("TODO ask Nadia for the load numbers （11月29日まで）", "2026-11-29"),
        ("need to migrate billing off meridian-billing-04 （12月7日まで）", "2026-12-07"),
        ("review the PR due 12/03", "2026-12-03"),
        ("rotate the TLS cert before Sunday", "2026-11-29"),
        ("send the SOW by Mon", "2026-11-30"),
        ("upgrade the exporter by Friday next week", "2026-12-04"),
        ("ask Lena for the numbers (today, before I log off)", "2026-11-26"),
        ("renew the domain by EOD", "2026-11-26"),
        ("send the invoice by tomorrow morning", "2026-11-27"),
        ("TODO send Yuki feedback on the alerts design by end of month", "2026-11-30"),
        ("schedule the demo by Thursday next week (due 2026-12-03)", "2026-12-03"),
        ("file the report by 10 Jan", "2027-01-10"),
    ],
)
def test_deadlines_in_the_wordings_people_use(text: str, due: str) -> None:
    """Written on Thursday 2026-11-26. An action whose deadline was not read never shows as due or
    overdue in the briefing."""
    assert deadline_in(text, date(2026, 11, 26)) == date.fromisoformat(due)


@pytest.mark.parametrize(
    "text",
    [
        "bump Python 3.11 to 3.12 for the worker",
        "met at 10.30 by the way",
        "the exporter runs 14 days of logs",
    ],
)
def test_no_deadline_where_none_is_said(text: str) -> None:
    assert deadline_in(text, date(2026, 11, 26)) is None


@pytest.mark.parametrize(
    "text",
    [
        "Code freeze from 2026-12-20 until 2027-01-04 for all services",
        "Codefreeze vom 2026-12-20 bis 2027-01-04 für alle Dienste",
        "Sofia geht vom 30.11. bis 8.1. in Elternzeit",
    ],
)
def test_the_end_of_a_period_is_no_deadline(text: str) -> None:
    """ "from X until Y", "vom X bis Y": a span of days (a freeze, a leave), not a task due on its last
    day; German "bis" says both, so a freeze was filed as an action that went OVERDUE."""
    assert deadline_in(text, date(2026, 11, 26)) is None


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("freeze 2026-12-20 until 2027-01-04: ship the hotfix by 2026-12-18", "2026-12-18"),
        ("ship release 1.4.12 by 2026-12-04", "2026-12-04"),  # a version, no day
    ],
)
def test_a_deadline_after_a_period_or_a_version_is_still_read(text: str, due: str) -> None:
    assert deadline_in(text, date(2026, 11, 26)) == date.fromisoformat(due)


@pytest.mark.parametrize(
    ("text", "clocks"),
    [
        ("[14:02] deployed", ["14:02"]),
        ("**Time:** 2026-03-22 08:19:33 UTC", ["08:19:33"]),  # seconds are part of the time, not left behind
        ("2026-03-22T08:19 build", ["08:19"]),
        ("ratio 16:9:4, build 1:2:30:45", []),  # a run of digits and colons longer than a time
        ("port 12:345", []),
    ],
)
def test_a_clock_is_a_time_of_day_whole(text: str, clocks: list[str]) -> None:
    assert CLOCK.findall(text) == clocks


def test_a_shortened_line_closes_the_parentheses_it_cuts() -> None:
    """A supersede noted "(previously: Harbor staging moved to a bigger box: staging IP is now 10.0.4.27
    (was…)": the cut left its own parenthesis and the note's open."""
    old = "Staging moved to a bigger box: staging IP is now 10.0.4.27 (was 10.0.3.9, that box is gone)"
    assert (
        text.shorten(old, 80) == "Staging moved to a bigger box: staging IP is now 10.0.4.27 (was 10.0.3.9…)"
    )
    assert text.shorten("a [b (c d e f g h) i j k l m n o p", 12) == "a [b (c…)]"


@given(st.text(alphabet="ab ()[]", max_size=120), st.integers(min_value=8, max_value=100))
@example("[[[[]])[[", 8)  # found in session 55: three rounds of making room for the closers were not enough
def test_shorten_stays_within_its_limit_and_leaves_open_only_what_was_open(line: str, limit: int) -> None:
    short = text.shorten(line, limit)
    assert len(short) <= limit
    if not text._closers(" ".join(line.split())):
        assert not text._closers(short)
