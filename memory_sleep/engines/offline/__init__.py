"""The offline engine: deterministic rules and extractive summaries, no network, no key."""

from __future__ import annotations

from memory_sleep.engines.base import Engine
from memory_sleep.engines.offline.brief import OfflineBriefer
from memory_sleep.engines.offline.classify import OfflineClassifier
from memory_sleep.engines.offline.closing import OfflineCloser
from memory_sleep.engines.offline.curate import OfflineCurator
from memory_sleep.engines.offline.integrate import OfflineIntegrator
from memory_sleep.engines.offline.summarize import OfflineSummarizer


def offline_engine() -> Engine:
    # imported here: gardening uses gc/details.py's checker, which reads values with matching.py here
    from memory_sleep.engines.offline.gardening import OfflineGardener

    return Engine(
        name="offline",
        model=None,
        classifier=OfflineClassifier(),
        integrator=OfflineIntegrator(),
        closer=OfflineCloser(),
        curator=OfflineCurator(),
        summarizer=OfflineSummarizer(),
        briefer=OfflineBriefer(),
        gardener=OfflineGardener(),
        integrate_batch_size=200,  # no cost per call; items refer to earlier items of the batch by id
    )
