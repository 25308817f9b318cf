"""The function's after-restore step: what a sandbox resumed from a SnapStart snapshot redoes.

Every sandbox Lambda resumes from one snapshot starts with the memory of the one that was
snapshotted, so three things are redone before the first invocation (AWS, "Implementing SnapStart
hooks for container images", lambda/latest/dg/snapstart-runtime-hooks-custom):

- The random streams are reseeded from the OS. The engine's noise never comes from them: each
  synthesis seeds its own stream from OS entropy (``RandomState(None)``, ``SeedSequence()``), and
  job and plan ids are ``uuid4``, also OS entropy, which a restore does not repeat. But the
  process-wide ``random`` and ``numpy.random`` streams are drawn from by libraries (botocore's retry
  jitter uses ``random``), and without a reseed every restored sandbox would draw the same numbers.
- The CPUs are counted again (affinity mask and cgroup quota, and the CPU model the engine reports
  and checks int8 graphs against), and the ONNX Runtime sessions are rebuilt only if their thread
  count would differ: Lambda snapshots a version with its memory size, so the CPU share is the
  snapshot's and a rebuild is rare, and it is not free. Measured on the full-size stand-in (prepared
  graphs, warm page cache, a 2-core VM): 0.24 s to rebuild the four sessions, against 1.15 s for
  their first load; the whole step without a rebuild, 1 to 10 ms.
- The AWS clients are dropped, so the next use opens new ones with new connections.

``app`` registers ``renew`` with ``runtime.after_restore`` at init: both runtime clients run it.
"""

from __future__ import annotations

import random
import time

import numpy as np

from supertonic_engine import Engine, cpu_features

from .service import Service
from .telemetry import logger


def renew(service: Service) -> dict[str, object]:
    """Reseeds, re-reads and reopens what ``service``'s sandbox shares with the snapshot; returns what it logged."""
    started = time.perf_counter()
    random.seed()  # None: from os.urandom
    np.random.seed()  # None: from the OS's entropy
    cpu_features.cache_clear()
    engine = service.engine_or_error
    threads, rebuilt_s = None, 0.0
    if isinstance(engine, Engine):  # after an init error there are no sessions to fit
        rebuilt_s = engine.fit_threads(service.config.session_config())
        threads = engine.sessions.threads
    service.reopen_clients()
    report: dict[str, object] = {
        "threads": threads,
        "sessions_rebuilt_s": round(rebuilt_s, 3),
        "cpu": cpu_features().to_dict(),
        "reseeded": ["random", "numpy.random"],
        "clients_reopened": True,
        "restore_ms": round((time.perf_counter() - started) * 1000.0, 1),
    }
    logger.info("sandbox restored", extra=report)
    return report
