"""The offline engine: deterministic rules and extractive summaries, no network, no key."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory_sleep.engines.base import Engine


def offline_engine() -> Engine:
    # imported here, not above: recall reads the values a line says are gone with values.py, and
    # importing the package must not load the whole engine (its parsers, ~0.15 s) for that
    from memory_sleep.engines.base import Engine
    from memory_sleep.engines.offline.brief import OfflineBriefer
    from memory_sleep.engines.offline.classify import OfflineClassifier
    from memory_sleep.engines.offline.closing import OfflineCloser
    from memory_sleep.engines.offline.curate import OfflineCurator
    from memory_sleep.engines.offline.gardening import OfflineGardener
    from memory_sleep.engines.offline.integrate import OfflineIntegrator
    from memory_sleep.engines.offline.summarize import OfflineSummarizer

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
