"""Offline NREM: routine readings and stack traces carry no durable fact."""

from __future__ import annotations

import pytest

from memory_sleep.engines.base import ClassifyContext
from memory_sleep.engines.offline.classify import OfflineClassifier
from memory_sleep.models import Classification

from .item_helpers import note_item


def _classify(text: str) -> Classification:
    item = note_item(text)
    return OfflineClassifier().classify([item], ClassifyContext(projects=["Meridian"], memory=[]))[0]


@pytest.mark.parametrize(
    "text",
    [
        "**Build:** #3,107 green (7m34s)",
        "**Uptime:** 23d 5h",
        "**Backup**: ok, 21.9 GB",
        "- Backup erledigt (8.2 GB), alles grün",
        "**Deploy:** Meridian v0.16.2 → staging",
        "20:15 disk on meridian-billing-04: 49% used",
        "- dependabot: merged 45 PRs for Meridian",
        "* merged #848 (docs: quota section)",
        "14:19 ran the Meridian cert-renew job by hand, took 0m46s",
        'Exception in thread "main" java.lang.IllegalStateException: context deadline exceeded',
    ],
)
def test_routine_readings_are_discarded(text: str) -> None:
    verdict = _classify(text)
    assert verdict.verdict == "DISCARD"
    assert not verdict.closes_action


@pytest.mark.parametrize(
    "text",
    [
        "Meridian backups go to s3://meridian-billing-us-east-1",
        "Lesson: check free disk on meridian-reports-03 before big migrations, it hit 100% halfway last time",
        "- [ ] Backup: ok to delete the old snapshots? ask Wei by 2026-11-30",
    ],
)
def test_facts_lessons_and_actions_about_the_same_things_are_kept(text: str) -> None:
    assert _classify(text).verdict == "KEEP"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("- Meridian reports got rewritten from Rust 1.79 to Go 1.22", "fact"),
        ("- Meridian backups retention changed 7 days → 365 days", "fact"),
        ("11:12 Meridian leaves Sentry + Uptime Kuma for Honeycomb; nobody wants to own it", "decision"),
        ("[08:43] Globex renewal pushed to 2026-10-25 (was 2026-10-19)", "fact"),
        (
            "10:58 Switching Nimbus from a local Llama on the GPU box to Claude Haiku: it halves incidents",
            "decision",
        ),
        (
            "[20:52] Back from Buildkite to self-hosted Woodpecker for Nimbus CI, because nobody else knows it",
            "decision",
        ),
        ("- Zara takes over Nimbus admin from Chloe", "relationship"),
    ],
)
def test_a_change_of_value_or_vendor_is_kept(text: str, category: str) -> None:
    verdict = _classify(text)
    assert (verdict.verdict, verdict.category) == ("KEEP", category)
