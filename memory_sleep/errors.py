"""The errors memory-sleep raises on purpose; each message names the file or call and the next step."""

from __future__ import annotations


class MemorySleepError(Exception):
    """Base of every error a user can act on (exit code 1)."""


class ConfigError(MemorySleepError):
    """memory-sleep.toml or a command-line option is wrong."""


class WorkspaceError(MemorySleepError):
    """The workspace folder or one of its files cannot be used."""


class LockedError(WorkspaceError):
    """Another run holds the workspace lock."""


class GuardError(MemorySleepError):
    """A run was refused because it would have damaged MEMORY.md."""


class UndoError(MemorySleepError):
    """There is nothing to undo, or undoing would overwrite later edits."""


class StoreError(MemorySleepError):
    """The sidecar state could not be read or written."""


class ProviderError(MemorySleepError):
    """An LLM provider call failed."""

    def __init__(self, provider: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{provider}: {message}")
        self.provider = provider
        self.status = status
