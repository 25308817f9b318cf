"""Write handler/supertonic_function/assets/error.wav: the clip played instead of speech on failure.

    ./dev python handler/scripts/make_error_clip.py

Two falling tones ("uh-oh"), 0.4 s, 16 kHz 16-bit mono (~13 KB). Pure tones rather than a spoken
message: the clip must be recognisable in any language, and regenerating it needs nothing beyond
numpy and soundfile. The output is deterministic, so re-running it leaves git clean.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

SAMPLE_RATE = 16_000
TONES = ((660.0, 0.16), (440.0, 0.20))  # (Hz, seconds): a falling minor sixth
GAP_S = 0.04
FADE_S = 0.01  # ramps keep the tone edges from clicking
LEVEL = 0.4
OUTPUT = Path(__file__).resolve().parents[1] / "supertonic_function" / "assets" / "error.wav"


def tone(frequency: float, seconds: float) -> np.ndarray:
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    wave = LEVEL * np.sin(2 * np.pi * frequency * t)
    ramp = np.linspace(0.0, 1.0, int(FADE_S * SAMPLE_RATE))
    wave[: ramp.size] *= ramp
    wave[-ramp.size :] *= ramp[::-1]
    return wave


def main() -> None:
    gap = np.zeros(int(GAP_S * SAMPLE_RATE))
    clip = np.concatenate([tone(*TONES[0]), gap, tone(*TONES[1])])
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    sf.write(OUTPUT, clip, SAMPLE_RATE, subtype="PCM_16")
    print(f"{OUTPUT}: {clip.size / SAMPLE_RATE:.2f} s, {OUTPUT.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
