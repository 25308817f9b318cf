"""What both ``emulate`` and ``replay`` set up: the function's spec, its model, its S3, its limits.

The command-line options they share are defined here once (``add_function_arguments``), and
``LocalFunction`` turns them into running sandboxes: the template's buckets in moto's S3, its
queues in moto's SQS with their event source mappings, the template's environment, the chosen
model, RIE inside the profile's limits (``--concurrency N``: N sandboxes, each in limits of its own).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supertonic_engine.config import ENV_MODEL_DIR
from supertonic_engine.prepared import has_prepared

from ..function.limits import MODES, Limits, Profile, open_limits, profile_argument, resolve_profile
from ..function.rie import BUFFERED, DEFAULT_HANDLER, INVOKE_MODES, REPO_ROOT, FunctionSpec
from ..function.sandbox import Sandbox
from ..function.template import DEFAULT_TEMPLATE, QueueConfig, S3Trigger, SqsTrigger, Template
from .faults import FaultProxy, FaultSchedule
from .s3 import LocalS3
from .sqs import Batch, LocalSqs, SqsEventSourceMapping, sqs_environment

STANDIN_SIZES = ("tiny", "full")
DEFAULT_TIMEOUT_S = 60


def add_function_arguments(parser: argparse.ArgumentParser) -> None:
    """Options for the function, its model and its limits (shared by every command that runs it)."""
    group = parser.add_argument_group("function and limits")
    group.add_argument(
        "--profile",
        default="2vcpu-2gb",
        type=profile_argument,
        help="CPU and memory profile: 2vcpu-2gb (default), lambda-<MB> (Lambda's CPU share at that memory size, e.g. lambda-2048), custom",
    )
    group.add_argument("--cpus", type=float, help="custom vCPU share, fractional allowed (overrides the profile)")
    group.add_argument("--memory-mb", type=int, help="custom memory size in MB (overrides the profile)")
    group.add_argument("--limit-mode", default="auto", choices=MODES, help="auto: cgroups where writable, else affinity + RSS sampling")
    group.add_argument(
        "--model",
        help=f"tiny | full (a generated stand-in: noise, not speech) | a model DIR; default: ${ENV_MODEL_DIR}, else the tiny stand-in",
    )
    group.add_argument("--handler", default=DEFAULT_HANDLER, help=f"module.function (default: {DEFAULT_HANDLER})")
    group.add_argument(
        "--task-root", type=Path, default=REPO_ROOT / "handler", help="directory the handler is imported from (Lambda's /var/task)"
    )
    group.add_argument(
        "--template", type=Path, default=DEFAULT_TEMPLATE, help="SAM template for buckets, environment and timeout (skipped if missing)"
    )
    group.add_argument("--timeout", type=int, help=f"function timeout in s (default: the template's, else {DEFAULT_TIMEOUT_S})")
    group.add_argument(
        "--invoke-mode",
        choices=INVOKE_MODES,
        help="the function URL's invoke mode (default: the template's, else BUFFERED); "
        "RESPONSE_STREAM runs the function's own streaming runtime loop and relays its answer as it is made",
    )
    group.add_argument("--no-s3", action="store_true", help="do not start the local S3 (moto) server")
    group.add_argument(
        "--concurrency",
        type=_positive_int,
        default=1,
        metavar="N",
        help="run N sandboxes, each in the profile's limits; the template's SQS event source "
        "mappings send batches to free ones, at most their MaximumConcurrency (default 1)",
    )


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def profile_from_args(args: argparse.Namespace) -> Profile:
    return resolve_profile(args.profile, cpus=args.cpus, memory_mb=args.memory_mb)


def resolve_model(choice: str | None) -> tuple[Path | None, str]:
    """(model directory, kind) for ``--model``: a stand-in size, a directory, or None for the default."""
    if choice is None:
        explicit = os.environ.get(ENV_MODEL_DIR)
        if explicit:
            return Path(explicit), "directory"
        choice = "tiny"  # the function has no model of its own (the runtime never makes a stand-in)
    if choice in STANDIN_SIZES:
        from supertonic_tools.prepare import ensure_prepared  # needs onnx: imported only here
        from supertonic_tools.standin import ensure_standin

        # With the prepared graphs the image build adds, so memory and speed are the image's.
        model_dir = ensure_standin(choice)
        ensure_prepared(model_dir)
        return model_dir, f"stand-in ({choice})"
    path = Path(choice).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"--model {choice}: not tiny, full, or an existing model directory")
    return path.resolve(), "directory"


@dataclass
class LocalFunction:
    """A running local function: sandbox, limits, S3 and what they were made from."""

    sandbox: Sandbox
    limits: Limits
    s3: LocalS3 | None
    triggers: list[S3Trigger]
    model_dir: Path | None
    model_kind: str
    notes: list[str]
    _stack: ExitStack
    faults: FaultProxy | None = None  # between the function and S3, when a fault schedule was given
    sandboxes: list[Sandbox] = field(default_factory=list)  # all of them, ``sandbox`` first
    sqs: LocalSqs | None = None
    mappings: list[SqsEventSourceMapping] = field(default_factory=list)

    def drain(self, timeout_s: float | None = None) -> bool:
        """Wait until every SQS mapping's queue is empty and no batch runs (True), or ``timeout_s`` passed."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        for mapping in self.mappings:
            left = 365 * 86400.0 if deadline is None else max(0.0, deadline - time.monotonic())
            if not mapping.drain(left):
                return False
        return True

    def describe(self) -> dict[str, Any]:
        function = self.sandbox.function
        return {
            "handler": function.handler,
            "task_root": str(function.task_root),
            "timeout_s": function.timeout_s,
            "memory_mb": function.memory_mb,
            "invoke_mode": function.invoke_mode,
            "rie": str(self.sandbox.rie.binary),
            "s3_endpoint": self.s3.endpoint_url if self.s3 else None,
            "s3_faults": self.faults.schedule.describe() if self.faults else None,
            "concurrency": len(self.sandboxes) or 1,
            "sqs_mappings": [
                {
                    "queue": m.queue_name,
                    "batch_size": m.trigger.batch_size,
                    "sandboxes": len(m.sandboxes),
                    "report_batch_item_failures": m.trigger.report_batch_item_failures,
                }
                for m in self.mappings
            ],
            "notes": self.notes,
        }

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> LocalFunction:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def start_local_function(
    args: argparse.Namespace,
    *,
    rie_port: int | None = None,
    echo: Callable[[str], None] | None = None,
    need_s3: bool = False,
    faults: FaultSchedule | None = None,
    environment_overrides: Mapping[str, str] | None = None,
    on_batch: Callable[[Batch], None] | None = None,
) -> LocalFunction:
    """Start everything ``args`` (from ``add_function_arguments``) describes; close() undoes it all.
    With ``faults``, the function reaches S3 through a ``FaultProxy`` that injects them;
    ``environment_overrides`` win over the template's variables (a test's smaller limits, say);
    ``on_batch`` hears of every batch the template's SQS mappings deliver."""
    notes: list[str] = []
    environment: dict[str, str] = {}
    timeout_s = args.timeout
    triggers: list[S3Trigger] = []
    buckets: list[str] = []
    queues: list[QueueConfig] = []
    sqs_triggers: list[SqsTrigger] = []
    invoke_mode = getattr(args, "invoke_mode", None)
    if args.template and Path(args.template).is_file():
        template = Template.load(args.template)
        config = template.function()
        environment.update(config.environment)
        timeout_s = timeout_s or config.timeout_s
        triggers = config.s3_triggers
        buckets = list(template.buckets().values())
        queues = list(template.queues().values())
        sqs_triggers = [trigger for trigger in config.sqs_triggers if trigger.enabled]
        invoke_mode = invoke_mode or config.invoke_mode
        notes += [f"template: could not resolve {what}" for what in template.unresolved]
    elif args.template:
        notes.append(f"template {args.template} not found: no buckets or environment from it")
    model_dir, model_kind = resolve_model(args.model)
    if model_dir is not None:
        environment[ENV_MODEL_DIR] = str(model_dir)
        if not has_prepared(model_dir):
            notes.append(
                f"{model_dir} has no prepared graphs matching it: the function loads the stock graphs "
                f"(more memory, slower) where the image would not; `supertonic-lambda prepare-model --model {model_dir}`"
            )

    stack = ExitStack()
    try:
        s3 = proxy = None
        sqs = None
        if not args.no_s3 and (buckets or queues or need_s3 or faults is not None):
            s3 = stack.enter_context(LocalS3())
            s3.create_buckets(buckets)
            if faults is not None:
                proxy = stack.enter_context(FaultProxy(s3.endpoint_url, faults))
            environment.update(s3.function_environment(via=proxy.url if proxy else None))
            # SQS is served by the same moto server; the queues exist before the function starts.
            sqs = LocalSqs(s3.endpoint_url, s3.region)
            sqs.create_queues(queues)
            environment.update(sqs_environment(s3.endpoint_url))
        elif sqs_triggers:
            notes.append("--no-s3: the template's SQS event source mappings are not run (moto serves SQS too)")
        environment.update(environment_overrides or {})
        function = FunctionSpec(
            handler=args.handler,
            task_root=Path(args.task_root).resolve(),
            timeout_s=timeout_s or DEFAULT_TIMEOUT_S,
            environment=environment,
            invoke_mode=invoke_mode or BUFFERED,
        )
        profile = profile_from_args(args)
        limits = stack.enter_context(open_limits(profile, args.limit_mode))
        if model_dir is not None and limits.mode.startswith("cgroup"):
            advised = evict_from_page_cache(model_dir)
            notes.append(
                f"asked the kernel to drop the model's {advised / 2**20:.0f} MB of files from the page cache: "
                "the function's cgroup is charged for reading them, as a new Lambda container reads its image"
            )
        sandbox = stack.enter_context(Sandbox(function, limits, rie_port=rie_port, echo=echo))
        sandboxes = [sandbox]
        for slot in range(1, getattr(args, "concurrency", 1)):
            # Each execution environment in limits of its own, as Lambda gives every one its memory and CPU.
            own = stack.enter_context(open_limits(profile, args.limit_mode, slot))
            sandboxes.append(stack.enter_context(Sandbox(function, own, echo=echo)))
        mappings = []
        if sqs is not None:
            made = {queue.arn for queue in queues}
            for trigger in sqs_triggers:
                if trigger.queue_arn not in made:
                    notes.append(f"SQS event source on {trigger.queue_arn}: not a queue of the template, not polled")
                    continue
                # Entered last, so closing stops the pollers before the sandboxes they invoke.
                mappings.append(stack.enter_context(SqsEventSourceMapping(sqs, trigger, sandboxes, on_batch=on_batch)))
        if len(sandboxes) > 1 and not mappings:
            notes.append(
                f"--concurrency {len(sandboxes)}: the template has no SQS event source mapping to use the sandboxes past the first"
            )
    except BaseException:
        stack.close()
        raise
    return LocalFunction(
        sandbox, limits, s3, triggers, model_dir, model_kind, notes, stack, proxy, sandboxes=sandboxes, sqs=sqs, mappings=mappings
    )


def evict_from_page_cache(directory: Path) -> int:
    """Advise the kernel to drop ``directory``'s cached file pages; returns the bytes advised.

    A cgroup is charged for the page cache its own processes bring in, not for pages an earlier
    process already cached. Without this, weights cached by a previous run (or by generating the
    model) would be missing from the function's cgroup peak. Pages still dirty (a model just
    written) are flushed first, since only clean ones can be dropped; tmpfs pages and pages another
    process maps stay, which is why this is advice.
    """
    advised = 0
    for path in directory.rglob("*"):
        if not path.is_file():
            continue
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            advised += os.fstat(fd).st_size
        finally:
            os.close(fd)
    return advised
