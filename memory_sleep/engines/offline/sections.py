"""What the author's structure says an item is: the section it stands in ("Decisions", "Next steps",
"教训", names per language in memory_sleep/languages/*.toml) and whether it starts an activity log line."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from memory_sleep.language import COMPLETED, LOG_VERBS, NEGATIONS, SECTION_KINDS, SECTION_NAMES, STILL_OPEN
from memory_sleep.models import Category
from memory_sleep.text import is_cjk

_CATEGORY: dict[str, Category] = {
    "decision": "decision",
    "lesson": "lesson",
    "action": "action",
    "blocker": "status",
    "people": "relationship",
    "fact": "fact",
}
_NOT_WORD = re.compile(r"[^\w\s-]+")
# a check mark on a heading says its section is done, in any language: "Evening Tasks ✅", "阶段三 ✅"
_CHECKED = re.compile("[\u2705\u2714\u2611]")  # ✅ ✔ ☑
_FIRST_WORD = re.compile(r"^[\w-]+")


@lru_cache(maxsize=4096)
def heading_kind(heading: str) -> str | None:
    """The kind of section a heading names: a section name as whole words ("🔮 Potential Next Steps"),
    or anywhere for a Chinese name ("🎯 核心决策"); a check mark on it says its tasks are done, and so
    does a heading that is only a word saying so ("## Done", "已完成")."""
    plain = " " + " ".join(_NOT_WORD.sub(" ", heading.lower()).split()) + " "
    for kind in SECTION_KINDS:
        for name in SECTION_NAMES[kind]:
            if (is_cjk(name[0]) and name in plain) or f" {name} " in plain:
                return _qualified(kind, plain, _CHECKED.search(heading) is not None)
    return "done" if plain.strip() in COMPLETED else None


def label_kind(label: str) -> str | None:
    """The kind of section a label introducing a list starts with ("**Next steps:**", "剩余手动:"), or
    "done" for a label that is only a word saying its tasks are ("**Completed:**"); a sentence that
    only holds a name somewhere ("record these lessons below:") names none."""
    plain = " ".join(_NOT_WORD.sub(" ", label.lower()).split()) + " "
    for kind in SECTION_KINDS:
        for name in SECTION_NAMES[kind]:
            if plain.startswith(name if is_cjk(name[0]) else f"{name} "):
                return _qualified(kind, " " + plain)
    return "done" if plain.strip() in COMPLETED else None


def _qualified(kind: str, plain: str, checked: bool = False) -> str:
    """The kind a qualifier in the heading makes of its section: decisions it says are still open
    ("Pending decisions (waiting on Pim)", "Decisions still to make", "待决策"; the language files'
    `still_open`) are what is to be decided, open actions; tasks or blockers it says are done ("Tasks
    Completed", "已完成的待办", "Blocker fixed"; `completed`; or a check mark, "Evening Tasks ✅") are
    work reported done, no open actions nor blockers ("done": no category)."""
    if kind == "decision" and _holds(plain, STILL_OPEN):
        return "action"
    if (
        kind in ("action", "blocker")
        and (checked or _holds(plain, COMPLETED))
        and not _holds(plain, NEGATIONS)
        and not _holds(plain, STILL_OPEN)
    ):
        return "done"  # not "Tasks not yet completed", "未完了タスク"
    return kind


def _holds(plain: str, marks: Sequence[str]) -> bool:
    return any(mark in plain if is_cjk(mark[0]) else f" {mark} " in plain for mark in marks)


def section_category(headings: Sequence[str], lead: str | None = None) -> Category | None:
    """The category an item's section (`_section_kind`) gives its items; none for work reported done."""
    kind = _section_kind(headings, lead)
    return _CATEGORY.get(kind) if kind else None


def reports_done(headings: Sequence[str], lead: str | None = None) -> bool:
    """The item stands in a section of work reported done (`_section_kind`): one whose name says its
    tasks are done ("Tasks completed", "Blocker fixed", "Evening Tasks ✅"), or is only a word saying so
    ("## Done", "**Completed:**", "已完成"). Its lines are the reports."""
    return _section_kind(headings, lead) == "done"


def _section_kind(headings: Sequence[str], lead: str | None) -> str | None:
    """The kind of an item's section: the label introducing its list, else the innermost heading that
    names a kind of section ("## Next steps / ### Done": work done, not next steps)."""
    return (label_kind(lead) if lead else None) or next(
        (kind for heading in reversed(headings) if (kind := heading_kind(heading))), None
    )


def is_log_line(line: str) -> bool:
    """The line starts with a verb of an activity log ("Deployed the hotfix to staging")."""
    first = _FIRST_WORD.match(line.strip().lower())
    return first is not None and first.group(0) in LOG_VERBS
