"""The official AWS Lambda Runtime Interface Emulator (RIE): find it, run a function under it, read its log.

RIE is the Go binary that ``sam local`` and the AWS base images use. It serves the Invoke API on one
address and the Runtime API on another, and starts the function's command (``python -m awslambdaric
<handler>``, or the function's own streaming loop ``python -m supertonic_function.runtime <handler>``
when its function URL is in ``RESPONSE_STREAM`` mode) lazily on the first invoke, exactly as Lambda does. Its log is the only place that says
what happened to an invocation (init, timeout, reset), so every log line is kept here and read by
``rie_log``. Measured behaviour this module relies on (aws-sam-cli 1.170.0's binary): without both
``--runtime-interface-emulator-address`` and ``--runtime-api-address`` it binds 0.0.0.0:8080 and
127.0.0.1:9001, and ``--help`` starts serving instead of printing help.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from supertonic_function.config import ENV_INVOKE_MODE, INVOKE_MODES

from .measure import descendants
from .rie_log import RieReport, parse_invocation_log
from .runtime_proxy import INIT_ALLOWANCE_S, RuntimeApiProxy, StreamRelay

ENV_RIE = "SUPERTONIC_RIE"
INVOKE_PATH = "/2015-03-31/functions/function/invocations"
LOOPBACK = "127.0.0.1"
# The repository root: harness/supertonic_harness/function/rie.py -> four levels up.
REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_HANDLER = "supertonic_function.app.lambda_handler"
# A function URL's InvokeMode; the function reads which one it is served in from this variable.
BUFFERED, RESPONSE_STREAM = INVOKE_MODES  # the function's own names for the URL's modes
# awslambdaric (4.2.2) cannot stream a response; the function's own runtime loop can.
STREAMING_RUNTIME_MODULE = "supertonic_function.runtime"


class UnknownInvokeMode(ValueError):
    """An invoke mode a function URL does not have."""


class RieNotFound(RuntimeError):
    """The emulator binary is missing; the message says how to install it."""


def find_rie(env: Mapping[str, str] | None = None) -> Path:
    """The RIE binary: ``$SUPERTONIC_RIE``, else ``.tools/aws-lambda-rie`` in the repository."""
    env = os.environ if env is None else env
    candidates = [Path(env[ENV_RIE])] if env.get(ENV_RIE) else []
    candidates.append(REPO_ROOT / ".tools" / "aws-lambda-rie")
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise RieNotFound(
        f"the AWS Lambda Runtime Interface Emulator was not found (looked at {tried}). "
        "Run any command through ./dev once (for example `./dev true`): it extracts the binary "
        f"from the aws-sam-cli wheel into .tools/, or point {ENV_RIE} at an aws-lambda-rie binary."
    )


def free_port() -> int:
    """A TCP port on the loopback address that nothing listens on right now."""
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class FunctionSpec:
    """What Lambda knows about a function: its command, its configuration and its environment."""

    handler: str = DEFAULT_HANDLER
    # Directory the handler module is imported from (Lambda's /var/task): cwd and first on PYTHONPATH.
    task_root: Path = REPO_ROOT / "handler"
    extra_paths: tuple[Path, ...] = (REPO_ROOT / "layer",)
    name: str = "supertonic"
    memory_mb: int = 2048
    timeout_s: int = 60
    region: str = "us-east-1"
    environment: Mapping[str, str] = field(default_factory=dict)
    invoke_mode: str = BUFFERED  # the function URL's: RESPONSE_STREAM runs the streaming runtime loop

    def __post_init__(self) -> None:
        if self.invoke_mode not in INVOKE_MODES:
            raise UnknownInvokeMode(f"invoke mode {self.invoke_mode!r}: a function URL has {' or '.join(INVOKE_MODES)}")

    @property
    def streams(self) -> bool:
        return self.invoke_mode == RESPONSE_STREAM

    def command(self) -> list[str]:
        runtime = STREAMING_RUNTIME_MODULE if self.streams else "awslambdaric"
        return [sys.executable, "-m", runtime, self.handler]

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment RIE starts with; RIE passes it on to the runtime and adds its own keys."""
        env = dict(os.environ if base is None else base)
        paths = [str(self.task_root), *(str(p) for p in self.extra_paths)]
        if env.get("PYTHONPATH"):
            paths.append(env["PYTHONPATH"])
        env.update(
            {
                "PYTHONPATH": os.pathsep.join(paths),
                "PYTHONUNBUFFERED": "1",
                "LAMBDA_TASK_ROOT": str(self.task_root),
                "AWS_LAMBDA_FUNCTION_NAME": self.name,
                "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(self.memory_mb),
                "AWS_LAMBDA_FUNCTION_TIMEOUT": str(self.timeout_s),
                "AWS_REGION": self.region,
                "AWS_DEFAULT_REGION": self.region,
            }
        )
        env.update(self.environment)
        # The timeout RIE enforces; template.yaml passes its own Timeout by this name (Lambda does
        # not tell the function), which must not say otherwise when --timeout is given.
        env["AWS_LAMBDA_FUNCTION_TIMEOUT"] = str(self.timeout_s)
        env[ENV_INVOKE_MODE] = self.invoke_mode  # likewise for --invoke-mode over the template's
        return env


class LogFollower:
    """Reads RIE's output (its own log and the function's) on a thread, keeps it, and echoes it."""

    def __init__(self, stream: IO[bytes], echo: Callable[[str], None] | None = None) -> None:
        self._stream = stream
        self._echo = echo
        self._lines: list[str] = []
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="rie-log", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for raw in iter(self._stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            with self._changed:
                self._lines.append(line)
                self._changed.notify_all()
            if self._echo is not None:
                self._echo(line)

    def mark(self) -> int:
        """A position in the log; lines after it belong to what happens next."""
        with self._changed:
            return len(self._lines)

    def since(self, mark: int) -> list[str]:
        with self._changed:
            return self._lines[mark:]

    def wait_for(self, mark: int, done: Callable[[list[str]], bool], timeout_s: float) -> list[str]:
        """The lines after ``mark`` once ``done(lines)`` holds, or whatever arrived by the timeout."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while not done(self._lines[mark:]):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._changed.wait(remaining)
            return self._lines[mark:]

    def join(self, timeout_s: float = 2.0) -> None:
        self._thread.join(timeout_s)


@dataclass
class RawInvocation:
    """One request through RIE's Invoke API: what came back and what the log said about it."""

    status: int
    body: bytes
    wall_ms: float
    log: RieReport
    # The harness ended the runtime at the function's timeout, counted from the hand-over (as on Lambda).
    timed_out: bool = False


class Rie:
    """A running RIE serving one function on loopback; ``invoke`` sends one event at a time.

    ``spawn`` starts the process (the resource limits pass their own, which joins a cgroup or pins
    CPUs); the default is a plain ``subprocess.Popen``. The runtime reaches RIE through a
    ``RuntimeApiProxy``, so its timeout starts after the init, as on Lambda (see that module).
    """

    def __init__(
        self,
        function: FunctionSpec,
        *,
        port: int | None = None,
        binary: Path | None = None,
        spawn: Callable[..., subprocess.Popen] = subprocess.Popen,
        echo: Callable[[str], None] | None = None,
        ready_timeout_s: float = 10.0,
    ) -> None:
        self.function = function
        self.binary = binary or find_rie()
        self.port = port or free_port()
        self.runtime_api_port = free_port()
        self.proxy = RuntimeApiProxy(f"{LOOPBACK}:{self.runtime_api_port}", function.timeout_s, self._kill_runtime)
        # RIE sets AWS_LAMBDA_RUNTIME_API for its child; ``env`` points the runtime at the proxy
        # instead and gives it the function's own timeout, while RIE waits out the init allowance.
        runtime = [
            "env",
            f"AWS_LAMBDA_RUNTIME_API={self.proxy.address}",
            f"AWS_LAMBDA_FUNCTION_TIMEOUT={function.timeout_s}",
            *function.command(),
        ]
        argv = [
            str(self.binary),
            "--runtime-interface-emulator-address",
            f"{LOOPBACK}:{self.port}",
            "--runtime-api-address",
            f"{LOOPBACK}:{self.runtime_api_port}",
            *runtime,
        ]
        rie_env = function.env()
        rie_env["AWS_LAMBDA_FUNCTION_TIMEOUT"] = str(function.timeout_s + int(INIT_ALLOWANCE_S))
        self.process = spawn(
            argv,
            cwd=function.task_root,
            env=rie_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        if self.process.stdout is None:  # only without stdout=PIPE, which is right above
            raise RuntimeError("RIE was started without a pipe for its output")
        self.log = LogFollower(self.process.stdout, echo)
        self._lock = threading.Lock()
        try:
            self._wait_ready(ready_timeout_s)
        except BaseException:
            self.stop()
            raise

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}{INVOKE_PATH}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"RIE exited with status {self.process.returncode} before serving:\n" + "\n".join(self.log.since(0)[-20:])
                )
            try:
                with socket.create_connection((LOOPBACK, self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"RIE did not listen on {LOOPBACK}:{self.port} within {timeout_s:.0f} s")

    def invoke(self, payload: bytes, *, before_send: Callable[[], None] | None = None, relay: StreamRelay | None = None) -> RawInvocation:
        """Send one event and wait for the answer and for RIE's last log line about it. A response
        the runtime streams goes to ``relay`` as it is written, and ``relay`` is closed on return."""
        try:
            with self._lock:
                self.proxy.expect_stream(relay)
                try:
                    return self._invoke(payload, before_send, relay)
                finally:
                    self.proxy.expect_stream(None)
        finally:
            if relay is not None:
                relay.close()

    def _invoke(self, payload: bytes, before_send: Callable[[], None] | None, relay: StreamRelay | None) -> RawInvocation:
        if before_send is not None:
            before_send()
        mark = self.log.mark()
        request = urllib.request.Request(self.url, data=payload, method="POST")
        started = time.perf_counter()
        if relay is not None:
            relay.sent_at = started
        # The function timeout bounds the invoke; the margin covers the init allowance and a spawn.
        http_timeout = self.function.timeout_s + INIT_ALLOWANCE_S + 30
        try:
            with urllib.request.urlopen(request, timeout=http_timeout) as response:  # http to RIE on loopback  # nosec B310
                status, body = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read()
        wall_ms = (time.perf_counter() - started) * 1000
        # RIE answers before it logs END/REPORT; give the log a moment to catch up.
        lines = self.log.wait_for(mark, lambda ls: parse_invocation_log(ls).complete, 5.0)
        log = parse_invocation_log(lines)
        if self.proxy.timed_out(log.request_id):
            # What Lambda answers and bills for a timeout; RIE saw only a killed runtime.
            timeout_ms = self.function.timeout_s * 1000.0
            body = f"Task timed out after {self.function.timeout_s:.2f} seconds".encode()
            log.duration_ms = timeout_ms
            log.billed_ms = int(timeout_ms) + (int(log.init_ms or 0) if log.cold_start else 0)
            return RawInvocation(200, body, wall_ms, log, timed_out=True)
        return RawInvocation(status, body, wall_ms, log)

    def _kill_runtime(self) -> None:
        for pid in self.runtime_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def runtime_pids(self) -> list[int]:
        """The function's processes: everything RIE started (RIE itself is Lambda's, not the function's)."""
        return descendants(self.pid)

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop RIE; it kills the runtime on SIGTERM ("Sending SIGKILL to runtime")."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout_s)
        self.proxy.close()
        self.log.join()
        if self.process.stdout is not None:
            self.process.stdout.close()

    def __enter__(self) -> Rie:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
