"""The real-notes scorer on a tiny hand-labelled workspace and a hand-made run: every figure is known."""

from __future__ import annotations

import json
import shutil
import sys
from datetime import date
from pathlib import Path

import pytest
from pydantic import ValidationError

from memory_sleep.workspace.state import ItemRecord, NoteState, dump

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from realscore import report  # noqa: E402
from realscore.figures import Figures, score_workspace  # noqa: E402
from realscore.labels import ItemLabel, NoteItems, StaleLabels, load_labels, prefix, resolve  # noqa: E402
from realscore.runs import Run, fingerprint, first_morning, fresh_copy, run_cli  # noqa: E402

OLD_NOTE = "# 2026-01-01\n\n- Atlas API listens on port 8080\n"
NEW_NOTE = """# 2026-01-05

## Status
- Heartbeat: all services ok

- Atlas API moved to port 9090

- Spent the morning reading logs

## Next steps
- [ ] Renew the TLS certificate for billing

## Decisions
- Decided to use Postgres for the billing ledger
"""
ORIGINAL_MEMORY = "# MEMORY.md\n\n## Facts\n- Atlas API listens on port 8080 (2026-01-01)\n"
ZEPHYR = "".join(f"- Zephyr rollout window {n} opens on Monday at dawn (2026-01-04)\n" for n in range(8))
FINAL_MEMORY = f"""# MEMORY.md

## Facts
- Heartbeat: all services ok (2026-01-05)
- Atlas API moved to port 9090 (previously: Atlas API listens on port 8080) (2026-01-05)
- Spent the morning reading logs (2026-01-05)
{ZEPHYR}
## Decisions
- Decided to use Postgres for the billing ledger (previously: Heartbeat all services ok) (2026-01-05)

## Action items
- Renew the TLS certificate for billing (2026-01-05)

## Projects

### Atlas
- Status: live
- Contacts: -
- Last event: moved to port 9090
- Next: -

### Heartbeat
- Status: ok
- Contacts: -
- Last event: -
- Next: -
"""
OLD, NEW = "memory/2026-01-01.md", "memory/2026-01-05.md"
ARCHIVE = f"""# Archive

## 2026-01-06
- Renew the TLS certificate for billing (2026-01-05) — from Action items; done ({NEW}:14) [done 2026-01-05]
- Move the Atlas API to port 9090 (2026-01-01) — from Action items; done ({NEW}:6) [done 2026-01-05]
- Read the logs (2026-01-01) — from Action items; done ({NEW}:8) [done 2026-01-05]
- Atlas API listens on port 8080 (2026-01-01) — from Facts; superseded by {NEW}:6
"""
# line: (label, the hand-made run's record)
LABELS = {
    (OLD, 3): ("KEEP fact durable", ("KEEP", "status", "noop")),
    (NEW, 4): ("DISCARD heartbeat", ("KEEP", "status", "add")),
    (NEW, 6): ("KEEP fact durable sup", ("KEEP", "fact", "supersede")),
    (NEW, 8): ("DISCARD narration", ("KEEP", "action", "add")),
    (NEW, 11): ("KEEP action durable open", ("DISCARD", None, None)),
    (NEW, 14): ("KEEP decision", ("KEEP", "decision", "supersede")),  # kept, but belongs in the notes
}


def _prefix(file: str, line: int) -> str:
    return prefix((OLD_NOTE if file == OLD else NEW_NOTE).splitlines()[line - 1])


def _label(file: str, line: int, code: str) -> dict[str, object]:
    verdict, kind, *flags = code.split()
    keep = verdict == "KEEP"
    label: dict[str, object] = {
        "file": file,
        "line": line,
        "prefix": _prefix(file, line),
        "verdict": verdict,
        "category": kind if keep else None,
        "discard_reason": None if keep else kind,
        "durable": "durable" in flags,
        "open_action": "open" in flags,
    }
    if "sup" in flags:
        label["supersedes"] = {"file": OLD, "line": 3, "prefix": _prefix(OLD, 3)}
    return label


@pytest.fixture
def source(tmp_path: Path) -> Path:
    folder = tmp_path / "notes" / "tiny"
    (folder / "memory").mkdir(parents=True)
    (folder / "memory" / "2026-01-01.md").write_text(OLD_NOTE, encoding="utf-8")
    (folder / "memory" / "2026-01-05.md").write_text(NEW_NOTE, encoding="utf-8")
    (folder / "MEMORY.md").write_text(ORIGINAL_MEMORY, encoding="utf-8")
    (folder / "SOURCE.txt").write_text("MIT\n", encoding="utf-8")
    labels = {
        "workspace": "tiny",
        "notes": [OLD, NEW],
        "projects": {"real": [["Atlas", "atlas-api"]], "tags_and_links": []},
        "questions": [
            {
                "question": "Which port does the Atlas API use now?",
                "answers": [f"{NEW}:6"],
                "current": "9090",
            },
            # answered by the wrong item of the right note: its hits on the note must not count
            {"question": "Which database holds the billing ledger?", "answers": [f"{NEW}:4"]},
        ],
        "items": [_label(file, line, code) for (file, line), (code, _) in LABELS.items()],
    }
    (tmp_path / "notes" / "labels").mkdir()
    (tmp_path / "notes" / "labels" / "tiny.json").write_text(json.dumps(labels), encoding="utf-8")
    closures = {
        "workspace": "tiny",
        "closures": [
            _closure("Renew the TLS certificate for billing", 14, right=False),
            _closure("Move the Atlas API to port 9090", 7, right=True),  # found by its prefix at 6
        ],
    }
    (tmp_path / "notes" / "labels" / "closures").mkdir()
    (tmp_path / "notes" / "labels" / "closures" / "tiny.json").write_text(
        json.dumps(closures), encoding="utf-8"
    )
    return folder


def _closure(action: str, line: int, right: bool) -> dict[str, object]:
    closing = 6 if line == 7 else line
    return {
        "action": action,
        "closed_by": f"{NEW}:{line}",
        "prefix": _prefix(NEW, closing),
        "right": right,
        "why": "-",
    }


def _hand_made_run(source: Path, target: Path) -> Path:
    """What a run could have left: MEMORY.md, archive.md and the state records of LABELS."""
    folder = fresh_copy(source, target)
    (folder / "MEMORY.md").write_text(FINAL_MEMORY, encoding="utf-8")
    (folder / "memory" / "archive.md").write_text(ARCHIVE, encoding="utf-8")
    notes = folder / "memory" / ".sleep" / "notes"
    notes.mkdir(parents=True)
    for name in ("2026-01-01.md", "2026-01-05.md"):
        items = {
            f"id{line}": ItemRecord(line=line, verdict=verdict, category=category, operation=op)  # type: ignore[arg-type]
            for (file, line), (_, (verdict, category, op)) in LABELS.items()
            if file == f"memory/{name}"
        }
        state = NoteState(sha256="0" * 64, size=1, mtime_ns=1, items=items)
        (notes / f"{name}.json").write_bytes(dump(state))
    return folder


def _score(source: Path, tmp_path: Path, second_changed: tuple[str, ...] = ()) -> Figures:
    labels = load_labels(source.parent / "labels" / "tiny.json")
    labelled = resolve(labels, NoteItems(source))
    folder = _hand_made_run(source, tmp_path / "run")
    runs = (Run(0, "ok", 1.5, ("MEMORY.md",), ""), Run(0, "ok", 0.5, second_changed, ""))
    return score_workspace(labels, labelled, source, folder, runs, date(2026, 1, 6))


def test_every_figure_of_a_hand_made_run(source: Path, tmp_path: Path) -> None:
    figures = _score(source, tmp_path)
    assert (figures.items, figures.durable, figures.durable_kept) == (6, 3, 2)  # the missed action
    # written: heartbeat, 9090, logs, 8 Zephyr lines (no labelled item), Postgres, TLS (its record is a DISCARD)
    assert figures.written == 13
    assert (figures.written_matched, figures.written_noise, figures.written_discard) == (4, 1, 2)
    assert figures.written_not_durable == 3  # the two DISCARDs and the decision labelled not durable
    assert figures.invented == ("Heartbeat",)
    assert figures.supersedes == 2
    assert figures.wrong_supersedes == (f"{NEW}:14",)  # no earlier item labelled; 9090's is the right one
    assert (figures.open_actions, figures.actions_classified, figures.actions_found) == (1, 0, 1)
    assert (figures.as_actions, figures.as_actions_right) == (1, 0)  # the narration kept as an action
    assert (figures.both_keep, figures.same_category) == (3, 2)  # the old fact recorded as a status
    assert (figures.questions, figures.recalled) == (2, 2)  # wordllama finds both; hashing found 1
    assert figures.closures.right == 1
    assert [str(c) for c in figures.closures.wrong] == [
        f"'Renew the TLS certificate for billing' by {NEW}:14"
    ]
    assert [str(c) for c in figures.closures.unlabelled] == [f"'Read the logs' by {NEW}:8"]


def test_a_supersede_of_another_item_is_wrong(source: Path, tmp_path: Path) -> None:
    labels_file = source.parent / "labels" / "tiny.json"
    labels = json.loads(labels_file.read_text(encoding="utf-8"))
    labels["items"][2]["supersedes"] = {"file": NEW, "line": 4, "prefix": _prefix(NEW, 4)}
    labels_file.write_text(json.dumps(labels), encoding="utf-8")
    assert _score(source, tmp_path).wrong_supersedes == (f"{NEW}:6", f"{NEW}:14")


def test_the_table_adds_up_and_says_what_changed(source: Path, tmp_path: Path) -> None:
    figures = _score(source, tmp_path, second_changed=("MEMORY.md",))
    lines = report.table([figures, figures]).splitlines()
    row, total = lines[2].split(" | "), lines[-1].split(" | ")
    assert row[2] == "0.67 (2/3)" and total[2] == "0.67 (4/6)"
    assert row[3] == "0.25 (1/4) of 13 written" and row[4] == "0.50 (2/4)"
    assert row[5] == "0.75 (3/4)" and total[5] == "0.75 (6/8)"
    assert row[7] == "1 of 2" and total[7] == "2 of 4"
    assert row[8] == "0.00 (0/1) (1)"
    assert row[9] == "0.00 (0/1)" and total[9] == "0.00 (0/2)"
    assert row[10] == "0.67 (2/3)" and total[10] == "0.67 (4/6)"
    assert row[11] == "1" and total[11] == "2"
    assert row[12] == "1 (+1 unlabelled)" and total[12] == "2 (+2 unlabelled)"
    assert row[14] == "changed 1" and total[14] == "2 changed"
    assert row[15] == "1.00 (2/2)"
    details = report.details([figures])
    assert "invented projects: Heartbeat" in details
    assert f"wrong closes: 'Renew the TLS certificate for billing' by {NEW}:14" in details
    assert f"closes not labelled (label them in labels/closures/): 'Read the logs' by {NEW}:8" in details


def test_labels_are_checked_against_the_notes(source: Path) -> None:
    labels = load_labels(source.parent / "labels" / "tiny.json")
    items = NoteItems(source)
    moved = labels.model_copy(
        update={"items": [labels.items[0].model_copy(update={"line": 5}), *labels.items[1:]]}
    )
    assert resolve(moved, items)[0].item.line_start == 3  # found by its prefix nearby
    with pytest.raises(StaleLabels, match="no item starting"):
        resolve(
            labels.model_copy(update={"items": [labels.items[0].model_copy(update={"prefix": "- Atlas"})]}),
            items,
        )
    with pytest.raises(StaleLabels, match="without a label"):
        resolve(labels.model_copy(update={"items": labels.items[1:]}), items)
    with pytest.raises(ValidationError, match="KEEP needs a category"):
        ItemLabel(file=OLD, line=3, prefix="x", verdict="KEEP")
    with pytest.raises(ValidationError, match="only a KEEP item"):
        ItemLabel(file=OLD, line=3, prefix="x", verdict="DISCARD", discard_reason="routine", durable=True)


def test_a_run_is_judged_on_the_users_files_only(source: Path, tmp_path: Path) -> None:
    folder = fresh_copy(source, tmp_path / "copy")
    assert not (folder / "SOURCE.txt").exists()
    assert first_morning(folder) == date(2026, 1, 6)
    before = fingerprint(folder)
    (folder / "memory" / ".sleep").mkdir()
    (folder / "memory" / ".sleep" / "state.json").write_text("{}", encoding="utf-8")
    (folder / "memory" / "sleep-log.json").write_text("{}", encoding="utf-8")
    assert fingerprint(folder) == before
    (folder / "MEMORY.md").write_text(ORIGINAL_MEMORY + "- more (2026-01-05)\n", encoding="utf-8")
    assert fingerprint(folder) != before
    shutil.rmtree(folder)
    assert Run(0, "refused", 1.0, (), "").refused and Run(1, "ok", 1.0, (), "").refused


@pytest.mark.slow
def test_the_cli_runs_twice_on_a_copy(source: Path, tmp_path: Path) -> None:
    folder = fresh_copy(source, tmp_path / "copy")
    first = run_cli(folder, date(2026, 1, 6))
    second = run_cli(folder, date(2026, 1, 6))
    assert (first.exit_code, first.status, second.status) == (0, "ok", "ok"), first.output
    assert "MEMORY.md" in first.changed and second.changed == ()
    (folder / "MEMORY.md").write_text("", encoding="utf-8")  # emptied since the last run: refused
    assert run_cli(folder, date(2026, 1, 6)).refused
