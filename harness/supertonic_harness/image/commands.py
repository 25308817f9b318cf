"""``supertonic-lambda image``: build the Lambda image, run it as Lambda would, replay events through it.

    supertonic-lambda image build                  # model/ if it holds a model, else the full stand-in
    supertonic-lambda image build --model tiny     # the tiny stand-in (noise, not speech): seconds to build
    supertonic-lambda image run                    # invoke it: curl -d '{"text":"Hi."}' localhost:9000/2015-03-31/functions/function/invocations
    supertonic-lambda image replay events/         # every event that needs no S3, against its .expect.json
    supertonic-lambda image lock                   # rewrite docker/*.lock from pyproject.toml
    supertonic-lambda image api                    # podman's Docker API for sam: export the DOCKER_HOST it prints
    supertonic-lambda image bench-cold --runs 5    # container start to the first audio byte, by phase

Builds with docker where a daemon runs, else podman (see ``engine``). Where the Dockerfile's base
image is neither here nor pullable, a stand-in for it is assembled from Debian's packages (see
``base``) and the build says so.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess  # runs the container engine with arguments built here  # nosec B404
import sys
import tempfile
import uuid
from pathlib import Path

from supertonic_engine.config import cache_dir

from ..function.limits import profile_argument, resolve_profile
from . import cold
from . import lock as locks
from .api import service_command, service_conf, service_environment
from .base import assemble_base, base_python, qualified
from .context import assemble_context
from .engine import ContainerEngine, find_engine
from .replay import is_job_route, problems, replay_through, wait_until_ready

DOCKERFILE = locks.REPO_ROOT / "Dockerfile"
DEFAULT_TAG = "supertonic-tts"
PULL_TIMEOUT_S = 120


def dockerfile_base(dockerfile: Path = DOCKERFILE) -> str:
    """The default of the Dockerfile's ``PYTHON_IMAGE`` argument: the base every stage is built on."""
    match = re.search(r"^ARG PYTHON_IMAGE=(\S+)", dockerfile.read_text(encoding="utf-8"), re.MULTILINE)
    if match is None:
        raise ValueError(f"{dockerfile} has no 'ARG PYTHON_IMAGE=<image>' line")
    return match[1]


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def ensure_base(engine: ContainerEngine, tag: str) -> str:
    """The base is here, pulled, or assembled as a stand-in; returns what it is, for the report."""
    if engine.image_exists(qualified(tag)):
        return base_python(engine, qualified(tag)) or f"{tag} (as pulled)"
    if engine.image_exists(tag):  # under another name the short one also finds (podman's localhost/, say)
        _say(f"using the image {tag} resolves to, not {qualified(tag)}: remove it to have the real or a new stand-in base")
        return base_python(engine, tag) or f"{tag} (found locally)"
    if engine.name == "docker":
        return f"{tag} (docker pulls it)"
    try:
        pulled = subprocess.run(
            [engine.program, "pull", "-q", tag], capture_output=True, timeout=PULL_TIMEOUT_S, check=False
        )  # the engine with arguments built here  # nosec B603
        if pulled.returncode == 0:
            return f"{tag} (pulled)"
    except subprocess.TimeoutExpired:
        pass
    _say(f"{tag} cannot be pulled here: assembling a stand-in for it from Debian's packages (mmdebstrap; a minute)")
    made = assemble_base(engine, tag)
    _say(f"stand-in base {tag}: {made.python}")
    return made.python


def _model_dir(choice: str | None) -> tuple[Path, str]:
    repo_model = locks.REPO_ROOT / "model"
    if choice is None:
        if (repo_model / "onnx" / "tts.json").is_file():
            return repo_model, f"{repo_model}"
        choice = "full"
    if choice in ("tiny", "full"):
        from supertonic_tools.standin import ensure_standin  # the [tools] extra: only when a stand-in is asked for

        return ensure_standin(choice), f"the {choice} stand-in (random weights: noise, not speech)"
    path = Path(choice).expanduser().resolve()
    return path, str(path)


def build(args: argparse.Namespace) -> int:
    engine = find_engine()
    for note in engine.notes:
        _say(note)
    base = ensure_base(engine, dockerfile_base())
    model_dir, model_said = _model_dir(args.model)
    build_args = {"PREPARE_INT8": "1" if args.int8 else "0", "PREPARE_GRAPHS": "0" if args.stock_graphs else "1"}
    with tempfile.TemporaryDirectory(prefix="supertonic-image-") as scratch:
        context = assemble_context(model_dir, Path(scratch) / "context")
        command = engine.build_command(context, DOCKERFILE, args.tag, build_args, engine.ca_volumes(dockerfile_base()))
        _say(f"building {args.tag} with {engine.name} from {model_said}; base: {base}")
        done = subprocess.run(command, check=False)  # the engine with arguments built here  # nosec B603
    if done.returncode != 0:
        _say(f"the build failed (above); the command was: {' '.join(command)}")
        return 1
    layers = engine.layer_sizes(args.tag)
    total = sum(size for _, size in layers)
    print(f"{args.tag}: {total / 1e6:,.0f} MB in {sum(1 for _, s in layers if s)} layers (base: {base})")
    for created_by, size in layers:
        if size:
            print(f"  {size / 1e6:>9,.1f} MB  {created_by[:110]}")
    return 0


def _run_args(args: argparse.Namespace, engine: ContainerEngine, **extra: object) -> list[str]:
    profile = resolve_profile(args.profile)
    env = {"SUPERTONIC_FUNCTION_URL_INVOKE_MODE": args.invoke_mode}
    return engine.run_command(args.tag, cpus=profile.cpus, memory_mb=profile.memory_mb, env=env, **extra)  # type: ignore[arg-type]


def run(args: argparse.Namespace) -> int:
    engine = find_engine()
    command = _run_args(args, engine, port=args.port)
    _say(f'invoke: curl -d \'{{"text": "Hello."}}\' http://127.0.0.1:{args.port}/2015-03-31/functions/function/invocations')
    return subprocess.run(command, check=False).returncode  # the engine with arguments built here  # nosec B603


def replay(args: argparse.Namespace) -> int:
    engine = find_engine()
    name = f"supertonic-replay-{uuid.uuid4().hex[:8]}"
    # Kept after it stops (removed below), so its log can be shown when something went wrong.
    command = _run_args(args, engine, port=args.port, name=name, detach=True, remove=False)
    started = subprocess.run(command, capture_output=True, text=True, check=False)  # the engine with arguments built here  # nosec B603
    if started.returncode != 0:
        _say(f"the container did not start: {started.stderr.strip()[-2000:]}")
        return 1
    failed = 0
    try:
        url = f"http://127.0.0.1:{args.port}"
        wait_until_ready(url)
        for event, answer in replay_through(url, args.events):
            if answer is None:
                print(f"  skip  {event.name}: needs S3 (supertonic-lambda replay runs it with a local S3)")
                continue
            found = problems(answer, event)
            failed += bool(found)
            verdict = "FAIL" if found else "ok"
            if not found and is_job_route(event):
                verdict = "ok*"  # 501 not_configured: the container has no input bucket
            print(f"  {verdict:<4}  {event.name}: {answer.status} {answer.content_type or ''} {answer.wall_ms:.0f} ms  {'; '.join(found)}")
        print("ok* = 501 not_configured, as expected of a container given no input bucket (jobs need S3)")
    except (OSError, TimeoutError) as exc:
        failed += 1
        _say(f"replay stopped: {exc}")
    finally:
        if failed:
            logs = subprocess.run(
                [engine.program, "logs", "--tail", "40", name], capture_output=True, text=True, check=False
            )  # the engine with arguments built here  # nosec B603
            _say(f"the container's last log lines:\n{(logs.stdout + logs.stderr).strip()}")
        subprocess.run([engine.program, "rm", "-f", name], capture_output=True, check=False)  # the engine with arguments built here  # nosec B603
    return 1 if failed else 0


def api(args: argparse.Namespace) -> int:
    """Serve podman's Docker-compatible API for sam, in the foreground, until interrupted."""
    engine = find_engine()
    if engine.name == "docker":
        print("docker's own daemon answers here: sam uses it as it is")
        return 0
    directory = Path(args.dir) if args.dir else cache_dir() / "podman-api"
    directory.mkdir(parents=True, exist_ok=True)
    base = dockerfile_base()
    ensure_base(engine, base)  # the CA goes over a file of the base's, found by running it
    conf = service_conf(engine, directory, engine.ca_volumes(base))
    socket = directory / "podman.sock"
    print(f"export DOCKER_HOST=unix://{socket}    # in the shell that runs sam (containers.conf: {conf})", flush=True)
    return subprocess.run(
        service_command(engine, socket), env=service_environment(conf), check=False
    ).returncode  # the engine with arguments built here  # nosec B603


def bench_cold(args: argparse.Namespace) -> int:
    engine = find_engine()
    profile = resolve_profile(args.profile)
    env = dict(item.split("=", 1) for item in args.env)
    tags = [args.tag, *args.versus]
    runs, result = cold.bench(
        engine, tags, cpus=profile.cpus, memory_mb=profile.memory_mb, runs=args.runs, env=env, drop_caches=args.drop_caches, say=_say
    )
    text = cold.text_report(result, runs)
    print(text)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        out.with_suffix(".txt").write_text(text + "\n", encoding="utf-8")
        _say(f"wrote {out.with_suffix('.json')} and {out.with_suffix('.txt')}")
    return 0


def lock(args: argparse.Namespace) -> int:
    for path in locks.write_locks(upgrade=args.upgrade):
        print(f"wrote {path}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "image", help="build the Lambda image, run it as Lambda would, replay events through it", description=__doc__
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    def with_tag(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--tag", default=DEFAULT_TAG, help=f"image name (default {DEFAULT_TAG})")
        return p

    def with_profile(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--profile", default="lambda-2048", type=profile_argument, help="CPU and memory: lambda-<MB> (default lambda-2048) or 2vcpu-2gb"
        )

    def with_limits(p: argparse.ArgumentParser) -> None:
        with_profile(p)
        p.add_argument("--port", type=int, default=9000, help="host port for the emulator's invoke endpoint (default 9000)")
        p.add_argument(
            "--invoke-mode", default="BUFFERED", choices=["BUFFERED", "RESPONSE_STREAM"], help="the function URL's mode the image serves"
        )

    b = with_tag(actions.add_parser("build", help="build the image (the stand-in base where no base can be pulled)"))
    b.add_argument("--model", help="tiny | full (a stand-in: noise, not speech) | a model DIR; default: model/, else full")
    b.add_argument("--int8", action="store_true", help="also prepare the int8 graphs (SUPERTONIC_PRECISION=int8 selects them)")
    b.add_argument("--stock-graphs", action="store_true", help="ship the stock graphs instead of prepared ones")
    b.set_defaults(func=build)
    r = with_tag(actions.add_parser("run", help="run the image read-only, as an unknown uid, under Lambda's limits"))
    with_limits(r)
    r.set_defaults(func=run)
    p = with_tag(actions.add_parser("replay", help="replay events through the image's own emulator against their .expect.json"))
    p.add_argument("events", nargs="+", help="event files or directories")
    with_limits(p)
    p.set_defaults(func=replay)
    a = actions.add_parser("api", help="serve podman's Docker-compatible API for sam build / sam local (prints DOCKER_HOST)")
    a.add_argument("--dir", help="where the socket and its containers.conf go (default: the cache directory's podman-api/)")
    a.set_defaults(func=api)
    c = with_tag(
        actions.add_parser(
            "bench-cold",
            help="container start to the first audio byte, by phase: streaming, the Runtime API on the host",
            description=cold.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    )
    c.add_argument("--versus", action="append", default=[], metavar="TAG", help="another image, run interleaved with --tag")
    c.add_argument("--runs", type=int, default=5, help="cold starts of each image (default 5)")
    with_profile(c)
    c.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="set in the container (e.g. SUPERTONIC_WARM_UP=0)")
    c.add_argument("--drop-caches", action="store_true", help="drop the host's page cache before each run (root)")
    c.add_argument("--out", help="write OUT.json and OUT.txt (e.g. benchmarks/cold-first-audio-image)")
    c.set_defaults(func=bench_cold)
    lk = actions.add_parser("lock", help=f"rewrite {', '.join(str(x.path.relative_to(locks.REPO_ROOT)) for x in locks.LOCKS)}")
    lk.add_argument("--upgrade", action="store_true", help="take the newest versions the lists allow (default: keep pins that still fit)")
    lk.set_defaults(func=lock)
