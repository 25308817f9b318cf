"""What every event source needs, built once per container in the init phase.

The configuration is read and the engine (four ONNX sessions, voices) loaded here, at import of
``app``, which is Lambda's init phase: it is not billed against a request's timeout and runs once
per container. If either fails (a bad setting, a missing model) the error is kept instead of
crashing init, so the function still answers ``GET /health`` and every request with a 503 that
says what is wrong.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from supertonic_engine import Engine, cpu_features
from supertonic_engine.errors import ConfigurationError, InvalidRequest, SupertonicError

from . import __version__
from .config import ENV_INPUT_BUCKET, ENV_OUTPUT_BUCKET, FunctionConfig
from .errors import NotConfigured, error_detail
from .layout import Layout
from .telemetry import logger

if TYPE_CHECKING:
    from .storage import ObjectStore


@dataclass
class Service:
    config: FunctionConfig
    engine_or_error: Engine | SupertonicError
    init_ms: float = 0.0  # the whole init phase: imports, model load, warm-up
    load_ms: float = 0.0  # of which: reading the model and building the four sessions
    warm_up_ms: float = 0.0  # of which: one short synthesis
    _store: ObjectStore | None = field(default=None, repr=False)
    _reachable: set[str] = field(default_factory=set, repr=False)  # buckets this container has seen answer

    @classmethod
    def start(
        cls,
        config: FunctionConfig | None = None,
        model_dir: str | Path | None = None,
        *,
        started_at: float | None = None,
    ) -> Service:
        """Read the configuration (the argument, else the environment), load the engine (model dir:
        argument, else ``SUPERTONIC_MODEL_DIR``) and time the init phase.

        ``started_at`` is a ``time.perf_counter()`` reading taken before the heavy imports, so
        ``init_ms`` covers them too, as Lambda's init duration does.
        """
        started = time.perf_counter() if started_at is None else started_at
        load_started = time.perf_counter()
        warm_up_ms = 0.0
        loaded: Engine | SupertonicError
        try:
            config = config or FunctionConfig.from_env()
            loaded = Engine.load(model_dir, session_config=config.session_config())
            if config.warm_up:
                # The first ORT run allocates its arenas; pay that here, not in the first request.
                warm_up_ms = loaded.warm_up()
        except SupertonicError as error:
            config = config or FunctionConfig()  # no buckets, no CORS: nothing to serve but the error
            loaded = _as_init_error(error)
            logger.error("not ready to serve", extra={"error": loaded.to_dict()})
        load_ms = (time.perf_counter() - load_started) * 1000.0 - warm_up_ms
        # The S3 client is not built here: importing boto3 and making a client is about half a second
        # that every cold start would pay (init is billed for container images, and a function URL
        # request waits for it), while only S3 jobs, job lookups and oversized answers use it.
        service = cls(config, loaded, load_ms=load_ms, warm_up_ms=warm_up_ms)
        service.init_ms = (time.perf_counter() - started) * 1000.0
        # The log, unlike /health, may say where the model is and what exactly went wrong.
        where = {"model_dir": str(loaded.model_dir)} if isinstance(loaded, Engine) else {"error": loaded.to_dict()}
        logger.info("init done", extra=service.init_report() | where)
        return service

    @property
    def engine(self) -> Engine:
        """The loaded engine; raises the init error (a 503) when there is none."""
        self.ready()
        return cast(Engine, self.engine_or_error)

    def ready(self) -> None:
        """Raise the init error, if any. An event source that fails its events calls this before
        judging any: after an init error the configuration is the empty fallback, whose missing
        buckets would otherwise be blamed instead of the setting at fault."""
        if isinstance(self.engine_or_error, SupertonicError):
            raise self.engine_or_error

    @property
    def voices(self) -> list[str]:
        return self.engine.voices

    @cached_property
    def layout(self) -> Layout:
        return Layout(self.config)

    @property
    def store(self) -> ObjectStore:
        """The S3 client, created on first use so requests that never touch S3 never pay for it."""
        if self._store is None:
            from .storage import ObjectStore

            self._store = ObjectStore()
        return self._store

    @cached_property
    def queue_client(self) -> Any:
        """The SQS client the planner sends parts with, created on first use (only long jobs need it)."""
        import boto3

        return boto3.session.Session().client("sqs")

    def reopen_clients(self) -> None:
        """Drops the AWS clients, so the next use opens new ones: a client made before a SnapStart
        snapshot would hold the snapshotted sandbox's connections."""
        self._store = None
        self.__dict__.pop("queue_client", None)  # cached_property keeps its value here

    def input_bucket(self, feature: str) -> str:
        if self.config.input_bucket is None:
            raise NotConfigured(f"{feature} needs the input bucket: set {ENV_INPUT_BUCKET}")
        return self._checked(self.config.input_bucket, ENV_INPUT_BUCKET)

    def results_bucket(self, feature: str) -> str:
        bucket = self.config.results_bucket
        if bucket is None:
            raise NotConfigured(f"{feature} needs a results bucket: set {ENV_OUTPUT_BUCKET} or {ENV_INPUT_BUCKET}")
        return self._checked(bucket, ENV_OUTPUT_BUCKET if self.config.output_bucket else ENV_INPUT_BUCKET)

    def _checked(self, bucket: str, setting: str) -> str:
        """``bucket`` once it has answered in this container. A missing or forbidden bucket is the
        operator's to fix (a 503 naming the setting), found before any work: a HEAD of a key in a
        missing bucket is a plain 404, which would read as "no such job" or "not done yet"."""
        if bucket not in self._reachable:
            from .storage import StorageFailed

            try:
                self.store.check_bucket(bucket)
            except StorageFailed as error:
                # A bucket's name holds the account id: the log has it, the 503 names the setting.
                logger.error("bucket check failed", extra={"bucket": bucket, "setting": setting, "error": error.message})
                raise ConfigurationError(f"{setting}: {error.message}", field=setting) from error
            self._reachable.add(bucket)
        return bucket

    def init_report(self, request_id: str | None = None) -> dict[str, object]:
        """Versions, init times and the model's state as ``GET /health`` shows them to anyone: no
        paths, and an init error as a caller sees it (``error_detail``, with ``request_id``)."""
        state = self.engine_or_error
        report: dict[str, object] = {
            "version": __version__,
            "init_ms": round(self.init_ms, 1),
            "load_ms": round(self.load_ms, 1),
            "warm_up_ms": round(self.warm_up_ms, 1),
            "model_loaded": not isinstance(state, SupertonicError),
            "cpu": cpu_features().to_dict(),  # which int8 path ONNX Runtime has here, and what AVX
        }
        if isinstance(state, SupertonicError):
            report["error"] = error_detail(state, request_id)
        else:
            report.update(model_kind=state.model_kind, precision=state.precision)
        return report


def _as_init_error(error: SupertonicError) -> SupertonicError:
    """At init there is no request yet, so a request-shaped error (a bad value the engine read
    from its environment) is the deployment's fault: kept as a ConfigurationError, never a 4xx."""
    if isinstance(error, InvalidRequest):
        return ConfigurationError(error.message, field=error.field)
    return error
