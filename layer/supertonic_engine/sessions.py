"""The one factory for ONNX Runtime sessions: options from ``SessionConfig``, built once per process.

Each graph is loaded from its prepared copy when one matches the model (see ``prepared.py``),
else from the model directory; with ``precision="int8"`` the text encoder and vector estimator
come from the int8 set, which must exist and suit this CPU. Where the stock graph is absent (the
image ships each graph once) its prepared copy is the only one: it cannot fall back.
"""

from __future__ import annotations

import functools
import logging
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import onnxruntime as ort

from . import prepared
from .assets import ModelAssets, graph_files
from .config import ENV_PRECISION, ENV_SESSION_PREFIX, EXECUTION_MODES, GRAPH_OPTIMIZATIONS, SessionConfig
from .cpu import cpu_features
from .errors import ConfigurationError, GraphMissing, ModelCorrupt
from .standin_marker import STANDIN_KEY

logger = logging.getLogger(__name__)

# The names SessionConfig accepts (and checks), in order, to ORT's values.
_EXECUTION_MODES = dict(zip(EXECUTION_MODES, (ort.ExecutionMode.ORT_SEQUENTIAL, ort.ExecutionMode.ORT_PARALLEL), strict=True))
_OPTIMIZATION_LEVELS = dict(
    zip(
        GRAPH_OPTIMIZATIONS,
        (
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
            ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
            ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
            ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
        ),
        strict=True,
    )
)


@dataclass(frozen=True)
class Sessions:
    """The four graphs of the pipeline, ready to run."""

    duration_predictor: ort.InferenceSession
    text_encoder: ort.InferenceSession
    vector_estimator: ort.InferenceSession
    vocoder: ort.InferenceSession
    threads: int
    load_s: float
    prepared: tuple[str, ...] = ()  # the graphs loaded from prepared copies
    precision: str = "fp32"  # of the text encoder and vector estimator

    @functools.cached_property
    def kind(self) -> str:
        """ "stand-in" when any graph these sessions run carries the stand-in mark, else "real".

        Read from the loaded graphs themselves (stock or prepared copy, fp32 or int8), so what
        is said is what runs: the mark is ONNX metadata, which ONNX Runtime hands back as is.
        Read once: every result says it, and the graphs do not change under a session."""
        loaded = (self.duration_predictor, self.text_encoder, self.vector_estimator, self.vocoder)
        return "stand-in" if any(STANDIN_KEY in s.get_modelmeta().custom_metadata_map for s in loaded) else "real"


def session_options(config: SessionConfig) -> ort.SessionOptions:
    """Translate a ``SessionConfig`` into ``ort.SessionOptions``.

    ONNX Runtime accepts any config key and most values silently: ``SessionConfig`` checked every
    value when it was made.
    """
    mode = _EXECUTION_MODES[config.execution_mode]
    level = _OPTIMIZATION_LEVELS[config.graph_optimization]
    options = ort.SessionOptions()
    # Explicit thread counts also stop ORT from pinning threads to cores it may not own in a container.
    options.intra_op_num_threads = config.threads()
    options.inter_op_num_threads = max(1, config.inter_op_threads)
    options.execution_mode = mode
    options.graph_optimization_level = level
    options.enable_cpu_mem_arena = config.cpu_mem_arena
    options.enable_mem_pattern = config.mem_pattern
    options.log_severity_level = config.log_severity
    options.add_session_config_entry("session.dynamic_block_base", str(config.dynamic_block_base))
    spinning = "1" if config.allow_spinning else "0"
    options.add_session_config_entry("session.intra_op.allow_spinning", spinning)
    options.add_session_config_entry("session.inter_op.allow_spinning", spinning)
    if config.prepacking is False:
        options.add_session_config_entry("session.disable_prepacking", "1")
    options.enable_profiling = config.profiling
    if config.cpu_mem_arena and config.shared_arena and _share_one_arena():
        options.add_session_config_entry("session.use_env_allocators", "1")
    return options


@functools.cache
def _share_one_arena() -> bool:
    """Register one CPU arena in ONNX Runtime's process-wide environment, for sessions that opt in.

    The four graphs run one after another, never at once, so one arena holding the largest graph's
    peak serves them all, where four arenas would each keep their own peak.
    """
    memory = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
    ort.create_and_register_allocator(memory, ort.OrtArenaCfg(0, -1, -1, -1))  # ORT's default arena settings
    return True


def load_sessions(assets: ModelAssets, config: SessionConfig | None = None, env: Mapping[str, str] | None = None) -> Sessions:
    """Build the four sessions with one set of options; a graph ORT cannot load names its file."""
    config = config or SessionConfig.from_env(env)
    options = session_options(config)
    # The prepared fp32 graphs hold each weight once, unpacked, in a mapped file: packing would copy
    # them into the process's memory. (Their int8 copies hold the packed weights too: see ``optimize``.)
    unpacked = options if config.prepacking else session_options(replace(config, prepacking=False))
    started = time.perf_counter()
    sources = graph_files(assets.root)
    if config.prepared:
        match = prepared.match_prepared(sources, prepared.prepared_dir(assets.root, env))
    else:
        match = prepared.Match({}, dict.fromkeys(sources, f"{ENV_SESSION_PREFIX}PREPARED=0 turns the prepared copies off"))
    copies = dict(match.found)
    quantized = _int8_graphs(assets.root, sources, config, env)
    copies.update(quantized)
    absent = {name: why for name, why in match.refused.items() if name not in copies and not sources[name].is_file()}
    if absent:
        raise GraphMissing(assets.root, absent)
    built = {}
    for name, source in sources.items():
        copy = copies.get(name)
        if copy is not None:
            try:
                built[name] = _session(copy, options if name in quantized else unpacked)
                continue
            except Exception as exc:  # ORT raises its own Fail/InvalidProtobuf/... types
                if name in quantized:
                    raise ConfigurationError(
                        f"{ENV_PRECISION}=int8: ONNX Runtime cannot load {copy}: {_first_line(exc)}; "
                        f"rebuild it with `supertonic-lambda prepare-model --precision int8` or unset {ENV_PRECISION}",
                        field=ENV_PRECISION,
                    ) from None
                if not source.is_file():
                    raise ModelCorrupt(
                        f"ONNX Runtime cannot load {copy}: {_first_line(exc)}, and {source} is absent to fall back on. "
                        f"Prepare the graphs again (`supertonic-lambda prepare-model --model DIR` where the stock graphs are) "
                        f"or put the stock graph back (`supertonic-lambda fetch-model --out DIR`)."
                    ) from None
                del copies[name]
                logger.warning("not using the prepared %s: %s; loading %s", name, _first_line(exc), source)
        try:
            built[name] = _session(source, options)
        except Exception as exc:
            raise ModelCorrupt(
                f"ONNX Runtime cannot load {source}: {_first_line(exc)}. Re-download it with "
                "`supertonic-lambda fetch-model --out DIR` or regenerate the stand-in with `make-model`."
            ) from None
    load_s = time.perf_counter() - started
    sessions = Sessions(**built, threads=options.intra_op_num_threads, load_s=load_s, prepared=tuple(copies), precision=config.precision)
    logger.info(
        "four sessions of the %s model ready in %.2f s with %d intra-op threads (prepared: %s; precision %s)",
        sessions.kind,
        load_s,
        options.intra_op_num_threads,
        ", ".join(copies) or "none",
        config.precision,
    )
    return sessions


def _int8_graphs(model_dir: Path, sources: Mapping[str, Path], config: SessionConfig, env: Mapping[str, str] | None) -> dict[str, Path]:
    """The int8 copies to load for ``precision="int8"`` (none for fp32); an operator's error where they cannot be."""
    if config.precision == "fp32":
        return {}
    directory = prepared.prepared_dir(model_dir, env, precision="int8")
    fix = f"run `supertonic-lambda prepare-model --model {model_dir} --precision int8` or unset {ENV_PRECISION}"
    if not config.prepared:
        raise ConfigurationError(
            f"{ENV_PRECISION}=int8 loads prepared graphs, which SUPERTONIC_PREPARED=0 turns off: set one or the other", field=ENV_PRECISION
        )
    wanted = {name: sources[name] for name in prepared.QUANTIZED_GRAPHS}
    found = prepared.find_prepared(wanted, directory, precision="int8")
    if len(found) < len(wanted):
        missing = ", ".join(sorted(set(wanted) - set(found)))
        raise ConfigurationError(
            f"{ENV_PRECISION}=int8: no int8 {missing} matching the model in {directory} (the log says why); {fix}", field=ENV_PRECISION
        )
    settings = prepared.quantization(directory)
    cpu = cpu_features()
    if settings.get("reduce_range") is False and not cpu.accumulates_int8_in_32_bits:
        # 8-bit weights on a CPU that sums u8 x s8 pairs in 16 bits: the products saturate.
        raise ConfigurationError(
            f"{ENV_PRECISION}=int8: the graphs in {directory} were made for a CPU with VNNI (8-bit weights), and this "
            f"one ({cpu.model or cpu.machine}) has {cpu.int8_isa}, where they saturate; "
            f"run `supertonic-lambda prepare-model --model {model_dir} --precision int8 --isa avx2`",
            field=ENV_PRECISION,
        )
    return found


def _session(path: Path, options: ort.SessionOptions) -> ort.InferenceSession:
    if options.enable_profiling:  # one trace file per graph, named after it, in the temp folder
        options.profile_file_prefix = str(Path(tempfile.gettempdir()) / f"ort-profile-{path.stem}")
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
