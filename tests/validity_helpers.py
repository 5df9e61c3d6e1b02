"""A workspace run night after night, with entries superseded, done and finished along the way."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

from tests.conftest import run_offline
from tests.sidecar_helpers import make_workspace

FIRST = {
    "2026-11-10.md": "# 2026-11-10\n\n## Decisions\n"
    "- Decided: Orion uses MySQL for the main database, since the team knows it\n"
    "- Decided: the Atlas release train leaves on Fridays at 16:00\n\n"
    "## Todo\n- TODO: renew the Orion TLS cert by 2026-11-20\n"
    "- TODO: book the Lisbon offsite venue for March\n",
    "2026-11-11.md": "# 2026-11-11\n\n- Orion staging server IP is 10.0.0.5\n"
    "- Orion MySQL tuning: buffer pool set to 8 GB for the main database\n",
}
NIGHTS = {
    "2026-11-13.md": "# 2026-11-13\n\n"
    "- Reversed: Orion switches from MySQL to Postgres for the main database, because of JSON support\n"
    "- done: renewed the Orion TLS cert\n",
    "2026-11-15.md": "# 2026-11-15\n\n- Orion staging server IP changed to 10.0.0.9 (was 10.0.0.5)\n"
    "- Decided: the Atlas release train now leaves on Tuesdays at 10:00 instead of Fridays\n",
    "2026-11-17.md": "# 2026-11-17\n\n- done: booked the Lisbon offsite venue for March\n"
    "- Orion Postgres migration finished without downtime\n",
}


def run_nights(tmp_path: Path, after_each: Callable[[Path], object] = lambda _: None) -> Path:
    """The workspace after a first run and one run a night for each of NIGHTS (`after_each` after each)."""
    folder = make_workspace(tmp_path, FIRST)
    run_offline(folder, today=date(2026, 11, 12))
    for name, text in NIGHTS.items():
        (folder / "memory" / name).write_text(text, encoding="utf-8")
        run_offline(folder, today=date.fromisoformat(name[:10]) + timedelta(days=1))
        after_each(folder)
    return folder
