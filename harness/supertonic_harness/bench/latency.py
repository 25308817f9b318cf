"""``supertonic-lambda bench --latency``: time to the first audio byte and to the last, buffered vs streamed.

Every request is a real HTTP ``POST /v1/tts`` (mp3) to the local function URL front, read with
``http.client`` as the bytes arrive, so the times are what a client sees: from sending the request
to the first body byte (TTFB) and to the last. Each (profile, precision) runs one function per
invoke mode (``BUFFERED`` and ``RESPONSE_STREAM``) side by side and alternates their requests, so
drift in the machine's speed hits both modes alike. Cold samples are the first request after a
fresh start of the function (init and the first chunk), each in a function started for it.

The stall margin of a streamed answer: playback starts with the first byte, so each later piece
must arrive before the audio already received has been played. For piece i it is (seconds of audio
in the pieces before it) - (its arrival - the first piece's arrival); the smallest over the pieces
is reported, negative meaning a stall. The audio a prefix holds is found by decoding that mp3
prefix: the answer measured is the product's own mp3 answer (its encoder's buffering included),
and no second set of requests in another format is needed within the hour the run may take.
"""

from __future__ import annotations

import argparse
import bisect
import dataclasses
import http.client
import io
import json
import os
import queue
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from supertonic_engine.config import ENV_PRECISION, ENV_SESSION_PREFIX, PRECISIONS

from ..function.rie import INVOKE_MODES, REPO_ROOT, RESPONSE_STREAM
from ..function.sandbox import Invocation, Sandbox
from ..replay.report import Progress
from ..stats import percentile
from .spawner import machine_facts
from .texts import LATENCY_PARAGRAPH, LATENCY_SENTENCE, VOICE, long_text

DEFAULT_PROFILES = ("2vcpu-2gb", "lambda-2048")
TEXTS: dict[str, str] = {
    "sentence": LATENCY_SENTENCE,
    "paragraph": LATENCY_PARAGRAPH,
    "page": long_text(1500),
    # The synchronous limit is SUPERTONIC_SYNC_MAX_TEXT_CHARS (3,000 by default): a text just below it.
    "limit": long_text(2900),
}
DEFAULT_REQUESTS = {"sentence": 20, "paragraph": 20, "page": 5, "limit": 5}
# Of those, the streamed requests read to their last byte; the others hang up at the first piece:
# their first byte is all they measure, and the function stops at its next chunk when the client
# goes, so the twenty first bytes of a page cost about twenty first chunks, not twenty pages.
DEFAULT_WHOLE = {"sentence": 5, "paragraph": 5, "page": 2, "limit": 2}
DEFAULT_COLD_TEXTS = ("sentence", "paragraph")
DEFAULT_COLD = 2
INTRA_OP_THREADS_VARIABLE = ENV_SESSION_PREFIX + "INTRA_OP_THREADS"
DEFAULT_JSON = REPO_ROOT / "benchmarks" / "latency.json"
PATH = "/v1/tts"
FORMAT = "mp3"
# Reads this close together are one arrival: http.client hands a write over in pieces of its 8 KiB
# buffer, and a piece read a few microseconds after another brings no new audio in time.
SAME_ARRIVAL_S = 0.001
INVOCATION_WAIT_S = 30.0  # the harness's measurements of an invocation follow its last byte closely


class RequestFailed(RuntimeError):
    """One request got no audio (a 504 past the deadline, a stream cut short): recorded, not timed."""


# --- the arithmetic ------------------------------------------------------------------------------------------


def smallest_margin(arrivals: Sequence[float], audio_before: Callable[[int], float]) -> float | None:
    """The smallest stall margin of a streamed answer; None when it came in one piece (nothing to wait for).

    ``arrivals[i]``: when piece i arrived (any clock); ``audio_before(i)``: seconds of audio in the
    pieces before piece i. Since that audio can only grow with i, the audio before an undecoded piece
    is at least that of the nearest decoded one before it: decoding only the piece whose bound is the
    lowest, until the lowest bound is an exact value, finds the exact minimum with few decodes.
    """
    if len(arrivals) < 2:
        return None
    known: dict[int, float] = {0: 0.0}
    while True:
        decoded = sorted(known)
        worst, worst_margin = 0, float("inf")
        for i in range(1, len(arrivals)):
            below = decoded[bisect.bisect_right(decoded, i) - 1]
            margin = known[below] - (arrivals[i] - arrivals[0])
            if margin < worst_margin or (margin == worst_margin and worst not in known):
                worst, worst_margin = i, margin
        if worst in known:
            return worst_margin
        known[worst] = audio_before(worst)


def coalesce(arrivals: Sequence[float], pieces: Sequence[bytes], within_s: float = SAME_ARRIVAL_S) -> tuple[list[float], list[bytes]]:
    """Pieces read within ``within_s`` of the one before joined into one, which arrived with its last read."""
    joined_at: list[float] = []
    joined: list[bytes] = []
    for at, piece in zip(arrivals, pieces, strict=True):
        if joined_at and at - joined_at[-1] <= within_s:
            joined_at[-1] = at
            joined[-1] += piece
        else:
            joined_at.append(at)
            joined.append(piece)
    return joined_at, joined


class Mp3Prefixes:
    """Seconds of audio a player holds after the first ``n`` pieces of an mp3 answer: the prefix decoded."""

    def __init__(self, pieces: Sequence[bytes]) -> None:
        self.body = b"".join(pieces)
        self.ends = [0]
        for piece in pieces:
            self.ends.append(self.ends[-1] + len(piece))
        self.decodes = 0

    def __call__(self, n: int) -> float:
        import soundfile as sf

        self.decodes += 1
        try:
            with _quiet_stderr():  # mpg123 warns that a prefix is shorter than the Xing header says
                audio, rate = sf.read(io.BytesIO(self.body[: self.ends[n]]), dtype="float32")
        except (sf.LibsndfileError, RuntimeError):
            return 0.0  # not one whole frame yet
        return len(audio) / rate


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


# --- one request, timed as a client sees it ---------------------------------------------------------------


@dataclass
class Answer:
    """One HTTP answer: status, headers and each body piece with its arrival (seconds after sending)."""

    status: int
    headers: dict[str, str]
    arrivals: list[float]
    pieces: list[bytes]
    cut: bool = False  # the body ended before its end (a streamed answer that failed after its first byte)
    hung_up: bool = False  # the client closed the connection after the first piece

    @property
    def ttfb_s(self) -> float | None:
        return self.arrivals[0] if self.arrivals else None

    @property
    def last_byte_s(self) -> float | None:
        return self.arrivals[-1] if self.arrivals else None

    @property
    def body(self) -> bytes:
        return b"".join(self.pieces)


def timed_post(url: str, document: Mapping[str, Any], timeout_s: float, *, whole: bool = True) -> Answer:
    """POST ``document`` as JSON and read the body piece by piece as it arrives; not ``whole``: hang up
    after the first piece (of a chunked answer: a whole one is read whole)."""
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname or "127.0.0.1", address.port, timeout=timeout_s)
    payload = json.dumps(document).encode()
    try:
        sent = time.perf_counter()
        connection.request("POST", PATH, payload, {"content-type": "application/json", "accept": "audio/mpeg"})
        response = connection.getresponse()
        arrivals: list[float] = []
        pieces: list[bytes] = []
        cut = hung_up = False
        chunked = response.getheader("transfer-encoding", "").lower() == "chunked"
        try:
            while piece := response.read1(1 << 16):  # what has arrived, at most one chunk of a chunked body
                arrivals.append(time.perf_counter() - sent)
                pieces.append(piece)
                if chunked and not whole:
                    hung_up = True
                    break
        except (http.client.IncompleteRead, ConnectionError):
            cut = True
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, arrivals, pieces, cut, hung_up)
    finally:
        connection.close()


class InvocationTap:
    """Stands in front of a sandbox and keeps every ``Invocation`` its methods return, for the
    harness's measurements (peak RSS, init) of the request the client just timed."""

    def __init__(self, sandbox: Sandbox) -> None:
        self._sandbox = sandbox
        self._seen: queue.Queue[Invocation] = queue.Queue()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._sandbox, name)
        if not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            result = value(*args, **kwargs)
            if isinstance(result, Invocation):
                self._seen.put(result)
            return result

        return call

    def drain(self) -> None:
        while not self._seen.empty():
            self._seen.get_nowait()

    def next(self, timeout_s: float = INVOCATION_WAIT_S) -> Invocation | None:
        try:
            return self._seen.get(timeout=timeout_s)
        except queue.Empty:
            return None


# --- the run ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    model: str = "full"
    profiles: tuple[str, ...] = DEFAULT_PROFILES
    precisions: tuple[str, ...] = PRECISIONS
    modes: tuple[str, ...] = INVOKE_MODES
    texts: tuple[str, ...] = tuple(TEXTS)
    requests: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_REQUESTS))
    whole: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_WHOLE))  # streamed requests read to the end
    cold: int = DEFAULT_COLD
    cold_texts: tuple[str, ...] = DEFAULT_COLD_TEXTS
    # The deployment's SUPERTONIC_FIRST_CHUNK_CHARS / _STEPS for this run (0: off); None: the template's.
    first_chunk_chars: int | None = None
    first_chunk_steps: int | None = None
    # SUPERTONIC_INTRA_OP_THREADS for this run; None: what the function derives from its memory size.
    intra_op_threads: int | None = None


@dataclass
class Sample:
    """One timed request: the client's times, the stall margin, and the harness's measurements."""

    kind: str  # cold or warm
    ttfb_s: float
    last_byte_s: float | None  # None: hung up after the first piece
    pieces: int
    bytes: int
    margin_s: float | None
    chunks: int | None  # x-supertonic-chunks
    audio_s: float  # x-supertonic-duration-s, else the decoded body's
    peak_rss_mb: float | None
    cgroup_peak_mb: float | None
    init_ms: float | None
    wall_s: float  # the whole request as the benchmark spent it: function start (cold), request, analysis


def request_document(text: str, seed: int) -> dict[str, Any]:
    return {"text": text, "voice": VOICE, "format": FORMAT, "seed": seed}


def function_environment(settings: Settings) -> dict[str, str]:
    """The deployment settings the run sets over the template's: set, as a deployment would, so 0 turns one off."""
    from supertonic_function.config import ENV_FIRST_CHUNK_CHARS, ENV_FIRST_CHUNK_STEPS

    chosen = {
        ENV_FIRST_CHUNK_CHARS: settings.first_chunk_chars,
        ENV_FIRST_CHUNK_STEPS: settings.first_chunk_steps,
        INTRA_OP_THREADS_VARIABLE: settings.intra_op_threads,
    }
    return {name: str(value) for name, value in chosen.items() if value is not None}


@dataclass
class RunningFunction:
    url: str
    tap: InvocationTap
    timeout_s: float
    log: deque[str]  # the front's last lines: one per request, with the function's error if any


@contextmanager
def running_function(model_dir: Path, profile: str, precision: str, mode: str, environment: Mapping[str, str]) -> Iterator[RunningFunction]:
    """The function in ``profile``'s limits at ``precision`` with ``environment`` over the template's,
    answering its function URL in ``mode``."""
    from ..fronts.emulator import FunctionUrlServer
    from ..fronts.local import add_function_arguments, start_local_function

    parser = argparse.ArgumentParser()
    add_function_arguments(parser)
    args = parser.parse_args(["--profile", profile, "--model", str(model_dir), "--no-s3", "--invoke-mode", mode])
    log: deque[str] = deque(maxlen=3)
    overrides = {**environment, ENV_PRECISION: precision}
    with ExitStack() as stack:
        local = stack.enter_context(start_local_function(args, environment_overrides=overrides))
        tap = InvocationTap(local.sandbox)
        # The front invokes through these: the tap sees every invocation and changes none.
        local.sandbox = local.sandboxes[0] = cast(Sandbox, tap)
        server = FunctionUrlServer(local, log=log.append).start()
        stack.callback(server.stop)
        yield RunningFunction(server.url, tap, float(local.sandbox.function.timeout_s) + 30.0, log)


def timed_request(function: RunningFunction, document: Mapping[str, Any], kind: str, started: float, *, whole: bool = True) -> Sample:
    """One request timed; not ``whole``: a streamed answer's first piece only, then the wait for the
    function to stop (it does at its next chunk), so the next request finds it idle."""
    function.tap.drain()
    answer = timed_post(function.url, document, function.timeout_s, whole=whole)
    if answer.status != 200 or not answer.pieces or answer.cut:
        what = "its stream was cut" if answer.cut else f"{answer.status}: {answer.body[:300].decode(errors='replace')}"
        time.sleep(0.1)  # the front logs the invocation just after the last byte
        raise RequestFailed(f"POST {PATH} ({kind}) answered {what}; the front: {function.log[-1] if function.log else '-'}")
    invocation = function.tap.next()
    streamed = answer.headers.get("transfer-encoding", "").lower() == "chunked"
    arrivals, pieces = coalesce(answer.arrivals, answer.pieces)
    prefixes = Mp3Prefixes(pieces)
    margin = smallest_margin(arrivals, prefixes) if streamed and not answer.hung_up else None
    # A streamed answer's headers go out before its length is known: then the audio is measured.
    duration = answer.headers.get("x-supertonic-duration-s") or f"{prefixes(len(pieces)):.3f}"
    chunks = answer.headers.get("x-supertonic-chunks")
    return Sample(
        kind=kind,
        ttfb_s=answer.arrivals[0],
        last_byte_s=None if answer.hung_up else answer.arrivals[-1],
        pieces=len(pieces),
        bytes=sum(map(len, answer.pieces)),
        margin_s=margin,
        chunks=int(chunks) if chunks else None,
        audio_s=float(duration),
        peak_rss_mb=invocation.peak_rss_mb if invocation and not answer.hung_up else None,
        cgroup_peak_mb=invocation.cgroup_peak_mb if invocation and not answer.hung_up else None,
        init_ms=invocation.init_ms if invocation else None,
        wall_s=time.monotonic() - started,
    )


def synthesis_settings(settings: Settings) -> dict[str, Any]:
    """What the function synthesizes with besides the request's voice and format: the template's
    deployment settings (``SUPERTONIC_FIRST_CHUNK_*``) with the run's over them, read as the function reads them."""
    from supertonic_function.config import FunctionConfig

    from ..function.template import DEFAULT_TEMPLATE, Template

    environment = {**Template.load(DEFAULT_TEMPLATE).function().environment, **function_environment(settings)}
    return FunctionConfig.from_env(environment).synthesis_defaults()


def prepared_chunks(model_dir: Path, text: str, settings: Settings) -> dict[str, Any]:
    """The chunks the engine's ``prepare`` makes of ``text`` with the function's settings."""
    from supertonic_engine import SynthesisOptions
    from supertonic_engine.assets import load_assets
    from supertonic_engine.preparation import Preparer

    options = SynthesisOptions(voice=VOICE, **synthesis_settings(settings))
    prepared = Preparer(load_assets(model_dir)).prepare(text, options, format=FORMAT)
    return {"count": len(prepared.chunks), "first_chars": len(prepared.chunks[0]), "chunk_chars": [len(c) for c in prepared.chunks]}


def resolve_model_dir(model: str, precisions: Sequence[str]) -> Path:
    """The model directory, with the prepared graphs of every precision the run uses (as the image has them)."""
    from supertonic_tools.prepare import ensure_prepared
    from supertonic_tools.standin import ensure_standin

    model_dir = Path(ensure_standin(model)) if model in ("tiny", "full") else Path(model)
    for precision in precisions:
        ensure_prepared(model_dir, precision)
    return model_dir


def run_latency(settings: Settings, echo: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> dict[str, Any]:
    model_dir = resolve_model_dir(settings.model, settings.precisions)
    began = time.monotonic()
    cells: list[dict[str, Any]] = []
    for profile in settings.profiles:
        for precision in settings.precisions:
            samples = run_pair(model_dir, profile, precision, settings, echo)
            for (mode, text_name), (found, failed) in samples.items():
                cells.append(summarize_cell(profile, precision, mode, text_name, found, failed))
    report = {
        "mode": "latency",
        "machine": {**machine_facts(), "load_average": os.getloadavg()[0]},
        "model_dir": str(model_dir),
        "model_kind": "stand-in" if settings.model in ("tiny", "full") else "directory",
        "model": settings.model,
        "path": PATH,
        "format": FORMAT,
        "voice": VOICE,
        "concurrency": 1,
        "settings": {**dataclasses.asdict(settings), "requests": dict(settings.requests)},
        "synthesis": synthesis_settings(settings),
        "texts": {name: {"chars": len(TEXTS[name]), **prepared_chunks(model_dir, TEXTS[name], settings)} for name in settings.texts},
        "cells": cells,
        "elapsed_s": time.monotonic() - began,
    }
    report["ratios"] = stream_vs_buffered(cells)
    report["estimate"] = estimate_default_run(report)
    return report


def run_pair(
    model_dir: Path, profile: str, precision: str, settings: Settings, echo: Callable[[str], None]
) -> dict[tuple[str, str], tuple[list[Sample], list[str]]]:
    """Every mode's samples and failures at one profile and precision: cold ones first, then the warm
    ones alternating modes. After a warm failure, the rest of that text in that mode is skipped."""
    samples: dict[tuple[str, str], list[Sample]] = {(mode, name): [] for mode in settings.modes for name in settings.texts}
    failures: dict[tuple[str, str], list[str]] = {key: [] for key in samples}
    given_up: set[tuple[str, str]] = set()  # a warm request of this mode and text failed
    cold_texts = [name for name in settings.cold_texts if name in settings.texts]
    total = settings.cold * len(cold_texts) * len(settings.modes) + sum(settings.requests[n] for n in settings.texts) * len(settings.modes)
    progress, done = Progress(total), 0
    environment = function_environment(settings)
    for name in cold_texts:
        for k in range(settings.cold):
            for mode in settings.modes:
                started = time.monotonic()
                try:
                    with running_function(model_dir, profile, precision, mode, environment) as function:
                        sample = timed_request(function, request_document(TEXTS[name], k), "cold", started)
                    sample.wall_s = time.monotonic() - started  # the function's start and stop included
                    samples[mode, name].append(sample)
                except RequestFailed as error:
                    failures[mode, name].append(str(error))
                done += 1
                progress.update(done, f"{profile} {precision} cold {name}")
    with ExitStack() as stack:
        functions = {
            mode: stack.enter_context(running_function(model_dir, profile, precision, mode, environment)) for mode in settings.modes
        }
        for mode, function in functions.items():  # its init and first request are not a warm sample
            try:
                timed_request(function, request_document(TEXTS[settings.texts[0]], 0), "warm-up", time.monotonic())
            except RequestFailed as error:
                failures[mode, settings.texts[0]].append(str(error))
        for name in settings.texts:
            for i in range(settings.requests[name]):
                for mode, function in functions.items():  # A B A B: the same text and seed, one after the other
                    done += 1
                    progress.update(done, f"{profile} {precision} {name}")
                    if (mode, name) in given_up:
                        continue  # the same text would fail again, most likely after the whole timeout
                    started = time.monotonic()
                    whole = mode != RESPONSE_STREAM or i < settings.whole.get(name, settings.requests[name])
                    try:
                        samples[mode, name].append(timed_request(function, request_document(TEXTS[name], i), "warm", started, whole=whole))
                    except RequestFailed as error:
                        failures[mode, name].append(str(error))
                        given_up.add((mode, name))
    progress.close()
    for (mode, name), found in failures.items():
        if found:
            echo(f"{profile} {precision} {mode} {name}: {len(found)} failed, the first: {found[0]}")
    return {key: (found, failures[key]) for key, found in samples.items()}


def _rounded(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def summarize_cell(profile: str, precision: str, mode: str, text_name: str, samples: list[Sample], failures: list[str]) -> dict[str, Any]:
    warm = [s for s in samples if s.kind == "warm"]
    whole = [s for s in warm if s.last_byte_s is not None]
    hung_up = [s for s in warm if s.last_byte_s is None]
    cold = [s for s in samples if s.kind == "cold"]
    margins = [s.margin_s for s in samples if s.margin_s is not None]
    peaks = [s.peak_rss_mb for s in warm if s.peak_rss_mb is not None]
    return {
        "profile": profile,
        "precision": precision,
        "mode": mode,
        "text": text_name,
        "chars": len(TEXTS[text_name]),
        "warm_requests": len(warm),
        "ttfb_p50_s": _rounded(percentile([s.ttfb_s for s in warm], 50)),
        "ttfb_p95_s": _rounded(percentile([s.ttfb_s for s in warm], 95)),
        "whole_requests": len(whole),
        "last_byte_p50_s": _rounded(percentile([s.last_byte_s for s in whole if s.last_byte_s is not None], 50)),
        "last_byte_p95_s": _rounded(percentile([s.last_byte_s for s in whole if s.last_byte_s is not None], 95)),
        "cold_ttfb_s": [round(s.ttfb_s, 3) for s in cold],
        "cold_last_byte_s": [round(s.last_byte_s, 3) for s in cold if s.last_byte_s is not None],
        "cold_init_ms": [s.init_ms for s in cold],
        "smallest_margin_s": _rounded(min(margins)) if margins else None,
        "pieces_median": statistics.median(s.pieces for s in samples) if samples else None,
        "peak_rss_mb_max": max(peaks) if peaks else None,
        "chunks_header": sorted({s.chunks for s in samples if s.chunks is not None}),
        "audio_s": samples[0].audio_s if samples else None,
        "wall_s_per_warm_request": _rounded(statistics.mean(s.wall_s for s in whole)) if whole else None,
        "wall_s_per_first_byte_request": _rounded(statistics.mean(s.wall_s for s in hung_up)) if hung_up else None,
        "wall_s_per_cold_request": _rounded(statistics.mean(s.wall_s for s in cold)) if cold else None,
        "failures": failures,
        "samples": [dataclasses.asdict(s) for s in samples],
    }


def stream_vs_buffered(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each streamed cell's median time to the last byte and to the first, over the buffered one's."""
    buffered = {(c["profile"], c["precision"], c["text"]): c for c in cells if c["mode"] == "BUFFERED"}
    ratios = []
    for cell in cells:
        base = buffered.get((cell["profile"], cell["precision"], cell["text"]))
        if cell["mode"] != RESPONSE_STREAM or base is None or not base["last_byte_p50_s"] or not base["ttfb_p50_s"]:
            continue
        ratios.append(
            {
                "profile": cell["profile"],
                "precision": cell["precision"],
                "text": cell["text"],
                "total_time_ratio": _rounded(cell["last_byte_p50_s"] / base["last_byte_p50_s"]),
                "ttfb_ratio": _rounded(cell["ttfb_p50_s"] / base["ttfb_p50_s"]),
            }
        )
    return ratios


def estimate_default_run(report: dict[str, Any]) -> dict[str, Any]:
    """The seconds the default run would take, from the seconds each request took here: every measured
    (profile, precision, mode, text) at the default counts, and the same scaled to the default cells."""
    settings = report["settings"]
    seconds = 0.0
    for cell in report["cells"]:
        name = cell["text"]
        whole_s, first_byte_s = cell["wall_s_per_warm_request"], cell.get("wall_s_per_first_byte_request")
        if whole_s is not None:
            whole = DEFAULT_WHOLE[name] if cell["mode"] == RESPONSE_STREAM else DEFAULT_REQUESTS[name]
            # A hung-up request not measured here is counted as a whole one: the estimate errs long.
            seconds += whole_s * whole + (first_byte_s or whole_s) * (DEFAULT_REQUESTS[name] - whole)
        if name in DEFAULT_COLD_TEXTS and cell["wall_s_per_cold_request"] is not None:
            seconds += cell["wall_s_per_cold_request"] * DEFAULT_COLD
    measured = len(settings["profiles"]) * len(settings["precisions"])
    default_cells = len(DEFAULT_PROFILES) * len(PRECISIONS)
    # A streamed request that hangs up costs a fraction of a buffered one: one mode says nothing of the other.
    complete = set(settings["texts"]) == set(TEXTS) and set(settings["modes"]) == set(INVOKE_MODES)
    return {
        "measured_cells_at_default_counts_s": round(seconds),
        "default_run_s": round(seconds * default_cells / measured) if complete else None,
        "note": "scaled from the measured profiles and precisions; lambda-2048 has less CPU than 2vcpu-2gb and fp32 is slower than int8"
        if complete
        else "run every text in both modes once to estimate the default run",
    }


# --- the report -------------------------------------------------------------------------------------------


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _counts(cell: dict[str, Any]) -> str:
    """Warm requests, and how many of them were read to the end when not all were."""
    warm, whole = cell["warm_requests"], cell.get("whole_requests", cell["warm_requests"])
    return str(warm) if whole == warm else f"{warm}/{whole}"


def format_latency(report: dict[str, Any]) -> list[str]:
    machine = report["machine"]
    lines = [
        f"model: {report['model_kind']} ({report['model_dir']}), {machine['cpu']} ({machine['cores']} cores), "
        f"load average {machine['load_average']:.2f} at start",
        f"POST {report['path']} {report['format']}, voice {report['voice']}, concurrency 1, "
        + ", ".join(f"{k} {v}" for k, v in report["synthesis"].items())
        + "; times in seconds from sending the request",
        "texts: "
        + "; ".join(
            f"{name} {t['chars']} chars -> {t['count']} chunks, the first {t['first_chars']} chars" for name, t in report["texts"].items()
        ),
        "",
    ]
    header = (
        f"{'profile':<12}{'prec':<5}{'mode':<16}{'text':<10}{'n':>6}{'fail':>5}{'TTFB p50':>9}{'p95':>6}{'last p50':>9}{'p95':>7}"
        f"{'cold TTFB':>11}{'cold last':>11}{'margin':>8}{'chunks':>7}{'peak MB':>8}"
    )
    lines += [header, "-" * len(header)]
    for c in report["cells"]:
        cold_ttfb = ",".join(f"{v:.2f}" for v in c["cold_ttfb_s"]) or "-"
        cold_last = ",".join(f"{v:.1f}" for v in c["cold_last_byte_s"]) or "-"
        chunks = ",".join(map(str, c["chunks_header"])) or "-"
        peak = "-" if c["peak_rss_mb_max"] is None else f"{c['peak_rss_mb_max']:.0f}"
        lines.append(
            f"{c['profile']:<12}{c['precision']:<5}{c['mode']:<16}{c['text']:<10}{_counts(c):>6}{len(c['failures']):>5}{_s(c['ttfb_p50_s']):>9}"
            f"{_s(c['ttfb_p95_s']):>6}{_s(c['last_byte_p50_s']):>9}{_s(c['last_byte_p95_s']):>7}{cold_ttfb:>11}{cold_last:>11}"
            f"{_s(c['smallest_margin_s']):>8}{chunks:>7}{peak:>8}"
        )
    for c in report["cells"]:
        if c["failures"]:
            lines.append(f"{c['profile']} {c['precision']} {c['mode']} {c['text']}: {c['failures'][0]}")
    if report["ratios"]:
        lines += [
            "",
            "streamed / buffered (p50): "
            + "; ".join(
                f"{r['profile']} {r['precision']} {r['text']}: total {r['total_time_ratio']:.2f}x, first byte {r['ttfb_ratio']:.2f}x"
                for r in report["ratios"]
            ),
        ]
    estimate = report["estimate"]
    lines += [
        "",
        "(n: warm requests, / those read to the last byte: the rest hung up at the first. "
        "margin: the smallest over the streamed pieces of the audio received before a piece minus its delay after the "
        "first byte; negative = a stall. peak MB: the largest peak RSS of a warm invocation.)",
        f"this run: {report['elapsed_s']:.0f} s; the cells measured at the default counts: {estimate['measured_cells_at_default_counts_s']} s; "
        + (f"the default run: about {estimate['default_run_s']} s ({estimate['note']})" if estimate["default_run_s"] else estimate["note"]),
    ]
    return lines


# --- the command ------------------------------------------------------------------------------------------


def add_latency_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("--latency: time to the first and the last audio byte, buffered vs streamed")
    group.add_argument("--latency", action="store_true", help="instead: TTFB and time to the last byte through the local function URL")
    group.add_argument("--profiles", default=",".join(DEFAULT_PROFILES), metavar="P,P", help="limit profiles (default: %(default)s)")
    group.add_argument("--precisions", default=",".join(PRECISIONS), metavar="P,P", help="fp32, int8 (default: %(default)s)")
    group.add_argument("--modes", default=",".join(INVOKE_MODES), metavar="M,M", help="invoke modes (default: %(default)s)")
    group.add_argument("--texts", default=",".join(TEXTS), metavar="T,T", help="texts (default: %(default)s)")
    group.add_argument(
        "--requests",
        type=int,
        default=None,
        metavar="N",
        help="warm requests per text and mode (default: " + ", ".join(f"{k} {v}" for k, v in DEFAULT_REQUESTS.items()) + ")",
    )
    group.add_argument(
        "--whole",
        type=int,
        default=None,
        metavar="N",
        help="of those, streamed requests read to the last byte; the others hang up at the first "
        "(default: " + ", ".join(f"{k} {v}" for k, v in DEFAULT_WHOLE.items()) + ")",
    )
    group.add_argument(
        "--cold", type=int, default=DEFAULT_COLD, metavar="N", help="cold samples per cold text and mode (default: %(default)s)"
    )
    group.add_argument(
        "--cold-texts", default=",".join(DEFAULT_COLD_TEXTS), metavar="T,T", help="texts with cold samples (default: %(default)s)"
    )
    group.add_argument(
        "--first-chunk-chars", type=int, default=None, metavar="N", help="deploy SUPERTONIC_FIRST_CHUNK_CHARS=N (0: the official chunks)"
    )
    group.add_argument(
        "--first-chunk-steps", type=int, default=None, metavar="N", help="deploy SUPERTONIC_FIRST_CHUNK_STEPS=N (0: the request's steps)"
    )
    group.add_argument(
        "--intra-op-threads",
        type=int,
        default=None,
        metavar="N",
        help=f"deploy {INTRA_OP_THREADS_VARIABLE}=N (default: the function's, from its memory size's CPU share)",
    )


def _choices(text: str, allowed: Sequence[str], flag: str) -> tuple[str, ...]:
    chosen = tuple(item.strip() for item in text.split(",") if item.strip())
    unknown = [item for item in chosen if item not in allowed]
    if unknown or not chosen:
        raise SystemExit(f"{flag} {text!r}: choose from {', '.join(allowed)}")
    return chosen


def settings_from_args(args: argparse.Namespace) -> Settings:
    from ..function.limits import PROFILES, is_profile_name

    texts = _choices(args.texts, tuple(TEXTS), "--texts")
    profiles = tuple(p.strip() for p in args.profiles.split(",") if p.strip())
    for profile in profiles:
        if not is_profile_name(profile) or profile == "custom":
            raise SystemExit(f"--profiles: unknown profile {profile!r}; use {', '.join(PROFILES)} or lambda-<MB>")
    cold_texts = _choices(args.cold_texts, tuple(TEXTS), "--cold-texts") if args.cold else ()
    return Settings(
        model=args.model,
        profiles=profiles,
        precisions=_choices(args.precisions, PRECISIONS, "--precisions"),
        modes=_choices(args.modes.upper(), INVOKE_MODES, "--modes"),
        texts=texts,
        requests={name: args.requests if args.requests is not None else DEFAULT_REQUESTS[name] for name in texts},
        whole={name: args.whole if args.whole is not None else DEFAULT_WHOLE[name] for name in texts},
        cold=args.cold,
        cold_texts=cold_texts,
        first_chunk_chars=args.first_chunk_chars,
        first_chunk_steps=args.first_chunk_steps,
        intra_op_threads=args.intra_op_threads,
    )


def run_latency_command(args: argparse.Namespace, json_path: Path | None) -> int:
    report = run_latency(settings_from_args(args))
    print("\n".join(format_latency(report)))
    path = json_path or DEFAULT_JSON
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    print(f"\nwrote {path}")
    return 1 if any(cell["failures"] for cell in report["cells"]) else 0
