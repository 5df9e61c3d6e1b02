"""The one place that writes: snapshot first, then temp file + fsync + rename, with a manifest for undo.

A run's manifest is written (status "writing") before the first file changes and marked "done"
after the last. A manifest still "writing" means the run died mid-way; `recover()` puts every file
back as it was before that run. A run that changes the sidecar opens its manifest (`begin`) before
its first sidecar pass, naming the pass: recovery then reverts the pass too, through its caller.
"""

from __future__ import annotations

import contextlib
import shlex
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memory_sleep.errors import UndoError, WorkspaceError
from memory_sleep.workspace.atomic import atomic_write, fsync_dir, sha256, sweep_temporary_files
from memory_sleep.workspace.layout import unwritable


@dataclass(frozen=True)
class FileChange:
    """The new content of a workspace file; None removes it (after it is snapshotted)."""

    path: str
    content: bytes | None


class SnapshotFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    before_sha256: str | None
    after_sha256: str | None


Action = Literal["run", "redact", "forget", "restore", "review", "failed-run"]


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run_id: str
    created: datetime
    status: Literal["writing", "done", "undoing", "undone", "rolled-back"]
    files: list[SnapshotFile]
    # what wrote it: a run, `memory-sleep redact`, `forget` or `restore` (sidecar changes, no file), or a
    # run that raised (its one change is its failure record in sleep-log.json, undone with the run before it)
    action: Action = "run"
    # the run's sidecar passes (SleepGate, GC), named before they change the sidecar: undo and recovery
    # revert them (a manifest from before this field names none; its sleep-log record does)
    sidecar_passes: list[str] = Field(default_factory=list)
    # the folders the run made to hold files it created, deepest first: undo removes those left empty
    folders: list[str] = Field(default_factory=list)


RUN_ID = "%Y%m%dT%H%M%S%fZ"  # a run's id: when it began, in UTC
STOPPED = ("writing", "undoing")  # a run, or an undo, that did not finish: recovery finishes it


class SafeWriter:
    """Applies a run's file changes with a snapshot of every file first; undoes and recovers runs."""

    def __init__(self, root: Path, snapshots_dir: Path, keep: int = 30) -> None:
        self.root = root
        self.snapshots_dir = snapshots_dir
        self.keep = keep

    def begin(self, run_id: str, sidecar_passes: Sequence[str]) -> None:
        """Open a run's manifest before its sidecar passes change anything: a run that dies before
        `apply` closes it is rolled back by `recover`, its passes with it."""
        self._check_no_link(self.snapshots_dir)
        self._save(
            Manifest(
                run_id=run_id,
                created=datetime.now(UTC),
                status="writing",
                files=[],
                sidecar_passes=list(sidecar_passes),
            )
        )

    def apply(
        self,
        run_id: str,
        changes: Sequence[FileChange],
        action: Action = "run",
        sidecar_passes: Sequence[str] = (),
    ) -> Manifest | None:
        """Write every change of one run (or `memory-sleep redact`, or a failed run's record), naming the
        sidecar passes it made; None when no file would change and it names no pass (a manifest `begin`
        opened is then removed). A failed write puts the files back; a run that names passes stays
        "writing" for its caller's `recover`, which reverts them."""
        real = [c for c in changes if self._current(c.path) != c.content]
        folder = self.snapshots_dir / run_id
        begun = (folder / "manifest.json").is_file()
        if not real and not sidecar_passes:
            if begun:
                self._discard(run_id)
            return None
        self._check_no_link(self.snapshots_dir)
        folders = self._new_folders(real)
        files = []
        try:
            for change in real:
                before = self._current(change.path)
                if before is not None:
                    atomic_write(folder / "files" / change.path, before)
                files.append(
                    SnapshotFile(
                        path=change.path,
                        before_sha256=sha256(before) if before is not None else None,
                        after_sha256=sha256(change.content) if change.content is not None else None,
                    )
                )
            manifest = Manifest(
                run_id=run_id,
                created=datetime.now(UTC),
                status="writing",
                files=files,
                action=action,
                sidecar_passes=list(sidecar_passes),
                folders=folders,
            )
            self._save(manifest)
        except OSError as error:
            shutil.rmtree(folder / "files" if begun else folder, ignore_errors=True)  # begun: keep its passes
            raise WorkspaceError(
                f"{self._shown(folder)}: cannot write the snapshot ({error.strerror or error}). "
                "Nothing was changed; check free space and permissions."
            ) from error
        try:
            for change in real:
                self._put(change.path, change.content)
            manifest.status = "done"
            self._save(manifest)
        except (OSError, WorkspaceError) as error:
            failure = (
                error
                if isinstance(error, WorkspaceError)
                else WorkspaceError(
                    f"{self._shown(folder)}/manifest.json: cannot write ({error.strerror or error}). "
                    "Check free space and permissions."
                )
            )
            raise self._roll_back(manifest, failure) from error
        self._prune()
        return manifest

    def erase(self, changes: Sequence[FileChange]) -> None:
        """Write `changes` with no snapshot, each file atomically: only for hard deletion a user asked
        for (`forget-scope`), where a copy would keep what they asked to delete."""
        for change in changes:
            self._current(change.path)  # refuses a path through a link
            self._put(change.path, change.content)

    def scrub_snapshots(
        self,
        scrub: Callable[[str, bytes], bytes | None],
        rehashed: Mapping[str, str | None],
        dry_run: bool = False,
    ) -> list[str]:
        """Pass every copy the snapshots keep through `scrub` (None: drop the copy, and undo leaves that
        file alone), so that no undo restores what it removed; `rehashed` maps the hash of each live
        file `erase` rewrote to its new one (None: removed), so that undo does not take the rewrite for
        a person's edit. Returns the ids of the runs whose snapshot changed (with `dry_run`, would)."""
        rewrite = (lambda copy, content: None) if dry_run else self._rewrite_copy
        hashes: dict[str, str | None] = dict(rehashed)
        changed: list[str] = []
        manifests = self.manifests()
        for manifest in manifests:
            folder = self.snapshots_dir / manifest.run_id
            kept = []
            for entry in manifest.files:
                copy = folder / "files" / entry.path
                if entry.before_sha256 is not None and copy.is_file():
                    before = copy.read_bytes()
                    after = scrub(entry.path, before)
                    if after != before:
                        hashes[entry.before_sha256] = None if after is None else sha256(after)
                        rewrite(copy, after)
                        changed.append(manifest.run_id)
                        if after is None:
                            continue
                kept.append(entry)
            manifest.files = kept
            for overwritten in folder.glob("overwritten-*"):
                for copy in (path for path in overwritten.rglob("*") if path.is_file()):
                    before = copy.read_bytes()
                    after = scrub(copy.relative_to(overwritten).as_posix(), before)
                    if after != before:
                        rewrite(copy, after)
                        changed.append(manifest.run_id)
        for manifest in [] if dry_run else manifests:
            old = manifest.model_dump_json()
            for entry in manifest.files:
                entry.before_sha256 = hashes.get(entry.before_sha256 or "", entry.before_sha256)
                entry.after_sha256 = hashes.get(entry.after_sha256 or "", entry.after_sha256)
            if manifest.model_dump_json() != old or manifest.run_id in changed:
                self._save(manifest)
        return list(dict.fromkeys(changed))

    @staticmethod
    def _rewrite_copy(copy: Path, content: bytes | None) -> None:
        if content is None:
            copy.unlink()
        else:
            atomic_write(copy, content)

    def recover(self, first: Callable[[list[Manifest]], object] | None = None) -> list[str]:
        """Roll back any run that died while writing, and remove the temporary files a killed write
        left behind (the caller holds the lock, so none is in use); returns the run ids rolled back.

        `first` reverts the sidecar passes the stopped runs name, before any file is put back (as for
        `undo`); without it, a stopped run that names passes is an error saying how to finish it.
        """
        return [manifest.run_id for manifest in self._recover(first)]

    def _recover(self, first: Callable[[list[Manifest]], object] | None) -> list[Manifest]:
        sweep_temporary_files(self.root, [self.snapshots_dir])
        self._drop_unbegun()
        stopped = [manifest for manifest in self.manifests() if manifest.status in STOPPED]
        if first is None and any(manifest.sidecar_passes for manifest in stopped):
            names = ", ".join(manifest.run_id for manifest in stopped)
            raise WorkspaceError(
                f"Run {names} stopped before it finished, after changing the sidecar: run `memory-sleep undo` "
                "to roll it back, then try again."
            )
        if stopped and first is not None:
            first(list(reversed(stopped)))
        for manifest in stopped:
            was = manifest.status
            self._restore(manifest)
            manifest.status = "undone" if was == "undoing" else "rolled-back"
            if manifest.files or was == "undoing":
                self._save(manifest)
            else:  # a run stopped before it wrote a file: its passes were all it changed
                self._discard(manifest.run_id)
        return stopped

    def _drop_unbegun(self) -> None:
        """Remove the snapshot folders of runs killed before their manifest was first saved: they hold
        copies of files the run had not yet touched (it writes none before that save), and no undo
        can name them."""
        if not self.snapshots_dir.is_dir() or self.snapshots_dir.is_symlink():
            return
        for folder in self.snapshots_dir.iterdir():
            if folder.is_dir() and not folder.is_symlink() and not (folder / "manifest.json").exists():
                with contextlib.suppress(ValueError):
                    datetime.strptime(folder.name, RUN_ID)
                    shutil.rmtree(folder, ignore_errors=True)

    def _discard(self, run_id: str) -> None:
        """Remove the manifest of a run that wrote no file (and the snapshots folder, if it was the one)."""
        shutil.rmtree(self.snapshots_dir / run_id, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.snapshots_dir.rmdir()

    def _roll_back(self, manifest: Manifest, error: WorkspaceError) -> WorkspaceError:
        """After a failed write, put back the files already written; the error to raise says how that went."""
        try:
            self._restore(manifest)
            if not manifest.sidecar_passes:  # else the caller's `recover` reverts them, then closes it
                manifest.status = "rolled-back"
                self._save(manifest)
        except (OSError, WorkspaceError):
            return WorkspaceError(
                f"{error} The files already written could not be put back now; the next `memory-sleep run` "
                "(or `memory-sleep undo`) rolls them back."
            )
        return WorkspaceError(f"{error} Every file of this run was put back: nothing was changed.")

    def undo(self, force: bool = False, first: Callable[[list[Manifest]], object] | None = None) -> Manifest:
        """Put back every file the last run changed, as it was before that run; returns that run's manifest.

        Failed runs after it changed only their record in sleep-log.json: they are undone with it, newest
        first, so the log goes back to how it was before the run. `first` undoes what else the runs
        changed (the sidecar), once undo is sure to go ahead and before any file is put back; it must
        be safe to repeat, since an undo that stops before its files are back is asked again. A run that
        stopped before it finished is the last run: it is rolled back (`first` too) and returned.
        """
        # a run that died mid-write is the last run; undoing an earlier one instead would leave its
        # half-written files, and the next run's recover() would then overwrite the undone state
        rolled = self._recover(first)
        if rolled:
            return rolled[-1]
        targets = self.undo_targets()
        if not targets:
            undone = [m.run_id for m in self.manifests() if m.status == "undone"]
            raise UndoError(
                f"Nothing to undo: every run kept was undone already, back to run {undone[0]}. "
                "`memory-sleep run` runs again."
                if undone
                else "Nothing to undo: no completed run has a snapshot in memory/.sleep/snapshots."
            )
        run = targets[-1]
        edited = self._edited(targets)
        if edited and not force:
            raise UndoError(
                f"Changed since run {run.run_id}: {', '.join(edited)}. Undo would overwrite those edits; "
                f"run `memory-sleep undo --force {shlex.quote(str(self.root))}` to restore anyway (the current "
                "versions are kept in the snapshot)."
            )
        if first is not None:
            first(targets)
        for manifest in targets:
            try:
                self._restore(manifest)
            except WorkspaceError as error:
                if manifest.status != "undoing":
                    raise
                raise WorkspaceError(
                    f"{error} The undo stopped half-way; run `memory-sleep undo` again to finish it."
                ) from error
            manifest.status = "undone"
            self._save(manifest)
        return run

    def undo_targets(self) -> list[Manifest]:
        """What `undo` puts back, newest first: the last completed run and the failed runs after it."""
        done = [m for m in self.manifests() if m.status == "done"]
        runs = [n for n, m in enumerate(done) if m.action != "failed-run"]
        return list(reversed(done[runs[-1] :])) if runs else []

    def before(self, manifest: Manifest, path: str) -> bytes | None:
        """`path` as it was before `manifest`'s run; None when the run created it or did not change it."""
        copy = self.snapshots_dir / manifest.run_id / "files" / path
        changed = any(entry.path == path and entry.before_sha256 for entry in manifest.files)
        return copy.read_bytes() if changed and copy.is_file() else None

    def new_run_id(self) -> str:
        """The id of a new run: the time now, later than every run this writer has kept (runs are
        ordered by id, so a clock set back must not place a new run before the last one)."""
        now = datetime.now(UTC)
        for path in self.snapshots_dir.glob("*/manifest.json"):
            with contextlib.suppress(ValueError):
                kept = datetime.strptime(path.parent.name, RUN_ID).replace(tzinfo=UTC)
                now = max(now, kept + timedelta(microseconds=1))
        return new_run_id(now)

    def manifests(self) -> list[Manifest]:
        if not self.snapshots_dir.is_dir():
            return []
        found = []
        for path in sorted(self.snapshots_dir.glob("*/manifest.json")):
            with contextlib.suppress(ValueError):
                found.append(Manifest.model_validate_json(path.read_bytes()))
        return sorted(found, key=lambda m: m.run_id)

    def _edited(self, manifests: Sequence[Manifest]) -> list[str]:
        """Files changed since the newest of `manifests` (newest first) that wrote them, by anything else."""
        latest: dict[str, SnapshotFile] = {}
        for manifest in manifests:
            for entry in manifest.files:
                latest.setdefault(entry.path, entry)
        return [
            path
            for path, entry in latest.items()
            if _hash_or_none(self._current(path)) not in (entry.after_sha256, entry.before_sha256)
        ]

    def _restore(self, manifest: Manifest) -> None:
        """Put back every file of `manifest` as it was before its run (edits since are kept beside it)."""
        self._keep_copy(manifest.run_id, [FileChange(p, self._current(p)) for p in self._edited([manifest])])
        if manifest.status == "done":
            # an undo that dies half-way leaves a run "undoing": the next run or undo finishes it
            manifest.status = "undoing"
            self._save(manifest)
        for entry in manifest.files:
            if _hash_or_none(self._current(entry.path)) == entry.before_sha256:
                continue  # as it was (a run that failed before writing it): nothing to put back
            if entry.before_sha256 is None:
                self._put(entry.path, None)
            else:
                data = (self.snapshots_dir / manifest.run_id / "files" / entry.path).read_bytes()
                self._put(entry.path, data)
        for folder in manifest.folders:
            with contextlib.suppress(OSError):  # not empty: what was put there since stays, and its folder
                (self.root / folder).rmdir()

    def _new_folders(self, changes: Sequence[FileChange]) -> list[str]:
        """The folders that writing `changes` creates (those that do not exist yet), deepest first."""
        made = {
            folder.as_posix()
            for change in changes
            if change.content is not None
            for folder in Path(change.path).parents
            if folder.parts and not (self.root / folder).exists()
        }
        return sorted(made, key=lambda folder: (-folder.count("/"), folder))

    def _keep_copy(self, run_id: str, files: Sequence[FileChange]) -> None:
        """Before a forced restore, keep the versions it overwrites next to the snapshot."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        for change in files:
            if change.content is not None:
                atomic_write(
                    self.snapshots_dir / run_id / f"overwritten-{stamp}" / change.path,
                    change.content,
                )

    def _put(self, relative: str, content: bytes | None) -> None:
        path = self.root / relative
        try:
            if content is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    fsync_dir(path.parent)
            else:
                atomic_write(path, content)
        except OSError as error:
            # a file is replaced by renaming a new one into its folder: the folder's rights are what count
            cause = unwritable(path.parent) if isinstance(error, PermissionError) else None
            advice = (
                f": {cause}; make it writable, or run as its owner"
                if cause
                else ". Check free space and permissions"
            )
            raise WorkspaceError(f"{relative}: cannot write ({error.strerror or error}){advice}.") from error

    def _current(self, relative: str) -> bytes | None:
        path = self.root / relative
        self._check_no_link(path)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def _shown(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)

    def _check_no_link(self, path: Path) -> None:
        """Refuse a path that passes through a link (the file, or a folder on the way to it)."""
        if not path.is_relative_to(self.root):
            return
        relative = path.relative_to(self.root)
        for depth in range(1, len(relative.parts) + 1):
            part = Path(*relative.parts[:depth])
            if (self.root / part).is_symlink():
                kind = "file" if depth == len(relative.parts) and path != self.snapshots_dir else "folder"
                raise WorkspaceError(
                    f"{part.as_posix()}: is a link; memory-sleep never writes through links. "
                    f"Replace it with a {kind}."
                )

    def _save(self, manifest: Manifest) -> None:
        atomic_write(
            self.snapshots_dir / manifest.run_id / "manifest.json",
            manifest.model_dump_json(indent=1).encode(),
        )

    def _prune(self) -> None:
        finished = [m for m in self.manifests() if m.status not in STOPPED]
        for manifest in finished[: max(0, len(finished) - self.keep)]:
            shutil.rmtree(self.snapshots_dir / manifest.run_id, ignore_errors=True)


def _hash_or_none(data: bytes | None) -> str | None:
    return sha256(data) if data is not None else None


def new_run_id(now: datetime) -> str:
    return now.strftime(RUN_ID)
