"""The offline engine: deterministic rules and extractive summaries, no network, no key."""

from __future__ import annotations

from ..base import Engine
from .brief import OfflineBriefer
from .classify import OfflineClassifier
from .closing import OfflineCloser
from .curate import OfflineCurator
from .integrate import OfflineIntegrator
from .summarize import OfflineSummarizer


def offline_engine() -> Engine:
    return Engine(
        name="offline",
        model=None,
        classifier=OfflineClassifier(),
        integrator=OfflineIntegrator(),
        closer=OfflineCloser(),
        curator=OfflineCurator(),
        summarizer=OfflineSummarizer(),
        briefer=OfflineBriefer(),
        integrate_batch_size=200,  # no cost per call; items refer to earlier items of the batch by id
    )
