"""One side of the benchmark in its own process: load a pipeline, then serve requests from stdin.

Protocol: one JSON object per line. The worker first prints ``{"ready": ...}`` with its import and
load times, idle memory and the bytes it read from storage (``/proc/self/io``), then answers each request line with the timing, the audio length, the
per-chunk token and frame counts, and the peak RSS of that request alone (``/proc/self/clear_refs``
resets the high-water mark before each request). A request may ask for the audio to be saved as
``.npy`` (so the parent can compare the sides sample by sample) or to be streamed chunk by chunk and
dropped (so memory is that of the engine, not of the whole waveform). ``{"op": "ort_profile"}``
ends ONNX Runtime's profiling (started with ``SUPERTONIC_PROFILING=1``) and answers with the
time per operator type of each graph.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

_started = time.perf_counter()

from supertonic_harness.function.measure import (  # noqa: E402 - standard library only, nothing measurable in import_s
    read_bytes,
    reset_peak_rss,
    status_bytes,
)

FRAME = 3072  # waveform samples per latent frame


def rss_mb(field: str = "VmRSS") -> float:
    value = (status_bytes("self", (field,)) or {}).get(field)
    return float("nan") if value is None else value / 2**20


def memory() -> dict[str, float]:
    return {"rss_mb": rss_mb(), "rss_anon_mb": rss_mb("RssAnon"), "rss_file_mb": rss_mb("RssFile")}


class OursSide:
    """This project's engine, configured from the environment like the function (``SUPERTONIC_*``;
    the parent sets ``SUPERTONIC_INTRA_OP_THREADS`` from ``--threads`` unless a variant sets it)."""

    def __init__(self, model_dir: str, threads: int) -> None:
        from supertonic_engine import Engine

        self.engine = Engine.load(model_dir)
        self.sample_rate = self.engine.sample_rate

    def facts(self) -> dict:
        sessions = self.engine.sessions
        return {
            "prepared": list(sessions.prepared),
            "threads": sessions.threads,
            "model_kind": self.engine.model_kind,
            "precision": self.engine.precision,
        }

    def run(self, request: dict):
        """Yield (audio piece, tokens, frames) per chunk."""
        from supertonic_engine import SynthesisOptions
        from supertonic_engine.text.unicode import model_text

        options = SynthesisOptions(
            voice=request["voice"], lang=request["lang"], steps=request["steps"], seed=request["seed"], normalize=False
        )
        pieces = self.engine.stream(request["text"], options)
        for piece in pieces:
            timing = piece.timing
            frames = round((timing.end_s - timing.start_s) * self.sample_rate) // FRAME
            yield piece.samples, len(model_text(timing.text, request["lang"])), frames

    def ort_profile(self) -> dict[str, dict[str, float]]:
        """Milliseconds per operator type of each graph, from ONNX Runtime's profiler."""
        from supertonic_engine.model_layout import GRAPHS

        out = {}
        for name in GRAPHS:
            session = getattr(self.engine.sessions, name)
            path = Path(session.end_profiling())
            totals: dict[str, float] = defaultdict(float)
            for event in json.loads(path.read_text()):
                if event.get("cat") == "Node" and event.get("name", "").endswith("_kernel_time"):
                    totals[event["args"]["op_name"]] += event["dur"] / 1000.0
            path.unlink()
            out[name] = dict(sorted(totals.items(), key=lambda kv: -kv[1]))
        return out


class OfficialSide:
    """The official ``supertonic`` package on the same model directory, with its own defaults."""

    def __init__(self, model_dir: str, threads: int) -> None:
        from supertonic import TTS

        self.tts = TTS(model_dir=model_dir, auto_download=False, intra_op_num_threads=threads, inter_op_num_threads=1)
        self.sample_rate = self.tts.sample_rate

    def facts(self) -> dict:
        return {}

    def run(self, request: dict):
        import numpy as np

        np.random.seed(request["seed"])  # the official package samples noise from the global generator
        wav, _ = self.tts.synthesize(
            request["text"],
            voice_style=self.tts.get_voice_style(request["voice"]),
            total_steps=request["steps"],
            lang=request["lang"],
        )
        yield wav.reshape(-1), 0, 0


SIDES: dict[str, type[OursSide] | type[OfficialSide]] = {"ours": OursSide, "official": OfficialSide}


def serve(side: OursSide | OfficialSide, request: dict) -> dict:
    import numpy as np

    if not reset_peak_rss("self"):  # else the peak below would be an earlier request's
        raise OSError("cannot reset the peak RSS (/proc/self/clear_refs): per-request peaks need Linux >= 4.0")
    kept: list[np.ndarray] | None = [] if request.get("save_audio") else None
    samples, energy, tokens, frames = 0, 0.0, [], []
    started = time.perf_counter()
    for audio, chunk_tokens, chunk_frames in side.run(request):
        samples += audio.size
        energy += float(np.square(audio, dtype=np.float64).sum())
        if chunk_tokens:
            tokens.append(chunk_tokens)
            frames.append(chunk_frames)
        if kept is not None:
            kept.append(audio)
    synth_s = time.perf_counter() - started
    if kept is not None:
        np.save(request["save_audio"], np.concatenate(kept))
    return {
        "synth_s": synth_s,
        "audio_s": samples / side.sample_rate,
        "samples": samples,
        "energy": energy,
        "tokens": tokens,
        "frames": frames,
        "peak_rss_mb": rss_mb("VmHWM"),
        **{key.replace("rss", "rss_after", 1): value for key, value in memory().items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--side", choices=SIDES, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)

    # Imports first, so the load time counts only building the pipeline.
    import numpy  # noqa: F401
    import onnxruntime  # noqa: F401

    __import__("supertonic_engine" if args.side == "ours" else "supertonic")
    imported = time.perf_counter()
    side = SIDES[args.side](args.model, args.threads)
    ready = time.perf_counter()
    print(
        json.dumps(
            {
                "ready": True,
                "import_s": imported - _started,
                "load_s": ready - imported,
                "init_read_bytes": read_bytes(os.getpid()),
                **{f"idle_{key}": value for key, value in memory().items()},
                **side.facts(),
            }
        ),
        flush=True,
    )
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("op") == "ort_profile":
            if not isinstance(side, OursSide):  # the official package keeps its sessions to itself
                raise SystemExit("ort_profile profiles this project's engine: start the worker with --side ours")
            print(json.dumps({"ort_profile": side.ort_profile()}), flush=True)
        else:
            print(json.dumps(serve(side, request)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
