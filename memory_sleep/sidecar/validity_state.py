"""The state a validity pass leaves for the next, kept in the sidecar's meta.

Most of it is what each archived statement matched (thousands, after a year), and a night changes
few of them: the whole state (`validity_state`) is written now and then, and a night writes only
what changed since then (`validity_changes`): the state's days, ids and evidence, and the statements
matched otherwise or gone. Read back, the two are the last pass's state. A version that reads only
`validity_state` reads the state of an earlier pass: it matches again what changed since then, as
after a night it did not run.
"""

from __future__ import annotations

import hashlib
from typing import TypeVar

from pydantic import Field, ValidationError

from memory_sleep.models import Strict
from memory_sleep.sidecar.boundary import SidecarStore

STATE_KEY = "validity_state"
CHANGES_KEY = "validity_changes"
VERSION = 5  # of what a statement matches: a state of another version is dropped
# the whole state is written again once the statements matched otherwise since it was written are
# more than this share of them: a night's write stays a fraction of the whole, and so does the read
REWRITE_SHARE = 0.25
_Model = TypeVar("_Model", bound=Strict)


class Matched(Strict):
    """What one archived statement matched: its query terms, the rarest of them it was matched by,
    whether its matches filled the limit, and the items among them that state what it said; when
    they filled it, a digest of the rows it was matched among (`rows`: None in a state written
    before it was kept)."""

    terms: list[str]
    chosen: list[str]
    full: bool
    ids: list[int]
    rows: str | None = None


class ValidityState(Strict):
    version: int = VERSION
    days: dict[str, str]  # day: digest of the items dated that day (id, kind, content hash)
    day_ids: dict[str, str]  # day: digest of their ids alone
    last_id: int  # the highest id among them
    matched: dict[str, Matched]  # statement (its text, first and last day): what it matched
    # the store's generation and schema when the days were digested, and each day's count of items:
    # a day no item joined since (none added, rewritten or restored: each bumps the generation) that
    # holds as many items as then is as it was, and is not digested again (None: digest every day)
    generation: int | None = None
    schema_version: int | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    # per ending naming a line, the item it names; per file holding such lines, its content hash and
    # count of rows then: an ending whose file's rows are as they were names the same item
    evidence: dict[str, int | None] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict)


class Changes(Strict):
    """A pass's state as changes to the whole one written before (`base`, the digest of its text):
    all of it but the statements, which are those matched otherwise since (`state.matched`) and
    those gone."""

    base: str
    state: ValidityState
    gone: list[str]


class Kept(Strict):
    """The last pass's state, and the whole state its changes are to (None: none to build on)."""

    state: ValidityState
    base: ValidityState | None
    base_digest: str | None


def load_state(store: SidecarStore) -> ValidityState | None:
    """The last pass's state, or None (none yet, another version, or unreadable: match everything)."""
    kept = load(store)
    return kept.state if kept else None


def load(store: SidecarStore) -> Kept | None:
    raw = store.meta(STATE_KEY)
    base = _parsed(ValidityState, raw)
    if raw is None or base is None or base.version != VERSION:
        return None
    digest = _digest(raw)
    changes = _parsed(Changes, store.meta(CHANGES_KEY))
    if changes is None or changes.base != digest or changes.state.version != VERSION:
        return Kept(state=base, base=base, base_digest=digest)
    gone = set(changes.gone)
    matched = {key: found for key, found in base.matched.items() if key not in gone}
    matched.update(changes.state.matched)
    state = changes.state.model_copy(update={"matched": matched})
    return Kept(state=state, base=base, base_digest=digest)


def keep(store: SidecarStore, state: ValidityState, kept: Kept | None) -> None:
    """Write `state` for the next pass: as its changes to the whole state last written, or whole."""
    base = kept.base if kept else None
    if base is not None and kept is not None and kept.base_digest is not None:
        changed = {key: found for key, found in state.matched.items() if base.matched.get(key) != found}
        gone = [key for key in base.matched if key not in state.matched]
        if len(changed) + len(gone) <= REWRITE_SHARE * max(len(base.matched), len(state.matched)):
            changes = Changes(
                base=kept.base_digest, state=state.model_copy(update={"matched": changed}), gone=gone
            )
            store.set_meta(CHANGES_KEY, changes.model_dump_json())
            return
    store.set_meta(STATE_KEY, state.model_dump_json())
    store.delete_meta(CHANGES_KEY)


def _parsed(model: type[_Model], raw: str | None) -> _Model | None:
    if raw is None:
        return None
    try:
        return model.model_validate_json(raw)
    except ValidationError:
        return None


def _digest(raw: str) -> str:
    return hashlib.blake2b(raw.encode(), digest_size=12).hexdigest()
