"""One side of the benchmark in its own process: load a pipeline, then serve requests from stdin.

Protocol: one JSON object per line. The worker first prints ``{"ready": ...}`` with its load time
and idle RSS, then answers each request line with the timing, the audio length, the per-chunk
token and frame counts, and the peak RSS of that request alone (``/proc/self/clear_refs`` resets
the high-water mark before each request).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

_started = time.perf_counter()


def rss_mb(field: str = "VmRSS") -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak_rss() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


class OursSide:
    def __init__(self, model_dir: str, threads: int) -> None:
        from supertonic_engine import Engine, SessionConfig

        self.engine = Engine.load(model_dir, session_config=SessionConfig(intra_op_threads=threads))
        self.sample_rate = self.engine.sample_rate

    def run(self, request: dict) -> tuple:
        from supertonic_engine.text.unicode import model_text

        result = self.engine.synthesize(
            request["text"], voice=request["voice"], lang=request["lang"], steps=request["steps"],
            seed=request["seed"], normalize=False,
        )
        frames = [round((c.end_s - c.start_s) * self.sample_rate) // 3072 for c in result.chunks]
        tokens = [len(model_text(c.text, request["lang"])) for c in result.chunks]
        return result.audio, tokens, frames


class OfficialSide:
    def __init__(self, model_dir: str, threads: int) -> None:
        from supertonic import TTS

        self.tts = TTS(model_dir=model_dir, auto_download=False, intra_op_num_threads=threads, inter_op_num_threads=1)
        self.sample_rate = self.tts.sample_rate

    def run(self, request: dict) -> tuple:
        import numpy as np

        np.random.seed(request["seed"])  # the official package samples noise from the global generator
        wav, _ = self.tts.synthesize(
            request["text"], voice_style=self.tts.get_voice_style(request["voice"]), total_steps=request["steps"],
            lang=request["lang"],
        )
        return wav.reshape(-1), [], []


SIDES = {"ours": OursSide, "official": OfficialSide}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--side", choices=SIDES, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)

    import numpy as np

    imported = time.perf_counter()
    side = SIDES[args.side](args.model, args.threads)
    ready = time.perf_counter()
    print(json.dumps({
        "ready": True, "import_s": imported - _started, "load_s": ready - imported,
        "idle_rss_mb": rss_mb(), "idle_rss_anon_mb": rss_mb("RssAnon"), "idle_rss_file_mb": rss_mb("RssFile"),
    }), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        reset_peak_rss()
        started = time.perf_counter()
        audio, tokens, frames = side.run(request)
        synth_s = time.perf_counter() - started
        print(json.dumps({
            "synth_s": synth_s,
            "audio_s": audio.size / side.sample_rate,
            "samples": int(audio.size),
            "energy": float(np.square(audio, dtype=np.float64).sum()),
            "tokens": tokens,
            "frames": frames,
            "peak_rss_mb": rss_mb("VmHWM"),
            "rss_after_mb": rss_mb(),
        }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
