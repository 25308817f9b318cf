"""The first audio of a cold container, by phase: ``supertonic-lambda image bench-cold``.

The image runs as Lambda runs it (read-only, an unknown uid, the profile's memory and CPU share,
Lambda's ulimits) in streaming mode, with ``AWS_LAMBDA_RUNTIME_API`` pointing at a Runtime API
served here, on the host: the entry script then skips the emulator (which would buffer a streamed
answer and send it whole) and the function's own runtime loop posts each piece of its answer as it
is made, so the arrival of the first audio byte is seen when it happens. Each run is a new
container with one request queued for it; the phases come from four clocks that agree (the host
and the container share the kernel's wall clock):

* the ``podman run``/``docker run`` call, here;
* the container's first process starting (its start time in ``/proc``);
* the function's own log: ``init done`` (``init_ms``, ``load_ms``, ``warm_up_ms``) and the
  engine's ``four sessions ... ready in`` line;
* the Runtime API here: ``/next`` asked, the prelude and each piece of the body arriving.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess  # runs the container engine with arguments built here  # nosec B404
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ..fronts.furl import PRELUDE_END
from ..function.rie import REPO_ROOT
from ..function.runtime_proxy import read_chunks
from .engine import ContainerEngine

EVENT = REPO_ROOT / "events" / "furl_post_tts.json"
# One sentence at the function's defaults (voice, steps, format): one chunk, the whole answer.
TEXT = "Hello from a cold container."
WAIT_S = 180.0
PHASES = (
    ("container", "container start: the engine's run call to the first process (podman's own cost, not Lambda's)"),
    ("interpreter", "interpreter start and the runtime loop's imports (before app.py's first line)"),
    ("imports", "the handler's imports (app.py's, numpy, onnxruntime, soundfile, Powertools)"),
    ("config", "configuration and the model's small files (tts.json, indexer, voices)"),
    ("sessions", "the four ONNX Runtime sessions (the engine's 'ready in' line)"),
    ("warm_up", "warm-up: one short synthesis at init"),
    ("next", "init done to the runtime's first /next"),
    ("first_chunk", "/next to the prelude: the request, the forecast, the first chunk's synthesis"),
    ("first_byte", "the prelude to the first audio byte"),
)


class TimedRuntimeApi:
    """A Runtime API on the host that hands out one event and notes when each call and piece arrives."""

    def __init__(self, event: bytes, host: str = "127.0.0.1") -> None:
        self.event = event
        self.arrivals: list[tuple[float, str, int]] = []  # (wall clock, what, bytes)
        self.errors: list[bytes] = []
        self.done = threading.Event()
        self.closing = threading.Event()
        self._handed_out = False
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _reply(self, status: int, body: bytes = b"", headers: Mapping[str, str] | None = None) -> None:
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                api.note("next")
                if not self.path.endswith("/invocation/next") or api._handed_out:
                    api.closing.wait(WAIT_S)  # the second /next: the container is stopped before it is answered
                    return
                api._handed_out = True
                deadline = str(int(time.time() * 1000) + 900_000)
                headers = {
                    "Lambda-Runtime-Aws-Request-Id": "cold-1",
                    "Lambda-Runtime-Deadline-Ms": deadline,
                    "Content-Type": "application/json",
                }
                self._reply(200, api.event, headers)

            def do_POST(self) -> None:
                if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                    for piece in read_chunks(self.rfile):
                        api.note("piece", len(piece), piece)
                else:
                    body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                    api.note("post", len(body))
                    if self.path.endswith("/error"):
                        api.errors.append(body)
                api.note("end")
                api.done.set()
                self._reply(202, b'{"status":"OK"}')

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.prelude_seen = False

    def note(self, what: str, size: int = 0, piece: bytes = b"") -> None:
        if what == "piece" and not self.prelude_seen and PRELUDE_END in piece:
            self.prelude_seen = True
            head, _, rest = piece.partition(PRELUDE_END)
            self.arrivals.append((time.time(), "prelude", len(head) + len(PRELUDE_END)))
            if rest:
                self.arrivals.append((time.time(), "piece", len(rest)))
            return
        self.arrivals.append((time.time(), what, size))

    @property
    def address(self) -> str:
        host, port = self.server.server_address[:2]
        return f"{host!s}:{port}"

    def first(self, what: str) -> float | None:
        return next((t for t, w, _ in self.arrivals if w == what), None)

    def close(self) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()


def log_time(stamp: str) -> float:
    """Powertools' ``timestamp`` (``2026-12-06 18:44:13,970+0000``) as seconds since the epoch."""
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f%z").timestamp()


def process_start(pid: int) -> float | None:
    """When process ``pid`` started, on the wall clock (``/proc/<pid>/stat`` counts clock ticks since boot)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    ticks = int(fields[19])  # field 22, starttime; [0] here is field 3
    since_boot = ticks / os.sysconf("SC_CLK_TCK")
    return time.time() - (time.clock_gettime(time.CLOCK_BOOTTIME) - since_boot)


@dataclass
class ColdRun:
    """One cold start: seconds of each phase (PHASES), and the totals to the first audio byte."""

    phases: dict[str, float]
    process_to_first_byte_s: float
    container_to_first_byte_s: float
    answer_bytes: int
    pieces: int
    page_cache: str
    log: dict[str, Any] = field(default_factory=dict)


def phases_of(t0: float, started: float | None, logs: list[dict[str, Any]], api: TimedRuntimeApi) -> dict[str, float]:
    """Each phase's seconds from the four clocks (the module's docstring)."""
    init = next(line for line in logs if line.get("message") == "init done")
    ready = next((line for line in logs if "ready in" in str(line.get("message", ""))), None)
    init_done = log_time(init["timestamp"])
    init_start = init_done - init["init_ms"] / 1000
    sessions_s = float(re.search(r"ready in ([0-9.]+) s", ready["message"])[1]) if ready else 0.0  # type: ignore[index]
    next_at, prelude_at = api.first("next"), api.first("prelude")
    first_byte_at = api.first("piece")
    if next_at is None or prelude_at is None or first_byte_at is None:
        raise RuntimeError(f"the runtime posted no streamed audio: {api.arrivals} {api.errors}")
    started = init_start if started is None else started
    load_s, warm_s = init["load_ms"] / 1000, init["warm_up_ms"] / 1000
    return {
        "container": started - t0,
        "interpreter": init_start - started,
        "imports": init["init_ms"] / 1000 - load_s - warm_s,
        "config": load_s - sessions_s,
        "sessions": sessions_s,
        "warm_up": warm_s,
        "next": next_at - init_done,
        "first_chunk": prelude_at - next_at,
        "first_byte": first_byte_at - prelude_at,
    }


def drop_page_cache() -> str:
    """Drop the host's page cache (root only); says what was done."""
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError as error:
        return f"warm (dropping it was refused: {error.strerror})"
    return "cold (dropped before the run)"


def event_bytes(text: str = TEXT) -> bytes:
    event = json.loads(EVENT.read_text(encoding="utf-8"))
    event["body"] = json.dumps({"text": text})
    return json.dumps(event).encode()


@contextmanager
def _container(engine: ContainerEngine, command: Sequence[str], name: str) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # the engine with arguments built here  # nosec B603
    try:
        yield process
    finally:
        subprocess.run(
            [engine.program, "rm", "-f", "-t", "0", name], capture_output=True, check=False
        )  # the engine with arguments built here  # nosec B603
        process.wait(timeout=60)


def _pid(engine: ContainerEngine, name: str, process: subprocess.Popen[str]) -> int | None:
    while process.poll() is None:
        done = subprocess.run(
            [engine.program, "inspect", "--format", "{{.State.Pid}}", name], capture_output=True, text=True, check=False
        )  # the engine with arguments built here  # nosec B603
        if done.returncode == 0 and done.stdout.strip() not in ("", "0"):
            return int(done.stdout.strip())
        time.sleep(0.02)
    return None


def cold_run(
    engine: ContainerEngine, tag: str, *, cpus: float, memory_mb: int, env: Mapping[str, str] | None = None, drop_caches: bool = False
) -> ColdRun:
    """One new container, one streamed request: its phases to the first audio byte."""
    api = TimedRuntimeApi(event_bytes())
    name = f"supertonic-cold-{uuid.uuid4().hex[:8]}"
    run_env = {"SUPERTONIC_FUNCTION_URL_INVOKE_MODE": "RESPONSE_STREAM", "AWS_LAMBDA_RUNTIME_API": api.address, **(env or {})}
    command = engine.run_command(tag, name=name, cpus=cpus, memory_mb=memory_mb, env=run_env, network="host")
    page_cache = drop_page_cache() if drop_caches else "warm"
    try:
        t0 = time.time()
        with _container(engine, command, name) as process:
            pid = _pid(engine, name, process)
            started = process_start(pid) if pid else None
            if not api.done.wait(WAIT_S):
                raise TimeoutError(f"no answer within {WAIT_S:.0f} s")
        output = process.stdout.read() if process.stdout else ""
    finally:
        api.close()
    logs = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    phases = phases_of(t0, started, logs, api)
    body = [size for _, what, size in api.arrivals if what == "piece"]
    init = next(line for line in logs if line.get("message") == "init done")
    kept = {k: init.get(k) for k in ("init_ms", "load_ms", "warm_up_ms", "model_kind", "precision")}
    return ColdRun(
        phases={k: round(v, 4) for k, v in phases.items()},
        # The phases follow one another: their sum is the run call to the first byte.
        process_to_first_byte_s=round(sum(phases.values()) - phases["container"], 4),
        container_to_first_byte_s=round(sum(phases.values()), 4),
        answer_bytes=sum(body),
        pieces=len(body),
        page_cache=page_cache,
        log=kept,
    )


def medians(runs: Sequence[ColdRun]) -> dict[str, float]:
    values = {key: statistics.median(r.phases[key] for r in runs) for key, _ in PHASES}
    values["process_to_first_byte"] = statistics.median(r.process_to_first_byte_s for r in runs)
    values["container_to_first_byte"] = statistics.median(r.container_to_first_byte_s for r in runs)
    return {k: round(v, 4) for k, v in values.items()}


def table(label: str, runs: Sequence[ColdRun]) -> str:
    """Phases (ms) per run and their medians."""
    middle = medians(runs)
    head = f"{'phase':<13}" + "".join(f"{'run ' + str(i + 1):>9}" for i in range(len(runs))) + f"{'median':>9}  what"
    lines = [label, head]
    for key, what in PHASES:
        lines.append(f"{key:<13}" + "".join(f"{r.phases[key] * 1000:>9.0f}" for r in runs) + f"{middle[key] * 1000:>9.0f}  {what}")
    lines.append(
        f"{'process->1st':<13}"
        + "".join(f"{r.process_to_first_byte_s * 1000:>9.0f}" for r in runs)
        + f"{middle['process_to_first_byte'] * 1000:>9.0f}  the first process's start to the first audio byte"
    )
    lines.append(
        f"{'container->1st':<14}"
        + "".join(f"{r.container_to_first_byte_s * 1000:>8.0f} " for r in runs)
        + f"{middle['container_to_first_byte'] * 1000:>8.0f}   the run call to the first audio byte"
    )
    return "\n".join(lines)


def report(runs: Sequence[ColdRun]) -> dict[str, Any]:
    return {"runs": [asdict(r) for r in runs], "medians_s": medians(runs), "phases": dict(PHASES)}


def import_times(engine: ContainerEngine, tag: str, *, cpus: float, memory_mb: int, top: int = 25) -> list[tuple[str, float]]:
    """``python -X importtime`` of the runtime loop and the handler inside the image (no model
    loaded: SUPERTONIC_MODEL_DIR points nowhere): the modules with the largest cumulative ms."""
    probe = "import supertonic_function.runtime.loop, supertonic_function.app"
    command = engine.run_command(
        tag,
        cpus=cpus,
        memory_mb=memory_mb,
        env={"SUPERTONIC_MODEL_DIR": "/nonexistent"},
        entrypoint="/usr/local/bin/python",
        args=["-X", "importtime", "-c", probe],
    )
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # the engine with arguments built here  # nosec B603
    rows = []
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if match:
            rows.append((match[2] + match[3], int(match[1]) / 1000))
    return sorted(rows, key=lambda row: -row[1])[:top]


def load_average() -> str:
    try:
        return " ".join(f"{load:.2f}" for load in os.getloadavg())
    except OSError:
        return "unknown"


def bench(
    engine: ContainerEngine,
    tags: Sequence[str],
    *,
    cpus: float,
    memory_mb: int,
    runs: int,
    env: Mapping[str, str] | None = None,
    drop_caches: bool = False,
    say: Any = print,
) -> tuple[dict[str, list[ColdRun]], dict[str, Any]]:
    """``runs`` cold starts of each image in ``tags``, interleaved (A B A B ...) so a busy host
    slows each alike; each image's phases, medians and import times."""
    results: dict[str, list[ColdRun]] = {tag: [] for tag in tags}
    loads = [load_average()]
    for number in range(runs):
        for tag in tags:
            run = cold_run(engine, tag, cpus=cpus, memory_mb=memory_mb, env=env, drop_caches=drop_caches)
            results[tag].append(run)
            say(f"{tag} run {number + 1}: process start to first audio byte {run.process_to_first_byte_s * 1000:.0f} ms ({run.page_cache})")
    loads.append(load_average())
    return results, {
        "method": __doc__.strip() if __doc__ else "",
        "cpus": cpus,
        "memory_mb": memory_mb,
        "text": TEXT,
        "env": dict(env or {}),
        "load_average_before_after": loads,
        "images": {
            tag: report(found) | {"import_ms": import_times(engine, tag, cpus=cpus, memory_mb=memory_mb)} for tag, found in results.items()
        },
    }


def text_report(result: Mapping[str, Any], runs_by_tag: Mapping[str, Sequence[ColdRun]]) -> str:
    lines = [
        f"Cold first audio in the image, {result['cpus']:g} vCPU and {result['memory_mb']} MB, streaming (own runtime loop, Runtime API on the host).",
        f"Request: POST /v1/tts {json.dumps({'text': result['text']})} (the function's defaults); env {result['env'] or 'as built'}.",
        f"Load average before/after: {' / '.join(result['load_average_before_after'])}; times in ms.",
        "",
    ]
    for tag, found in runs_by_tag.items():
        lines += [table(f"{tag} (page cache: {found[0].page_cache})", found), ""]
        lines.append(f"{tag}: python -X importtime, the 12 largest cumulative (runtime loop and handler, no model):")
        lines += [f"  {ms:>7.0f}  {name}" for name, ms in result["images"][tag]["import_ms"][:12]]
        lines.append("")
    return "\n".join(lines)
