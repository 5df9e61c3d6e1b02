"""The real-notes scorer's figures (benchmarks/realscore) for a window of nights: the labelled items of
the window's notes only, and the entries written since the window opened."""

from __future__ import annotations

from pathlib import Path

from realscore.figures import Figures, score_workspace
from realscore.labels import NoteItems, load_labels, resolve

from .nights import WorkspaceRun

LABELS = Path(__file__).resolve().parents[1] / "realnotes" / "labels"


def window_figures(source: Path, run: WorkspaceRun) -> Figures | None:
    """None for a workspace without hand labels (the fixture) or with none in the window."""
    path = LABELS / f"{source.name}.json"
    if not path.exists():
        return None
    labels = load_labels(path)
    labelled = [e for e in resolve(labels, NoteItems(source)) if e.item.file in run.window]
    if not labelled:
        return None
    present = {f"memory/{note.name}" for note in (run.folder / "memory").glob("*.md")}
    questions = [q for q in labels.questions if all(a.rsplit(":", 1)[0] in present for a in q.answers)]
    window_labels = labels.model_copy(update={"questions": questions, "workspace": run.name})
    return score_workspace(window_labels, labelled, run.start, run.folder, run.as_runs(), run.today)
