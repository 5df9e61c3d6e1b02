"""Reading a note's bytes and text: the one place that says why a file of notes cannot be read and
what to do about it, so the run, the sidecar's index and the doctor word it alike."""

from __future__ import annotations

from pathlib import Path

from memory_sleep.text import not_utf8

UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")  # UTF-16's byte-order marks (Notepad's "Unicode")


class NoteReadError(Exception):
    """A note (or another workspace file of items) that cannot be read at all: which file, why, and
    the fix when there is one. `str()` is the run's line; `said` words what became of the file."""

    def __init__(
        self,
        relative: str,
        reason: str,
        fix: str | None = None,
        missing: bool = False,
        outcome: str = "skipped",
    ) -> None:
        self.relative = relative
        self.reason = reason
        self.fix = fix
        self.missing = missing  # gone between being listed and being read: nothing to fix
        self.outcome = outcome
        super().__init__(self.said(outcome))

    def said(self, outcome: str) -> str:
        """ "memory/x.md: binary data, not a text note; skipped. Move it out of memory/." """
        return f"{self.relative}: {self.reason}; {outcome}." + (f" {self.fix}" if self.fix else "")


def read_bytes(path: Path, relative: str, max_bytes: int | None = None) -> bytes:
    """The file's bytes, refused without reading them when over `max_bytes`."""
    try:
        if max_bytes is not None and (size := path.stat().st_size) > max_bytes:
            raise _too_big(relative, size, max_bytes)
        return path.read_bytes()
    except OSError as error:
        fix = (
            f"Make it readable by you (`chmod u+r {path.absolute()}`, or run as its owner)."
            if isinstance(error, PermissionError)
            else None
        )
        raise NoteReadError(
            relative, f"cannot be read ({error.strerror})", fix, isinstance(error, FileNotFoundError)
        ) from None


def decode(relative: str, raw: bytes, max_bytes: int | None) -> str:
    """The text of a file's bytes: UTF-8 (a BOM allowed), no NUL, at most `max_bytes` (None: any size).
    A UTF-16 note is refused as such: read as bytes it looks binary, and its fix is to re-save it."""
    if max_bytes is not None and len(raw) > max_bytes:
        raise _too_big(relative, len(raw), max_bytes)
    if raw.startswith(UTF16_BOMS):
        raise NoteReadError(relative, "UTF-16 text, not UTF-8", "Re-save it as UTF-8.")
    if b"\x00" in raw:
        raise NoteReadError(relative, "binary data, not a text note", "Move it out of memory/.")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise NoteReadError(relative, not_utf8(error), "Re-save it as UTF-8.") from None


def _too_big(relative: str, size: int, max_bytes: int) -> NoteReadError:
    return NoteReadError(
        relative,
        f"{size:,} bytes, over max_note_bytes ({max_bytes:,})",
        "Split the file, or raise max_note_bytes in memory-sleep.toml.",
    )
