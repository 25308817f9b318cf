"""The Dockerfile, read as instructions: base image, layer order, user, entry point, ignore file.

No container engine is needed (or available in CI): the checks are structural, on what the
image would be built from.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# glibc of the Debian releases the python images are built on; onnxruntime >= 1.17 needs >= 2.28.
DEBIAN_GLIBC = {"buster": (2, 28), "bullseye": (2, 31), "bookworm": (2, 36), "trixie": (2, 41)}


@dataclass(frozen=True)
class Instruction:
    keyword: str
    arguments: str


def instructions(text: str) -> list[Instruction]:
    """Dockerfile instructions with continuations joined and comments dropped."""
    logical, pending = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        logical.append(pending + stripped)
        pending = ""
    return [Instruction(*(line.split(None, 1) + [""])[:2]) for line in logical]


@pytest.fixture(scope="module")
def stages() -> list[list[Instruction]]:
    """Instructions grouped by stage; the last stage is the image."""
    groups: list[list[Instruction]] = [[]]
    for instruction in instructions((REPO / "Dockerfile").read_text()):
        if instruction.keyword.upper() == "FROM":
            groups.append([])
        groups[-1].append(instruction)
    return groups


def _named(stages: list[list[Instruction]]) -> dict[str, list[Instruction]]:
    return {s[0].arguments.split()[-1]: s for s in stages if s and " AS " in s[0].arguments.upper()}


def _with_bases(stage: list[Instruction], stages: list[list[Instruction]]) -> list[Instruction]:
    """A stage's instructions after those of the stages it is built FROM, as the image holds them."""
    base = stage[0].arguments.split()[0]
    named = _named(stages)
    return _with_bases(named[base], stages) + stage if base in named else stage


@pytest.fixture(scope="module")
def image(stages: list[list[Instruction]]) -> list[Instruction]:
    return _with_bases(stages[-1], stages)


def _args(stages: list[list[Instruction]]) -> dict[str, str]:
    return dict(i.arguments.split("=", 1) for i in stages[0] if i.keyword.upper() == "ARG" and "=" in i.arguments)


def _index(image: list[Instruction], keyword: str, pattern: str) -> int:
    for number, instruction in enumerate(image):
        if instruction.keyword.upper() == keyword and re.search(pattern, instruction.arguments):
            return number
    raise AssertionError(f"no {keyword} matching {pattern!r} in the final stage")


def test_base_image_is_python_312_with_glibc_228(stages: list[list[Instruction]], image: list[Instruction]) -> None:
    base = image[0].arguments.split()[0]
    base = re.sub(r"\$\{(\w+)\}", lambda m: _args(stages)[m[1]], base)
    name, _, tag = base.partition(":")
    assert name == "python" and tag.startswith("3.12-")
    codename = next(c for c in DEBIAN_GLIBC if c in tag)
    assert DEBIAN_GLIBC[codename] >= (2, 28)


def test_layers_go_deps_model_engine_handler(image: list[Instruction]) -> None:
    deps = _index(image, "RUN", r"pip install")
    model = _index(image, "COPY", r"/opt/model")
    engine = _index(image, "COPY", r"^layer/ /opt/python/")
    edge = _index(image, "COPY", r"^handler/supertonic_function/ /var/task/supertonic_function/")
    assert deps < model < engine < edge
    # Nothing after the handler changes the image's contents except compiling it.
    later = [i for i in image[edge + 1 :] if i.keyword.upper() in ("RUN", "COPY", "ADD")]
    assert all("compileall" in i.arguments for i in later)


def test_code_is_precompiled_for_a_read_only_filesystem(image: list[Instruction]) -> None:
    compiled = [i.arguments for i in image if i.keyword.upper() == "RUN" and "compileall" in i.arguments]
    assert any("/opt/python" in c for c in compiled) and any("/var/task" in c for c in compiled)
    env = " ".join(i.arguments for i in image if i.keyword.upper() == "ENV")
    assert "PYTHONDONTWRITEBYTECODE=1" in env and "TMPDIR=/tmp" in env and "HOME=/tmp" in env
    assert "PYTHONPATH=/opt/python:/var/task" in env and "SUPERTONIC_MODEL_DIR=/opt/model" in env


def test_the_standard_library_is_precompiled_before_the_dependencies(image: list[Instruction]) -> None:
    # The python images delete every .pyc of the standard library (docker-library/python's Dockerfile:
    # find /usr/local ... -name '*.pyc' ... -exec rm -rf): on a read-only filesystem with
    # PYTHONDONTWRITEBYTECODE=1 every cold start would compile each module it imports from source again.
    stdlib = _index(image, "RUN", r"compileall .*sysconfig.*stdlib")
    assert "unchecked-hash" in image[stdlib].arguments
    assert stdlib < _index(image, "RUN", r"pip install")  # an edit to the dependencies does not compile it again


def test_runs_as_a_non_root_user(image: list[Instruction]) -> None:
    users = [i.arguments.strip() for i in image if i.keyword.upper() == "USER"]
    assert users and users[-1] not in ("root", "0") and not users[-1].startswith("0:")


def test_entry_point_is_the_script_and_cmd_the_handler(image: list[Instruction]) -> None:
    (entrypoint,) = [i.arguments for i in image if i.keyword.upper() == "ENTRYPOINT"]
    (cmd,) = [i.arguments for i in image if i.keyword.upper() == "CMD"]
    script_path = ast.literal_eval(entrypoint)[0]
    assert script_path.startswith("/")  # Lambda needs an absolute entry point
    copy = _index(image, "COPY", re.escape(f"docker/entry.sh {script_path}"))
    assert "--chmod=755" in image[copy].arguments
    module, _, function = ast.literal_eval(cmd)[0].rpartition(".")
    source = (REPO / "handler" / Path(*module.split("."))).with_suffix(".py")
    defined = {node.name for node in ast.parse(source.read_text()).body if isinstance(node, ast.FunctionDef)}
    assert function in defined


@pytest.mark.parametrize(
    ("environment", "command"),
    [
        ({}, ["aws-lambda-rie", "python", "-m", "awslambdaric", "app.handler"]),
        ({"AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001"}, ["python", "-m", "awslambdaric", "app.handler"]),
        ({"SUPERTONIC_FUNCTION_URL_INVOKE_MODE": "BUFFERED"}, ["aws-lambda-rie", "python", "-m", "awslambdaric", "app.handler"]),
        (
            {"SUPERTONIC_FUNCTION_URL_INVOKE_MODE": "RESPONSE_STREAM"},
            ["aws-lambda-rie", "python", "-m", "supertonic_function.runtime", "app.handler"],
        ),
        (
            {"SUPERTONIC_FUNCTION_URL_INVOKE_MODE": "RESPONSE_STREAM", "AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001"},
            ["python", "-m", "supertonic_function.runtime", "app.handler"],
        ),
    ],
)
def test_entry_script_picks_the_emulator_or_the_runtime_api_and_the_runtime_client(
    tmp_path: Path, environment: dict[str, str], command: list[str]
) -> None:
    """The script run with its two programs replaced by ones that print how they were called."""
    script = REPO / "docker" / "entry.sh"
    text = script.read_text()
    assert text.startswith("#!/bin/sh") and os.access(script, os.X_OK)
    for program in ("aws-lambda-rie", "python"):
        stub = tmp_path / program
        # The emulator runs its arguments as the runtime's command, as RIE does; python prints its own.
        body = 'printf "%s " aws-lambda-rie; exec "$@"' if program == "aws-lambda-rie" else 'printf "%s " python "$@"'
        stub.write_text(f"#!/bin/sh\n{body}\n")
        stub.chmod(0o755)
    (tmp_path / "entry.sh").write_text(text.replace("/usr/local/bin/", f"{tmp_path}/"))
    env = {"PATH": os.environ["PATH"], **environment}
    ran = subprocess.run(["sh", str(tmp_path / "entry.sh"), "app.handler"], env=env, capture_output=True, text=True, check=True)
    assert ran.stdout.split() == command


def test_graphs_are_prepared_by_the_runtime_that_loads_them(stages: list[list[Instruction]], image: list[Instruction]) -> None:
    named = _named(stages)
    prepared, runtime = named["prepared"], named["runtime"]
    # Built on the image's own dependency stage: the same ONNX Runtime writes and reads them.
    assert prepared[0].arguments.split()[0] == "runtime" and stages[-1][0].arguments.split()[0] == "runtime"
    assert any(i.keyword.upper() == "RUN" and "pip install" in i.arguments for i in runtime)
    run = " ".join(i.arguments for i in prepared if i.keyword.upper() == "RUN")
    # onnx, from the [prepare] extra, pinned with its hashes like the runtime's packages.
    assert "pip install --no-deps --require-hashes --requirement /opt/build-tools.lock" in run
    assert "python -m supertonic_tools.optimize /opt/model --out /opt/prepared" in run
    model = _index(image, "COPY", r"^--from=prepared /opt/shipped-model /opt/model$")
    copied = _index(image, "COPY", r"^--from=prepared /opt/prepared /opt/model/prepared$")
    assert model < copied < _index(image, "COPY", r"^layer/ /opt/python/")


def test_int8_graphs_are_opt_in_and_made_for_any_x86_host(stages: list[list[Instruction]], image: list[Instruction]) -> None:
    prepared = _named(stages)["prepared"]
    args = {i.arguments.split("=")[0]: i.arguments.split("=", 1)[1] for i in prepared if i.keyword.upper() == "ARG" and "=" in i.arguments}
    assert args["PREPARE_INT8"] == "0" and args["INT8_ISA"] == "avx2"  # 7-bit weights: no saturation without VNNI
    run = " ".join(i.arguments for i in prepared if i.keyword.upper() == "RUN")
    assert '--out /opt/prepared-int8 --precision int8 --isa "$INT8_ISA"' in run
    copied = _index(image, "COPY", r"^--from=prepared /opt/prepared-int8 /opt/model/prepared-int8$")
    assert copied < _index(image, "COPY", r"^layer/ /opt/python/")


def test_the_image_holds_the_runtime_engine_and_the_handler_but_no_build_tools(
    stages: list[list[Instruction]], image: list[Instruction]
) -> None:
    """The optimizer runs in the `prepared` stage; of it, only the graphs it wrote reach the image."""
    named = _named(stages)
    from_context, from_stages = [], []
    for instruction in image:
        if instruction.keyword.upper() not in ("COPY", "ADD"):
            continue
        words = shlex.split(instruction.arguments)
        stage = next((w.split("=", 1)[1] for w in words if w.startswith("--from=")), None)
        sources = [w for w in words if not w.startswith("--")][:-1]
        (from_stages if stage else from_context).extend((stage, s) for s in sources)
    context = {s for _, s in from_context if not s.startswith("https://")}
    assert context == {"docker/entry.sh", "docker/requirements.lock", "layer/", "handler/supertonic_function/"}
    assert set(from_stages) == {
        ("emulator", "/aws-lambda-rie"),
        ("prepared", "/opt/shipped-model"),
        ("prepared", "/opt/prepared"),
        ("prepared", "/opt/prepared-int8"),
    }
    assert not (REPO / "layer" / "supertonic_tools").exists() and not list((REPO / "layer").glob("*/optimize"))
    # The tools are copied where only the `prepared` stage's own PYTHONPATH finds them.
    prepared = named["prepared"]
    assert any(
        i.keyword.upper() == "COPY" and i.arguments == "tools/supertonic_tools/ /opt/build-tools/supertonic_tools/" for i in prepared
    )
    image_env = " ".join(i.arguments for i in image if i.keyword.upper() == "ENV")
    assert "build-tools" not in image_env and "tools/" not in " ".join(i.arguments for i in image)


def test_model_stage_checks_and_fixes_the_model(stages: list[list[Instruction]]) -> None:
    (model,) = [s for s in stages if s and s[0].arguments.endswith("AS model")]
    run = " ".join(i.arguments for i in model if i.keyword.upper() == "RUN")
    assert "onnx/tts.json" in run and "chmod -R a+rX" in run


def test_graphs_prepared_on_the_build_host_never_reach_the_image(stages: list[list[Instruction]], tmp_path: Path) -> None:
    """Neither set a host made (fp32 or int8) passes the ignore file or survives the model stage:
    the image ships no stock graph to check such a set against, so it must make its own."""
    lines = [line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()]
    assert "model/prepared*" in lines and "model/.prepared*" in lines
    (model,) = [s for s in stages if s and s[0].arguments.endswith("AS model")]
    run = " ".join(i.arguments for i in model if i.keyword.upper() == "RUN")
    opt = tmp_path / "opt"
    for name in ("onnx/tts.json", "prepared/manifest.json", "prepared-int8/manifest.json", "voice_styles/F1.json"):
        (opt / "model" / name).parent.mkdir(parents=True, exist_ok=True)
        (opt / "model" / name).write_text("{}")
    subprocess.run(["sh", "-c", run.replace("/opt/", f"{opt}/")], check=True)
    assert sorted(p.name for p in (opt / "model").iterdir()) == ["onnx", "voice_styles"]


def test_build_context_holds_only_what_the_image_needs() -> None:
    lines = [line.strip() for line in (REPO / ".dockerignore").read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert lines[0] == "*"
    assert {"!pyproject.toml", "!docker/", "!layer/", "!handler/supertonic_function/", "!model/"} <= set(lines)
    assert "**/__pycache__" in lines


@pytest.mark.parametrize(("prepare_graphs", "prepare_int8"), [("1", "0"), ("1", "1"), ("0", "0"), ("0", "1")])
def test_the_image_ships_one_copy_of_each_graph(
    stages: list[list[Instruction]], image: list[Instruction], tmp_path: Path, prepare_graphs: str, prepare_int8: str
) -> None:
    """The `prepared` stage's last RUN, run by sh on a model in a scratch /opt with the optimizer
    replaced by a stub that writes a set: what the final stage's COPY lines then take from it."""
    prepared = _named(stages)["prepared"]
    run = [i.arguments for i in prepared if i.keyword.upper() == "RUN" and "supertonic_tools.optimize" in i.arguments][-1]
    opt = tmp_path / "opt"
    for name in (
        "onnx/vocoder.onnx",
        "onnx/text_encoder.onnx",
        "onnx/tts.json",
        "onnx/unicode_indexer.json",
        "voice_styles/M1.json",
        "LICENSE",
    ):
        (opt / "model" / name).parent.mkdir(parents=True, exist_ok=True)
        (opt / "model" / name).write_text(name)
    stub = tmp_path / "bin" / "python"
    stub.parent.mkdir()
    stub.write_text('#!/bin/sh\nwhile [ "$1" != --out ]; do shift; done\nmkdir -p "$2" && echo {} > "$2/manifest.json"\n')
    stub.chmod(0o755)
    env = {
        "PATH": f"{stub.parent}:{os.environ['PATH']}",
        "PREPARE_GRAPHS": prepare_graphs,
        "PREPARE_INT8": prepare_int8,
        "INT8_ISA": "avx2",
    }
    subprocess.run(["sh", "-c", run.replace("/opt/", f"{opt}/")], env=env, check=True)

    shipped: set[str] = set()
    for instruction in image:
        words = instruction.arguments.split()
        if instruction.keyword.upper() == "COPY" and words[0] == "--from=prepared" and words[-1].startswith("/opt/model"):
            source, target = opt / words[1].removeprefix("/opt/"), words[-1]
            shipped |= {f"{target}/{p.relative_to(source)}" for p in source.rglob("*") if p.is_file()}
    small = {"/opt/model/onnx/tts.json", "/opt/model/onnx/unicode_indexer.json", "/opt/model/voice_styles/M1.json", "/opt/model/LICENSE"}
    stock = {"/opt/model/onnx/vocoder.onnx", "/opt/model/onnx/text_encoder.onnx"}
    fp32 = {"/opt/model/prepared/manifest.json"} if prepare_graphs == "1" else set()
    int8 = {"/opt/model/prepared-int8/manifest.json"} if prepare_int8 == "1" else set()
    assert shipped == small | (set() if prepare_graphs == "1" else stock) | fp32 | int8


def test_nothing_is_fetched_but_from_the_package_index_and_every_file_is_pinned_by_hash(stages: list[list[Instruction]]) -> None:
    every = [i for stage in stages for i in stage]
    assert not [i for i in every if i.keyword.upper() == "ADD"], "ADD fetches URLs past the package index: COPY or pip instead"
    installs = [i.arguments for i in every if i.keyword.upper() == "RUN" and re.search(r"\bpip (install|download)\b", i.arguments)]
    assert installs and all("--require-hashes" in command for command in installs)
    assert not [i for i in every if i.keyword.upper() == "RUN" and re.search(r"\b(curl|wget)\b|https?://", i.arguments)]


def test_the_emulator_comes_from_the_sam_cli_wheel_checked_by_both_digests(
    stages: list[list[Instruction]], image: list[Instruction]
) -> None:
    emulator = _named(stages)["emulator"]
    args = dict(i.arguments.split("=", 1) for i in emulator if i.keyword.upper() == "ARG")
    assert re.fullmatch(r"[0-9a-f]{64}", args["SAM_CLI_WHEEL_SHA256"]) and re.fullmatch(r"[0-9a-f]{64}", args["RIE_SHA256"])
    run = " ".join(i.arguments for i in emulator if i.keyword.upper() == "RUN")
    assert "--hash=sha256:%s" in run and '"$RIE_SHA256  /aws-lambda-rie" | sha256sum -c -' in run
    # The binary ./dev extracts for the harness is the one the image carries.
    dev = (REPO / "dev").read_text()
    for name in ("SAM_CLI_VERSION", "SAM_CLI_WHEEL_SHA256", "RIE_SHA256"):
        assert f"s/^ARG {name}=//p" in dev  # ./dev reads the pins from here, never a copy of its own
    rie = REPO / ".tools" / "aws-lambda-rie"
    if rie.is_file():
        import hashlib

        assert hashlib.sha256(rie.read_bytes()).hexdigest() == args["RIE_SHA256"]
    assert _index(image, "COPY", r"^--from=emulator /aws-lambda-rie /usr/local/bin/aws-lambda-rie$") >= 0


def test_the_lock_files_are_current_with_pyproject() -> None:
    from supertonic_harness.image import lock

    stale = [str(f.path.relative_to(REPO)) for f in lock.stale_locks()]
    assert not stale, f"{stale} were written from other dependency lists: run `./dev {lock.COMMAND}`"
    for file in lock.LOCKS:
        pins = [line for line in file.path.read_text().splitlines() if re.match(r"^[A-Za-z0-9_.-]+==", line)]
        assert pins and all(line.endswith("\\") for line in pins), "every pin carries its hashes on the lines below"


def test_a_changed_dependency_list_makes_its_lock_stale(tmp_path: Path) -> None:
    from supertonic_harness.image import lock

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text((REPO / "pyproject.toml").read_text().replace('"numpy>=1.26"', '"numpy>=1.27"'))
    assert {f.name for f in lock.stale_locks(pyproject)} == {"requirements.lock", "build-tools.lock"}
