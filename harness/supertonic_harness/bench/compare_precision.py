"""``supertonic-lambda compare-precision``: int8 against fp32 on fixed sentences, without listening.

The duration predictor is fp32 in both and the noise seed is the same, so the two waveforms align
sample by sample and can be compared directly. Per sentence:

* duration: equal lengths (they must be: int8 never touches the duration predictor);
* log-mel distance: per frame, the RMS over 80 mel bands of the difference in dB, averaged over
  the frames where either side has sound (how far apart the spectra are, insensitive to phase);
* RMS ratio: int8's level over fp32's (a quantized waveform generator shows here as a level drop);
* SNR against fp32: the fp32 waveform's energy over that of the difference (strict: any phase
  shift counts as error);
* noise floor in the pauses: the level of each side in the frames where fp32 is quiet (int8 "hiss"
  rises there first).

Judged by ``THRESHOLDS``. On the stand-in (random weights) the numbers only show that the pipeline
works; int8 quality is verified only where this ran on the real weights.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypedDict

import numpy as np

from .worker import rss_mb

SENTENCES: tuple[tuple[str, str], ...] = (
    ("en", "The morning train was late, so we walked along the harbour."),
    ("en", "Please hold on for a moment; your call is important to us."),
    ("en", "Seven hundred and twenty birds crossed the valley before noon."),
    ("en", "Is this the right way to the station, or should we turn back?"),
    ("ko", "오늘 아침에는 비가 조금 내렸지만, 오후부터는 맑겠습니다."),
    ("ko", "잠시만 기다려 주세요. 곧 연결해 드리겠습니다."),
    ("ko", "작은 팀도 버튼 하나에 목소리를 붙일 수 있습니다."),
    ("ko", "이 길이 역으로 가는 길이 맞나요, 아니면 돌아가야 하나요?"),
)
SEED = 42
VOICE = "F1"


class Thresholds(TypedDict):
    log_mel_distance_db_max: float
    rms_ratio_range: tuple[float, float]
    snr_db_min: float
    pause_floor_rise_db_max: float


# What int8 must keep, per sentence. The spectral distance and the pause noise floor are what a
# listener hears; SNR is strict (any small timing shift of the waveform lowers it) and is judged loosely.
THRESHOLDS: Thresholds = {
    "log_mel_distance_db_max": 1.5,
    "rms_ratio_range": (0.9, 1.1),
    "snr_db_min": 10.0,
    "pause_floor_rise_db_max": 3.0,
}
# Mel analysis: 2048-point frames every 512 samples (46 ms / 12 ms at 44.1 kHz), 80 bands to 16 kHz.
N_FFT, HOP, N_MELS, F_MAX = 2048, 512, 80, 16_000.0
PAUSE_BELOW_DB = -35.0  # a frame is a pause when fp32 is this far below its loudest frame
SOUND_BELOW_DB = -60.0  # frames below this on both sides are silence and not compared


@dataclass(frozen=True)
class SentenceResult:
    lang: str
    text: str
    fp32_s: float
    int8_s: float
    same_duration: bool
    log_mel_distance_db: float
    rms_ratio: float
    snr_db: float
    pause_frames: int
    fp32_pause_floor_db: float  # dB relative to fp32's loudest frame; nan without pauses
    int8_pause_floor_db: float
    failed: tuple[str, ...]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("compare-precision", help="int8 against fp32 on fixed English and Korean sentences (same seed)")
    p.add_argument("--model", default=None, help="model directory (default: $SUPERTONIC_MODEL_DIR, else the tiny stand-in)")
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--json", dest="json_path", default=None, help="also write the results as JSON")
    p.add_argument("--no-prepare", action="store_true", help="fail instead of writing missing prepared graphs (fp32 and int8)")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from supertonic_engine import Engine, SynthesisOptions
    from supertonic_tools.models import locate_model
    from supertonic_tools.prepare import ensure_prepared

    model_dir = locate_model(args.model)
    if not args.no_prepare:
        ensure_prepared(model_dir)
        ensure_prepared(model_dir, "int8")
    rss_before = rss_mb()
    fp32 = Engine.load(model_dir, env={"SUPERTONIC_PRECISION": "fp32"})
    rss_fp32 = rss_mb()
    int8 = Engine.load(model_dir, env={"SUPERTONIC_PRECISION": "int8"})
    rss_both = rss_mb()
    results = []
    for lang, text in SENTENCES:
        options = SynthesisOptions(voice=VOICE, lang=lang, steps=args.steps, seed=SEED)
        a = fp32.synthesize(text, options)
        b = int8.synthesize(text, options)
        if a.audio is None or b.audio is None:  # only synthesis into a writer leaves the waveform out
            raise RuntimeError("synthesize() without a writer returned no waveform")
        results.append(compare(lang, text, a.audio, b.audio, fp32.sample_rate))
    report = {
        "model_dir": str(model_dir),
        "model_kind": fp32.model_kind,
        "steps": args.steps,
        "seed": SEED,
        "voice": VOICE,
        "thresholds": THRESHOLDS,
        "quantization": _quantization(model_dir),
        # What keeping both precisions loaded in one process would cost (a request field would need it).
        "idle_rss_mb": {"fp32": rss_fp32 - rss_before, "fp32_and_int8": rss_both - rss_before},
        "sentences": [asdict(r) for r in results],
        "passed": not any(r.failed for r in results),
    }
    print(format_table(report))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(_finite(report), indent=2, ensure_ascii=False, allow_nan=False))
        print(f"wrote {args.json_path}")
    return 0 if report["passed"] or report["model_kind"] == "stand-in" else 1


def compare(lang: str, text: str, fp32: np.ndarray, int8: np.ndarray, sample_rate: int) -> SentenceResult:
    """The measures above for one sentence; the longer waveform is cut to the shorter for the sample-wise ones."""
    n = min(fp32.size, int8.size)
    a, b = fp32[:n].astype(np.float64), int8[:n].astype(np.float64)
    error = float(np.sum((a - b) ** 2))
    snr_db = 10 * math.log10(float(np.sum(a**2)) / error) if error > 0 else math.inf
    rms_ratio = math.sqrt(float(np.mean(b**2)) / float(np.mean(a**2))) if np.any(a) else math.nan
    mel_a, mel_b = log_mel_db(a, sample_rate), log_mel_db(b, sample_rate)
    level_a, level_b = frame_level_db(a), frame_level_db(b)
    peak = float(level_a.max()) if level_a.size else 0.0
    sound = (level_a > peak + SOUND_BELOW_DB) | (level_b > peak + SOUND_BELOW_DB)
    distance = float(np.mean(np.sqrt(np.mean((mel_a - mel_b) ** 2, axis=0))[sound])) if sound.any() else 0.0
    pauses = (level_a < peak + PAUSE_BELOW_DB) & (level_a > peak + SOUND_BELOW_DB)  # quiet, not the silence between chunks
    floor_a = _mean_db(level_a[pauses]) - peak if pauses.any() else math.nan
    floor_b = _mean_db(level_b[pauses]) - peak if pauses.any() else math.nan
    failed = []
    if fp32.size != int8.size:
        failed.append("duration")
    if distance > THRESHOLDS["log_mel_distance_db_max"]:
        failed.append("log_mel_distance")
    low, high = THRESHOLDS["rms_ratio_range"]
    if not low <= rms_ratio <= high:
        failed.append("rms_ratio")
    if snr_db < THRESHOLDS["snr_db_min"]:
        failed.append("snr")
    if pauses.any() and floor_b - floor_a > THRESHOLDS["pause_floor_rise_db_max"]:
        failed.append("pause_floor")
    return SentenceResult(
        lang,
        text,
        fp32.size / sample_rate,
        int8.size / sample_rate,
        fp32.size == int8.size,
        distance,
        rms_ratio,
        snr_db,
        int(pauses.sum()),
        floor_a,
        floor_b,
        tuple(failed),
    )


def log_mel_db(x: np.ndarray, sample_rate: int) -> np.ndarray:
    """[N_MELS, frames] mel power spectrogram in dB (Hann window, HTK mel scale)."""
    frames = _frames(x)
    spectrum = np.abs(np.fft.rfft(frames * np.hanning(N_FFT), axis=1)) ** 2
    return 10 * np.log10(mel_filters(sample_rate) @ spectrum.T + 1e-10)


def frame_level_db(x: np.ndarray) -> np.ndarray:
    """Mean power of each analysis frame in dB (full scale)."""
    return 10 * np.log10(np.mean(_frames(x) ** 2, axis=1) + 1e-12)


def mel_filters(sample_rate: int) -> np.ndarray:
    def mel(f):
        return 2595 * np.log10(1 + f / 700)

    edges = 700 * (10 ** (np.linspace(mel(0.0), mel(min(F_MAX, sample_rate / 2)), N_MELS + 2) / 2595) - 1)
    bins = np.fft.rfftfreq(N_FFT, 1 / sample_rate)
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    return np.maximum(0, np.minimum((bins - lower) / (centre - lower), (upper - bins) / (upper - centre)))


def _frames(x: np.ndarray) -> np.ndarray:
    if x.size < N_FFT:
        x = np.pad(x, (0, N_FFT - x.size))
    count = 1 + (x.size - N_FFT) // HOP
    return np.lib.stride_tricks.sliding_window_view(x, N_FFT)[::HOP][:count]


def _mean_db(levels_db: np.ndarray) -> float:
    return 10 * math.log10(float(np.mean(10 ** (levels_db / 10))))


def _quantization(model_dir: Path) -> dict:
    from supertonic_engine import prepared

    return prepared.quantization(prepared.prepared_dir(model_dir, precision="int8"))


def _finite(value: object) -> object:
    """``value`` with NaN and infinities as null: strict JSON has no such numbers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def format_table(report: dict) -> str:
    t = THRESHOLDS
    q = report["quantization"]
    lines = [
        f"model: {report['model_kind']} ({report['model_dir']}), {report['steps']} steps, seed {report['seed']}, voice {report['voice']}; "
        f"int8 for {q.get('isa')} (per-channel {q.get('per_channel')}, reduce_range {q.get('reduce_range')})",
        f"thresholds: same duration, log-mel distance <= {t['log_mel_distance_db_max']} dB, RMS ratio "
        f"{t['rms_ratio_range'][0]}-{t['rms_ratio_range'][1]}, SNR >= {t['snr_db_min']} dB, pause noise floor rise <= {t['pause_floor_rise_db_max']} dB",
        "",
        f"{'lang':<5}{'fp32 s':>7}{'int8 s':>7}{'same':>6}{'mel dB':>8}{'RMS x':>7}{'SNR dB':>8}{'pauses':>7}{'floor fp32/int8 dB':>20}  verdict  text",
    ]
    for r in report["sentences"]:
        floors = "-" if not r["pause_frames"] else f"{r['fp32_pause_floor_db']:.1f}/{r['int8_pause_floor_db']:.1f}"
        verdict = "ok" if not r["failed"] else "FAIL: " + ",".join(r["failed"])
        lines.append(
            f"{r['lang']:<5}{r['fp32_s']:>7.2f}{r['int8_s']:>7.2f}{'yes' if r['same_duration'] else 'NO':>6}"
            f"{r['log_mel_distance_db']:>8.2f}{r['rms_ratio']:>7.3f}{r['snr_db']:>8.1f}{r['pause_frames']:>7}{floors:>20}  {verdict:<7}  {r['text'][:40]}"
        )
    rss = report["idle_rss_mb"]
    lines += [
        "",
        f"idle RSS: fp32 alone {rss['fp32']:.0f} MB, fp32 and int8 loaded together {rss['fp32_and_int8']:.0f} MB",
        "passed" if report["passed"] else "FAILED: int8 breaks a threshold above",
    ]
    if report["model_kind"] == "stand-in":
        lines.append("(stand-in model: random weights; these numbers show the pipeline works, not int8's quality on speech)")
    return "\n".join(lines)
