"""Can nearest labelled exemplars tell durable prose from the rest, across workspaces? (issue 15)

    python benchmarks/score_realnotes.py --keep-runs DIR
    python benchmarks/bench_prose_knn.py DIR [--k 5 10 20]

The items the offline rules leave undecided (DISCARD "other": prose with no section, key or cue) are
where most durable items the engine misses are. For each labelled workspace, each such item is scored
by its k nearest labelled items of the OTHER workspaces (wordllama embeddings, cosine-weighted share
of durable neighbours; leave one workspace out), with all labelled items or only the undecided ones
as exemplars. Prints, per held-out workspace, how well the score ranks durable items above the rest
(AUC: 0.5 is chance) and what a threshold would promote. Nothing here is shipped: it measures whether
a classifier over the embeddings is worth shipping.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realscore.figures import records
from realscore.labels import NoteItems, load_labels, resolve

from memory_sleep.sidecar.embed_wordllama import wordllama_embedder

LABELS = Path(__file__).resolve().parent / "realnotes" / "labels"


@dataclass(frozen=True)
class Row:
    workspace: str
    text: str
    durable: bool
    keep: bool  # labelled KEEP (durable or not)
    undecided: bool  # the run's rules left it DISCARD "other"


def rows_of(run: Path) -> list[Row]:
    found = []
    for path in sorted(LABELS.glob("*.json")):
        labels = load_labels(path)
        source = LABELS.parent / labels.workspace
        labelled = resolve(labels, NoteItems(source))
        state = records(run / labels.workspace, labelled)
        for entry in labelled:
            record = state[entry.item.source]
            undecided = bool(record and record.verdict == "DISCARD" and record.discard_reason == "other")
            found.append(
                Row(
                    labels.workspace,
                    entry.item.text,
                    entry.label.durable,
                    entry.label.verdict == "KEEP",
                    undecided,
                )
            )
    return found


def auc(scores: np.ndarray, positive: np.ndarray) -> float:
    hits, misses = scores[positive], scores[~positive]
    if not len(hits) or not len(misses):
        return float("nan")
    above = (hits[:, None] > misses[None, :]).mean() + 0.5 * (hits[:, None] == misses[None, :]).mean()
    return float(above)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a folder written by score_realnotes.py --keep-runs")
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 20])
    args = parser.parse_args(argv)
    rows = rows_of(args.run)
    vectors = wordllama_embedder(None).embed([row.text for row in rows])
    similarity = vectors @ vectors.T
    group = np.array([row.workspace for row in rows])
    durable = np.array([row.durable for row in rows])
    keep = np.array([row.keep for row in rows])
    undecided = np.array([row.undecided for row in rows])
    workspaces = sorted(set(group))
    print(
        f"{len(rows)} labelled items, {undecided.sum()} undecided, {durable[undecided].sum()} of them durable"
    )
    print("AUC per held-out workspace: " + ", ".join(name.split("__")[0] for name in workspaces))
    for k in args.k:
        for exemplars in ("all", "undecided"):
            scores = np.zeros(len(rows))
            for index in np.flatnonzero(undecided):
                allowed = group != group[index]
                if exemplars == "undecided":
                    allowed &= undecided
                pool = np.flatnonzero(allowed)
                nearest = pool[np.argsort(-similarity[index, pool])[:k]]
                weights = similarity[index, nearest]
                scores[index] = float(weights @ durable[nearest] / weights.sum())
            per = [
                auc(scores[undecided & (group == w)], durable[undecided & (group == w)]) for w in workspaces
            ]
            picked = undecided & (scores >= 0.4)
            print(
                f"k={k:<3} exemplars={exemplars:<9} AUC "
                + " ".join(f"{value:.2f}" for value in per)
                + f" | all {auc(scores[undecided], durable[undecided]):.2f}"
                + f" | score >= 0.4 promotes {picked.sum()}: {durable[picked].sum()} durable,"
                + f" {(keep & ~durable)[picked].sum()} other KEEP, {(~keep)[picked].sum()} DISCARD"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
