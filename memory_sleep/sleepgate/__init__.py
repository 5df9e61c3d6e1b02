"""SleepGate: the forgetting pass. It scores every live sidecar entry (recency, access frequency,
semantic density), replays logged queries to find which low scorers recall still needs, and
soft-deletes the rest, restorably."""

from __future__ import annotations

from memory_sleep.sleepgate.forget import PassReport, Verdict, run_pass
from memory_sleep.sleepgate.restore import RestoreReport, restore_entries

__all__ = ["PassReport", "RestoreReport", "Verdict", "restore_entries", "run_pass"]
