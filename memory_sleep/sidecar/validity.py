"""Validity in time, derived from the files: an indexed item became true on its day and stopped being
true when archive.md records the entry that said it superseded, done or finished.

The raw note lines (and weekly lines, and the archive's own copy) that state what such an entry said,
dated from the entry's day up to its ending, share its ending; the note that ended it does not. So
the sidecar holds nothing the files do not say, and an undone run's validity goes with its archive.
"""

from __future__ import annotations

from datetime import date

from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.search import selective_terms
from memory_sleep.sidecar.tokenize import query_terms
from memory_sleep.text import tokens
from memory_sleep.workspace.archive import ended_statements, records_since, says_the_same
from memory_sleep.workspace.layout import Workspace

Ended = dict[int, tuple[str, str, str | None]]  # entry id: (valid_to, status, ended_by)
CANDIDATES = 100
_KINDS = ("note", "weekly", "archive")


def derive_validity(store: SidecarStore, workspace: Workspace) -> Ended:
    """Every indexed item that stopped being true, from archive.md's records."""
    try:
        text = workspace.archive.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return {}
    ended: Ended = {}
    for old, ending in ended_statements(records_since(text, date.min)):
        start = (old.day or ending.day).isoformat()
        said = tokens(old.text)
        wanted = selective_terms(store, query_terms(old.text), CANDIDATES * 2)
        if not wanted:
            continue
        until = ending.day.isoformat()
        for entry_id, day, line in store.dated_matches(wanted, _KINDS, start, until, CANDIDATES):
            if says_the_same(said, tokens(line), restated=day != start):
                ended[entry_id] = (until, ending.status, ending.by)
    return ended
