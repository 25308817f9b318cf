"""Structured JSON logs and CloudWatch Embedded Metric Format metrics, through Powertools.

Only the edge writes JSON: the engine logs with the standard ``logging`` module, and its records
are routed through the same JSON formatter here so one log line format reaches CloudWatch.
Metrics are printed as EMF documents on stdout when the handler returns; CloudWatch turns them
into metrics without any API call from the function.
"""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers
from aws_lambda_powertools.metrics import MetricUnit

from .config import TelemetryNames


def _log_line(entry: object) -> str:
    """One JSON log line, as Powertools writes it, that stdout can always encode: a lone surrogate a
    caller sent (JSON can spell one, and a refused path or field is logged) becomes its JSON escape."""
    line = json.dumps(entry, default=str, separators=(",", ":"), ensure_ascii=False)
    return line.encode("utf-8", "backslashreplace").decode("utf-8")


_names = TelemetryNames.from_env()
logger = Logger(service=_names.service, json_serializer=_log_line)
metrics = Metrics(service=_names.service, namespace=_names.metrics_namespace)
# Modules that log with the standard library (the engine, and storage.py, which the engine once
# held) write through the same JSON handler; the package loggers are made here so they are found.
_LIBRARY_LOGGERS = {"supertonic_engine", "supertonic_function"}
for _name in _LIBRARY_LOGGERS:
    logging.getLogger(_name)
copy_config_to_registered_loggers(source_logger=logger, include=_LIBRARY_LOGGERS)


@contextmanager
def quiet_empty_metrics() -> Iterator[None]:
    """Silence Powertools' warning that an invocation published no metric.

    Health checks, voice lists and job lookups synthesize nothing, so they have nothing to publish;
    a warning on each such call would be noise, not news.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="No application metrics to publish")
        yield


def record_synthesis(*, source: str, characters: int, audio_s: float, synth_ms: float, rtf: float, model_kind: str) -> None:
    """One synthesis' numbers as metrics (per function) and as a log line (per request)."""
    metrics.add_metric(name="SynthesisMs", unit=MetricUnit.Milliseconds, value=synth_ms)
    metrics.add_metric(name="RTF", unit=MetricUnit.NoUnit, value=rtf)
    metrics.add_metric(name="Characters", unit=MetricUnit.Count, value=characters)
    metrics.add_metric(name="AudioSeconds", unit=MetricUnit.Seconds, value=audio_s)
    metrics.add_metadata(key="model_kind", value=model_kind)
    logger.info(
        "synthesized",
        extra={
            "source": source,
            "characters": characters,
            "audio_s": round(audio_s, 3),
            "synth_ms": round(synth_ms, 1),
            "rtf": round(rtf, 4),
            "model_kind": model_kind,
        },
    )
