"""A model stand-in built from values, like pydantic-ai's TestModel: no prompt text is ever read.

`values_answer` answers each decision from the values its template was rendered from
(`Prompt.values`: the item ids, entry ids, texts, dates) and the answer schema, so rewording a
prompt cannot break it and it cannot pass for a clever model. Its decisions are deliberately
plain: keep one-line items (a ticked checkbox reports an action done), add each kept item unless an
entry already says exactly that, close the open action a done note shares most words with,
summarise and merge by copying, supersede an entry whose "key: value" key a newer one restates. `FunctionModel(values_answer)` is the ready-made double.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from memory_sleep.engines.model import Exchange, Prompt
from memory_sleep.text import normalize, shorten, similarity, tokens

TEXT_CHARS = 180
Values = Mapping[str, Any]


def values_answer(
    prompt: Prompt, schema: type[BaseModel], history: tuple[Exchange, ...] = ()
) -> dict[str, Any]:
    """For FunctionModel: a valid answer in `schema` computed from `prompt.values`."""
    answer: Callable[[Values], dict[str, Any]] = _BY_SCHEMA[schema.__name__]
    return answer(prompt.values)


def _one_line(text: str) -> str:
    return shorten(" ".join(text.split()), TEXT_CHARS)


def _known_topic(text: str, headings: Sequence[str], projects: Sequence[str]) -> str | None:
    written = normalize(" ".join((text, *headings)))
    return next((name for name in projects if normalize(name) in written), None)


def _classify(values: Values) -> dict[str, Any]:
    remembered = {normalize(entry["text"]) for entry in values["memory"]}
    verdicts = []
    for item in values["items"]:
        repeat = normalize(item["text"]) in remembered
        keep = "\n" not in item["text"].strip() and not repeat
        verdicts.append(
            {
                "reason": "one line" if keep else "already in memory" if repeat else "several lines",
                "id": item["id"],
                "verdict": "KEEP" if keep else "DISCARD",
                "category": "fact" if keep else None,
                "discard_reason": None if keep else "duplicate" if repeat else "debug",
                "topic": _known_topic(item["text"], item["headings"], values["projects"]),
                "closes_action": item["text"].lstrip("-*+ ").lower().startswith("[x]"),
                "deadline": None,
            }
        )
    return {"classifications": verdicts}


def _integrate(values: Values) -> dict[str, Any]:
    by_text = {normalize(entry["text"]): entry["ref"] for entry in values["entries"]}
    operations = []
    for item in values["items"]:
        known = by_text.get(normalize(item["text"]))
        text = _one_line(item["text"])
        if item["deadline"]:
            text += f" (due {item['deadline']})"
        operations.append(
            {"reason": "already there", "item_id": item["id"], "op": "noop", "target": known, "text": None}
            if known
            else {"reason": "new", "item_id": item["id"], "op": "add", "target": None, "text": text}
        )
    return {"operations": operations}


def _close(values: Values) -> dict[str, Any]:
    closures, taken = [], set()
    for note in values["notes"]:
        words = tokens(note["text"])
        free = [action for action in values["actions"] if action["ref"] not in taken]
        best = max(free, key=lambda action: similarity(words, tokens(action["text"])), default=None)
        if best is not None and similarity(words, tokens(best["text"])) >= 0.5:
            taken.add(best["ref"])
            closures.append({"reason": "same task", "item_id": note["id"], "target": best["ref"]})
    return {"closures": closures}


def _project(values: Values) -> dict[str, Any]:
    events = values["events"]
    last = events[-1] if events else None
    actions = values["open_actions"]
    return {
        "status": f"active: {_one_line(last['text'])[:90]} ({last['day']})" if last else "active",
        "contacts": "—",
        "last_event": f"{_one_line(last['text'])[:120]} ({last['day']})" if last else "—",
        "next": _one_line(actions[0]) if actions else "—",
    }


def _weekly(values: Values) -> dict[str, Any]:
    groups: dict[str, list[str]] = {}
    for item in values["items"]:
        groups.setdefault(item["topic"] or "General", []).append(
            f"{item['category']}: {_one_line(item['text'])} ({item['day']})"
        )
    count = sum(len(lines) for lines in groups.values())
    return {
        "overview": f"{count} items worth keeping this week, across {len(groups)} topics.",
        "highlights": [{"topic": topic, "lines": lines} for topic, lines in sorted(groups.items())],
    }


def _briefing(values: Values) -> dict[str, Any]:
    actions = [
        _one_line(action["text"]) + (f" (due {action['deadline']})" if action["deadline"] else "")
        for action in values["actions"]
    ]
    projects = [
        f"{project['name']}: status: {_one_line(project['status'])[:120]}" for project in values["projects"]
    ]
    return {"priorities": actions[:3], "actions": actions[3:], "context": projects, "warnings": []}


def _importance(values: Values) -> dict[str, Any]:
    """Plain: a decision or lesson 0.9, noise 0.1, anything else 0.5."""
    worth = {"decision": 0.9, "lesson": 0.9, "debug": 0.1, "routine": 0.1, "heartbeat": 0.1}
    return {
        "ratings": [
            {"reason": "by category", "id": entry["id"], "importance": worth.get(entry["category"], 0.5)}
            for entry in values["entries"]
        ]
    }


def _merge(values: Values) -> dict[str, Any]:
    merges = []
    for cluster in values["clusters"]:
        texts = list(dict.fromkeys(" ".join(entry["text"].split()) for entry in cluster["entries"]))
        merges.append({"reason": "alike", "cluster": cluster["id"], "same": True, "text": "; ".join(texts)})
    return {"merges": merges}


def _judge(values: Values) -> dict[str, Any]:
    judgements = []
    for pair in values["pairs"]:
        newer_key, _, newer_value = pair["newer"]["text"].lstrip("-*+ ").partition(": ")
        older_key, _, older_value = pair["older"]["text"].lstrip("-*+ ").partition(": ")
        same_key = bool(newer_value and older_value) and normalize(newer_key) == normalize(older_key)
        verdict = (
            "supersedes" if same_key and normalize(newer_value) != normalize(older_value) else "unrelated"
        )
        judgements.append(
            {"reason": "same key" if same_key else "no shared key", "pair": pair["id"], "verdict": verdict}
        )
    return {"judgements": judgements}


def _archive_summary(values: Values) -> dict[str, Any]:
    texts = [" ".join(entry["text"].split()) for entry in values["entries"]]
    return {"reason": "copied", "text": "; ".join(dict.fromkeys(texts))}


_BY_SCHEMA: dict[str, Callable[[Values], dict[str, Any]]] = {
    "ClassifyAnswer": _classify,
    "IntegrateAnswer": _integrate,
    "CloseAnswer": _close,
    "ProjectAnswer": _project,
    "WeeklyAnswer": _weekly,
    "BriefingAnswer": _briefing,
    "ImportanceAnswer": _importance,
    "MergeAnswer": _merge,
    "JudgeAnswer": _judge,
    "ArchiveSummaryAnswer": _archive_summary,
}
