"""The function's settings: every environment variable it reads, with its default, in one place.

Precedence is explicit: keyword argument > environment variable > default. ``from_env`` takes the
environment as a mapping so tests build configurations without touching ``os.environ``.
The engine's own variables (``SUPERTONIC_MODEL_DIR``, thread counts, ...) live in
``supertonic_engine.config``; nothing here repeats them. A bad value raises the engine's
``ConfigurationError``: the deployment is wrong, not the caller.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

# true_or_false: the environment's and the request fields' yes/no
from supertonic_engine import Limits, SessionConfig, SynthesisOptions, cpu_quota, threads_for, true_or_false, usable_cpus
from supertonic_engine.errors import ConfigurationError, InvalidParameter

from .storage import MAX_PRESIGNED_URL_S

ENV_INPUT_BUCKET = "SUPERTONIC_INPUT_BUCKET"
ENV_INPUT_PREFIX = "SUPERTONIC_INPUT_PREFIX"
ENV_OUTPUT_BUCKET = "SUPERTONIC_OUTPUT_BUCKET"
ENV_OUTPUT_PREFIX = "SUPERTONIC_OUTPUT_PREFIX"
ENV_SYNC_MAX_TEXT_CHARS = "SUPERTONIC_SYNC_MAX_TEXT_CHARS"
ENV_SYNC_MAX_SPOKEN_CHARS = "SUPERTONIC_SYNC_MAX_SPOKEN_CHARS"
ENV_SYNC_MAX_AUDIO_S = "SUPERTONIC_SYNC_MAX_AUDIO_S"
ENV_SYNC_PLAN_RTF = "SUPERTONIC_SYNC_PLAN_RTF"
ENV_MAX_OBJECT_BYTES = "SUPERTONIC_MAX_OBJECT_BYTES"
ENV_MAX_BOOK_BYTES = "SUPERTONIC_MAX_BOOK_BYTES"
ENV_DEADLINE_MARGIN_S = "SUPERTONIC_DEADLINE_MARGIN_S"
ENV_URL_EXPIRES_S = "SUPERTONIC_URL_EXPIRES_S"
ENV_RESULT_RETENTION_DAYS = "SUPERTONIC_RESULT_RETENTION_DAYS"
ENV_UPLOAD_MB_PER_S = "SUPERTONIC_UPLOAD_MB_PER_S"
ENV_CORS_ALLOW_ORIGINS = "SUPERTONIC_CORS_ALLOW_ORIGINS"
ENV_WARM_UP = "SUPERTONIC_WARM_UP"
ENV_PARTS_QUEUE_URL = "SUPERTONIC_PARTS_QUEUE_URL"
ENV_PARTS_DLQ_ARN = "SUPERTONIC_PARTS_DLQ_ARN"
ENV_FANOUT_MIN_CHARS = "SUPERTONIC_FANOUT_MIN_CHARS"
# The function's /tmp in MB: Lambda does not tell a function its EphemeralStorage size, so
# template.yaml passes the same value under this name.
ENV_EPHEMERAL_STORAGE_MB = "SUPERTONIC_EPHEMERAL_STORAGE_MB"
ENV_INVOKE_MODE = "SUPERTONIC_FUNCTION_URL_INVOKE_MODE"
ENV_FIRST_CHUNK_CHARS = "SUPERTONIC_FIRST_CHUNK_CHARS"
ENV_FIRST_CHUNK_STEPS = "SUPERTONIC_FIRST_CHUNK_STEPS"
ENV_TRIM_SILENCE = "SUPERTONIC_TRIM_SILENCE"
ENV_STREAM_MIN_WRITE_BYTES = "SUPERTONIC_STREAM_MIN_WRITE_BYTES"
ENV_SSE_PAD_BYTES = "SUPERTONIC_SSE_PAD_BYTES"
# The function's timeout in seconds. The emulator sets it; Lambda itself does not, so template.yaml
# passes its Timeout parameter under this same name.
ENV_FUNCTION_TIMEOUT = "AWS_LAMBDA_FUNCTION_TIMEOUT"
ENV_FUNCTION_MEMORY = "AWS_LAMBDA_FUNCTION_MEMORY_SIZE"
ENV_METRICS_NAMESPACE = "POWERTOOLS_METRICS_NAMESPACE"
ENV_SERVICE_NAME = "POWERTOOLS_SERVICE_NAME"

# Suffixes the S3 trigger renders: plain text, or a JSON job in the POST /v1/tts body shape. Lower
# case only, as template.yaml's notification filters (S3 matches suffixes case-sensitively).
TEXT_SUFFIXES = (".txt", ".json", ".md", ".epub")
# Where POST /v1/jobs stores a job, under the input prefix so the S3 trigger picks it up.
JOBS_FOLDER = "jobs/"
# Under the output prefix: results of texts and jobs, and audio too large for a synchronous
# response. Sibling folders, so the short retention of parked responses can never match a result,
# whatever folder names the input has (input/responses/a.txt -> output/results/responses/a.txt/).
RESULTS_FOLDER = "results/"
RESPONSES_FOLDER = "responses/"

# Lambda gives CPU time in proportion to memory: one vCPU-second per second at 1,769 MB.
LAMBDA_MB_PER_VCPU = 1769
# How rendering slows with a CPU share under one vCPU: time grows as share ** -1.13 (log 1.86 / log
# 1.73, the 1,024 MB and 1,769 MB rows of benchmarks/cost-lambda-sizes.txt; see renderable_audio_s).
BELOW_ONE_VCPU_POWER = 1.13

# The function URL's InvokeMode (template.yaml's FunctionUrlInvokeMode): Lambda does not tell the
# function how its URL invokes it, so the template passes the same value under ENV_INVOKE_MODE.
INVOKE_MODES = ("BUFFERED", "RESPONSE_STREAM")

DEFAULT_SERVICE_NAME = "supertonic-tts"
DEFAULT_METRICS_NAMESPACE = "Supertonic"


@dataclass(frozen=True)
class FunctionConfig:
    """What the deployment decides: buckets, limits, the deadline margin, CORS."""

    input_bucket: str | None = None
    input_prefix: str = "input/"
    # None: the input bucket, with outputs under output_prefix (which must not overlap the input prefix).
    output_bucket: str | None = None
    output_prefix: str = "output/"
    # Longest text a synchronous request may carry; longer texts go through jobs or the bucket.
    sync_max_text_chars: int = 3000
    # What it may cost once read: characters after normalization ("9" * 3000 reads as 15,000)
    # and seconds of audio as the duration predictor forecasts them (3,000 characters make about
    # 260 s of English and up to about 570 s of Korean at the default speed).
    sync_max_spoken_chars: int = 6000
    sync_max_audio_s: float = 600.0
    # Seconds of rendering per second of audio at the default steps, on one whole vCPU (1,769 MB),
    # that a synchronous request is planned with: its forecast audio times this (times steps/8 past 8
    # steps, times 1,769/MemorySize below 1,769 MB) must fit its time less the margin, or it is
    # refused before any audio is made. 0.42: the full stand-in of the real release's shapes, fp32 on
    # one thread, rendered and streamed the 2,879-character limit text's 275.5 s of audio in 101-103 s
    # at both 1,769 and 2,048 MB (0.37; benchmarks/limit-text-threads.txt, 2026-12-06), and a
    # seventh more is kept for a busier host. None (0 in the environment): no plan, the deadline
    # alone stops what does not fit.
    sync_plan_rtf: float | None = 0.42
    # Largest text object (or job) the S3 trigger downloads.
    # A million characters (SUPERTONIC_MAX_TEXT_CHARS) of text in a 3-byte UTF-8 script (Korean, Japanese, Chinese), with room to spare.
    max_object_bytes: int = 4 * 1024 * 1024
    # An EPUB is a zip with its pictures: a long novel's is a few MB; read whole into memory.
    max_book_bytes: int = 64 * 1024 * 1024
    # Seconds kept back from the time left for what follows synthesis whatever its size: closing
    # the file, the response (encoding and what grows with the audio are budgeted per request).
    deadline_margin_s: float = 2.0
    # The invocation timeout, when known (None: running outside Lambda and the emulator).
    function_timeout_s: float | None = None
    # The function's memory size in MB, when known: Lambda's CPU share follows it.
    function_memory_mb: int | None = None
    # Lifetime of presigned audio links; each link is also cut to the signing credentials' expiry.
    url_expires_s: int = 3600
    # Days the output bucket keeps results (its lifecycle rule); None: kept until removed.
    result_retention_days: int | None = None
    # The S3 upload rate the S3 trigger plans with: synthesis stops early enough to upload what it made.
    upload_mb_per_s: float = 20.0
    # Origins allowed to call the function URL from a browser; empty: no CORS headers.
    cors_allow_origins: tuple[str, ...] = ()
    warm_up: bool = True
    # Jobs at least this long (characters as the model reads them) are rendered in parts by
    # concurrent invocations through this queue (fanout.py); without a queue, in one invocation.
    parts_queue_url: str | None = None
    parts_dlq_arn: str | None = None  # the parts queue's dead-letter queue: its messages fail their job
    fanout_min_chars: int = 4000
    # /tmp, where a job's audio is encoded before its upload: Lambda's default size, 512 MB
    # (EphemeralStorage 512-10,240 MB, https://docs.aws.amazon.com/lambda/latest/dg/configuration-ephemeral-storage.html).
    ephemeral_storage_mb: int = 512
    # BUFFERED: every answer whole (6 MB); RESPONSE_STREAM: audio answers stream as they are made.
    invoke_mode: str = "BUFFERED"
    # The deployment's chunking for synchronous requests (a request's own fields win): a small first
    # chunk, rendered at fewer steps, is what the first audio waits for. None: the official chunking.
    first_chunk_chars: int | None = None
    first_chunk_steps: int | None = None
    trim_silence: bool = False
    # Flush policy of a streamed answer: audio is held until this many bytes are ready (0: each
    # chunk's audio goes as soon as it is encoded), and an event-stream event shorter than
    # sse_pad_bytes is padded to it with an SSE comment line, which every client ignores.
    stream_min_write_bytes: int = 0
    sse_pad_bytes: int = 0

    def __post_init__(self) -> None:
        if self.results_bucket and self.results_bucket == self.input_bucket and _overlaps(self.input_prefix, self.output_prefix):
            # Outputs under the triggering prefix would re-trigger the function: a billing loop.
            raise ConfigurationError(
                f"{ENV_OUTPUT_PREFIX}={self.output_prefix!r} overlaps {ENV_INPUT_PREFIX}={self.input_prefix!r} "
                f"in the same bucket; use a separate {ENV_OUTPUT_BUCKET} or prefixes that do not contain each other",
                field=ENV_OUTPUT_PREFIX,
            )
        if self.function_timeout_s is not None and self.deadline_margin_s >= self.function_timeout_s:
            # No time would be left for synthesis: every request a 504, every dropped text a failure
            # blamed on the text.
            raise ConfigurationError(
                f"{ENV_DEADLINE_MARGIN_S}={self.deadline_margin_s:g} leaves no time for synthesis in the function's "
                f"{self.function_timeout_s:g} s timeout ({ENV_FUNCTION_TIMEOUT}); set it below the timeout (the default is 2 s)",
                field=ENV_DEADLINE_MARGIN_S,
            )
        if self.invoke_mode not in INVOKE_MODES:
            raise ConfigurationError(
                f"{ENV_INVOKE_MODE}={self.invoke_mode!r}: set it to the function URL's InvokeMode, one of {', '.join(INVOKE_MODES)}",
                field=ENV_INVOKE_MODE,
            )
        try:  # the engine's own check of the values, so a bad deployment fails at init, not in every request
            SynthesisOptions(first_chunk_chars=self.first_chunk_chars, first_chunk_steps=self.first_chunk_steps)
        except InvalidParameter as error:
            variable = ENV_FIRST_CHUNK_CHARS if error.field == "first_chunk_chars" else ENV_FIRST_CHUNK_STEPS
            raise ConfigurationError(f"{variable}: {error.message}", field=variable) from None
        if self.url_expires_s > MAX_PRESIGNED_URL_S:
            raise ConfigurationError(
                f"{ENV_URL_EXPIRES_S}={self.url_expires_s}: S3 refuses presigned links valid for more than 7 days; "
                f"set at most {MAX_PRESIGNED_URL_S}",
                field=ENV_URL_EXPIRES_S,
            )

    @property
    def streams(self) -> bool:
        """Whether the function URL reads answers as streams (``RESPONSE_STREAM``)."""
        return self.invoke_mode == "RESPONSE_STREAM"

    def synthesis_defaults(self) -> dict[str, Any]:
        """The request fields this deployment sets when a synchronous request does not."""
        defaults: dict[str, Any] = {"first_chunk_chars": self.first_chunk_chars, "first_chunk_steps": self.first_chunk_steps}
        defaults = {name: value for name, value in defaults.items() if value is not None}
        return defaults | ({"trim_silence": True} if self.trim_silence else {})

    @property
    def results_bucket(self) -> str | None:
        """The bucket audio and manifests go to."""
        return self.output_bucket or self.input_bucket

    @property
    def sync_limits(self) -> Limits:
        """What one synchronous request at the default steps may cost; jobs and dropped files have
        the whole timeout."""
        return self.sync_limits_at(SynthesisOptions.steps)

    def sync_limits_at(self, steps: int, *, front_wait_s: float | None = None) -> Limits:
        """What one synchronous request rendered at ``steps`` may cost: its forecast audio is also
        bounded by what its time renders at ``sync_plan_rtf`` (a request past it is refused before
        any audio, not stopped by the deadline after minutes of work). ``front_wait_s``: how long the
        front that sent it waits, where that may be shorter than the timeout (``LambdaCall.front_wait_s``)."""
        return Limits(
            max_text_chars=self.sync_max_text_chars,
            max_spoken_chars=self.sync_max_spoken_chars,
            max_audio_s=min(self.sync_max_audio_s, self.renderable_audio_s(steps, front_wait_s=front_wait_s)),
        )

    def renderable_audio_s(self, steps: int, *, front_wait_s: float | None = None) -> float:
        """Seconds of audio one invocation renders at ``steps``, at ``sync_plan_rtf``, in its time: the
        timeout or ``front_wait_s``, whichever is shorter, less the margin; unbounded where no time or no
        plan is known. Past the default steps the time grows with them (12 steps took 1.5 times 8
        steps' on the tiny stand-in); fewer steps are planned as the default, since the encoder and
        vocoder do not shrink with them: a plan that errs long refuses a little early, one that errs
        short ends in a 504."""
        known_s = [seconds for seconds in (self.function_timeout_s, front_wait_s) if seconds is not None]
        if not known_s or self.sync_plan_rtf is None:
            return math.inf
        step_share = max(1.0, steps / SynthesisOptions.steps)
        # Less than a vCPU renders slower than its share says: 1,024 MB rendered at 0.371 where
        # 1,769 MB did at 0.200 (benchmarks/cost-lambda-sizes.txt, one thread), 1.86 times for a
        # share 1.73 times smaller, hence the power. More buys nothing on the engine's one thread
        # until a second whole vCPU (``session_config``), which the plan leaves as margin.
        pace = min(1.0, self.vcpu_share or 1.0) ** BELOW_ONE_VCPU_POWER
        return max(0.0, min(known_s) - self.deadline_margin_s) * pace / (self.sync_plan_rtf * step_share)

    def session_config(self, env: Mapping[str, str] | None = None) -> SessionConfig:
        """The engine's ONNX Runtime settings (``SUPERTONIC_*``); unless the threads are set there,
        one per whole vCPU of this memory size's share (``threads_for``): ``os.cpu_count()`` says 2 at
        2,048 MB where Lambda grants ~1.16 vCPU of time, and a second thread there only stalls on
        the quota. Where the process sees its CPU quota, that is what it was granted: the engine
        counts it (``usable_cpus``), whatever the memory size."""
        config = SessionConfig.from_env(env)
        threads = self.memory_threads()
        if config.intra_op_threads or threads is None or cpu_quota() is not None:
            return config
        return replace(config, intra_op_threads=threads)

    @property
    def vcpu_share(self) -> float | None:
        """The vCPUs of time Lambda grants this memory size; None outside Lambda, where it grants nothing."""
        return None if self.function_memory_mb is None else self.function_memory_mb / LAMBDA_MB_PER_VCPU

    def memory_threads(self) -> int | None:
        """Threads this memory size's CPU share runs (one per whole vCPU, no more than the cores the
        process may use); None outside Lambda."""
        share = self.vcpu_share
        return None if share is None else min(usable_cpus(), threads_for(share))

    @property
    def jobs_prefix(self) -> str:
        return self.input_prefix + JOBS_FOLDER

    @property
    def results_prefix(self) -> str:
        return self.output_prefix + RESULTS_FOLDER

    @property
    def responses_prefix(self) -> str:
        return self.output_prefix + RESPONSES_FOLDER

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> FunctionConfig:
        env = os.environ if env is None else env
        # Each value comes from its variable's own reader in VARIABLES, so the dict mixes types;
        # the constructor checks the names.
        values: dict[str, Any] = {}
        for name, (variable, read) in VARIABLES.items():
            raw = env.get(variable)
            if raw is not None and raw.strip() != "":
                try:
                    values[name] = read(raw.strip())
                except ValueError as error:
                    raise ConfigurationError(f"{variable}={raw!r}: {error}", field=variable) from None
        values.update(overrides)
        return cls(**values)


@dataclass(frozen=True)
class TelemetryNames:
    """The names logs and metrics carry, read apart from ``FunctionConfig``: the logger exists
    from the first import, before the configuration is read (and possibly found wrong)."""

    service: str = DEFAULT_SERVICE_NAME
    metrics_namespace: str = DEFAULT_METRICS_NAMESPACE

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TelemetryNames:
        env = os.environ if env is None else env
        return cls(
            service=env.get(ENV_SERVICE_NAME, "").strip() or DEFAULT_SERVICE_NAME,
            metrics_namespace=env.get(ENV_METRICS_NAMESPACE, "").strip() or DEFAULT_METRICS_NAMESPACE,
        )


def _overlaps(a: str, b: str) -> bool:
    return a.startswith(b) or b.startswith(a)


def _optional_str(raw: str) -> str | None:
    return raw or None


def _prefix(raw: str) -> str:
    """A key prefix is a folder: always ends with one slash, never starts with one."""
    raw = raw.strip("/")
    return f"{raw}/" if raw else ""


# Ranges of the numeric settings, inclusive unless said otherwise. What sets each end:
# Lambda's quotas (docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html): memory
# 128-10,240 MB, timeout at most 900 s; a streamed answer is at most 200 MB
# (docs.aws.amazon.com/lambda/latest/dg/configuration-response-streaming.html).
LAMBDA_MIN_MEMORY_MB = 128
# /tmp: 512-10,240 MB (docs.aws.amazon.com/lambda/latest/dg/configuration-ephemeral-storage.html).
LAMBDA_MIN_EPHEMERAL_MB = 512
LAMBDA_MAX_EPHEMERAL_MB = 10_240
LAMBDA_MAX_MEMORY_MB = 10_240
LAMBDA_MAX_TIMEOUT_S = 900.0
STREAM_MAX_BYTES = 200 * 1000 * 1000
# Just above the bitrate of the largest audio the function writes (16-bit WAV, mono, 44.1 kHz:
# 88,200 B/s). A slower upload rate keeps back more time for the upload than the audio lasts, so
# texts fail as too long; a value that low is a slip of unit (the setting is in MB/s, 10^6 bytes).
MIN_UPLOAD_MB_PER_S = 0.1
# A job's expiry date is its submission date plus this many days, and Python's dates end in year
# 9999 (datetime.MAXYEAR); past a century a lifecycle rule is no limit anyway.
MAX_RESULT_RETENTION_DAYS = 36_500


def _whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """A reader of whole numbers from ``low`` to ``high`` (None: no upper end)."""

    def read(raw: str) -> int:
        try:
            value = int(raw)
        except ValueError:
            raise ValueError("must be a whole number") from None
        if value < low or (high is not None and value > high):
            raise ValueError(f"use a whole number from {low} to {high}" if high is not None else f"use a whole number of at least {low}")
        return value

    return read


def _number(low: float, high: float = math.inf, *, low_included: bool = True, high_included: bool = False) -> Callable[[str], float]:
    """A reader of finite numbers between ``low`` and ``high``: inf and nan never make a deadline or a rate."""
    above = f"at least {low:g}" if low_included else f"above {low:g}"
    below = "" if high == math.inf else f" and {'at most' if high_included else 'below'} {high:g}"

    def read(raw: str) -> float:
        try:
            value = float(raw)
        except ValueError:
            raise ValueError("must be a number") from None
        low_ok = value >= low if low_included else value > low
        high_ok = value <= high if high_included else value < high
        if not (math.isfinite(value) and low_ok and high_ok):
            raise ValueError(f"use a number {above}{below}")
        return value

    return read


_positive_int = _whole(1)
_non_negative_int = _whole(0)


def _positive_int_or_none(raw: str) -> int | None:
    """A whole number; 0 (a template parameter's "off") is None: the setting is not used."""
    return _non_negative_int(raw) or None


def _positive_number_or_none(raw: str) -> float | None:
    """A finite number; 0 (the usual "off") is None: the setting is not used."""
    return _number(0)(raw) or None


def _invoke_mode(raw: str) -> str:
    return raw.upper()


def _origins(raw: str) -> tuple[str, ...]:
    return tuple(origin.strip().rstrip("/") for origin in raw.split(",") if origin.strip())


# Field name -> (environment variable, parser). Parsers raise ValueError with a hint; the url
# lifetime's upper end (S3's) is checked in FunctionConfig, for arguments too.
VARIABLES: dict[str, tuple[str, Callable[[str], object]]] = {
    "input_bucket": (ENV_INPUT_BUCKET, _optional_str),
    "input_prefix": (ENV_INPUT_PREFIX, _prefix),
    "output_bucket": (ENV_OUTPUT_BUCKET, _optional_str),
    "output_prefix": (ENV_OUTPUT_PREFIX, _prefix),
    "sync_max_text_chars": (ENV_SYNC_MAX_TEXT_CHARS, _positive_int),
    "sync_max_spoken_chars": (ENV_SYNC_MAX_SPOKEN_CHARS, _positive_int),
    "sync_max_audio_s": (ENV_SYNC_MAX_AUDIO_S, _number(0, low_included=False)),
    "sync_plan_rtf": (ENV_SYNC_PLAN_RTF, _positive_number_or_none),
    # Read whole into memory: no more than the largest function has.
    "max_object_bytes": (ENV_MAX_OBJECT_BYTES, _whole(1, LAMBDA_MAX_MEMORY_MB * 1000 * 1000)),
    "max_book_bytes": (ENV_MAX_BOOK_BYTES, _whole(1, LAMBDA_MAX_MEMORY_MB * 1000 * 1000)),
    # Below the longest timeout, whatever the timeout (it is checked against a known one at init too).
    "deadline_margin_s": (ENV_DEADLINE_MARGIN_S, _number(0, LAMBDA_MAX_TIMEOUT_S)),
    "function_timeout_s": (ENV_FUNCTION_TIMEOUT, _number(0, LAMBDA_MAX_TIMEOUT_S, low_included=False, high_included=True)),
    "function_memory_mb": (ENV_FUNCTION_MEMORY, _whole(LAMBDA_MIN_MEMORY_MB, LAMBDA_MAX_MEMORY_MB)),
    "url_expires_s": (ENV_URL_EXPIRES_S, _positive_int),
    "result_retention_days": (ENV_RESULT_RETENTION_DAYS, _whole(1, MAX_RESULT_RETENTION_DAYS)),
    "upload_mb_per_s": (ENV_UPLOAD_MB_PER_S, _number(MIN_UPLOAD_MB_PER_S)),
    "cors_allow_origins": (ENV_CORS_ALLOW_ORIGINS, _origins),
    "warm_up": (ENV_WARM_UP, true_or_false),
    "parts_queue_url": (ENV_PARTS_QUEUE_URL, _optional_str),
    "parts_dlq_arn": (ENV_PARTS_DLQ_ARN, _optional_str),
    "fanout_min_chars": (ENV_FANOUT_MIN_CHARS, _positive_int),
    "ephemeral_storage_mb": (ENV_EPHEMERAL_STORAGE_MB, _whole(LAMBDA_MIN_EPHEMERAL_MB, LAMBDA_MAX_EPHEMERAL_MB)),
    "invoke_mode": (ENV_INVOKE_MODE, _invoke_mode),
    "first_chunk_chars": (ENV_FIRST_CHUNK_CHARS, _positive_int_or_none),
    "first_chunk_steps": (ENV_FIRST_CHUNK_STEPS, _positive_int_or_none),
    "trim_silence": (ENV_TRIM_SILENCE, true_or_false),
    # No write and no event can be larger than the whole streamed answer.
    "stream_min_write_bytes": (ENV_STREAM_MIN_WRITE_BYTES, _whole(0, STREAM_MAX_BYTES)),
    "sse_pad_bytes": (ENV_SSE_PAD_BYTES, _whole(0, STREAM_MAX_BYTES)),
}
