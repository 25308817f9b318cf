import io
import itertools
import subprocess
import sys
import time

import numpy as np
import pytest
import soundfile as sf

from supertonic_engine import audio
from supertonic_engine.errors import UnsupportedFormat

SR = 44_100


def tone(seconds: float = 0.5, amplitude: float = 0.5) -> np.ndarray:
    t = np.arange(int(SR * seconds)) / SR
    return (amplitude * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def test_the_always_present_formats_are_available():
    assert {"wav", "flac", "ogg", "pcm"} <= set(audio.available_formats())


@pytest.mark.parametrize("fmt", ["wav", "flac", "ogg", "mp3", "opus"])
def test_each_available_format_decodes_to_the_same_length(fmt):
    if fmt not in audio.available_formats():
        with pytest.raises(UnsupportedFormat, match="cannot write it"):
            audio.encode(tone(), SR, fmt)
        return
    data = audio.encode(tone(0.5), SR, fmt)
    decoded, rate = sf.read(io.BytesIO(data), dtype="float32")
    expected_rate = audio.FORMATS[fmt].sample_rate or SR
    assert rate == expected_rate
    # Lossy codecs pad or trim a few milliseconds at the edges.
    assert abs(decoded.shape[0] / rate - 0.5) < 0.06


def test_wav_is_16_bit_pcm_with_exact_samples():
    samples = tone(0.1)
    decoded, rate = sf.read(io.BytesIO(audio.encode(samples, SR, "wav")), dtype="int16")
    assert rate == SR
    assert sf.info(io.BytesIO(audio.encode(samples, SR, "wav"))).subtype == "PCM_16"
    np.testing.assert_array_equal(decoded, np.round(samples * 32767).astype(np.int16))


@pytest.mark.parametrize(("fmt", "rate"), [("wav", SR), ("flac", SR), ("pcm", audio.FORMATS["pcm"].sample_rate)])
def test_clipping_does_not_wrap_around(fmt, rate):
    loud = np.array([1.5, -1.5, 1.0001, -3.0, 0.25, np.nan], dtype=np.float32)
    data = audio.encode(loud, rate, fmt)
    if fmt == "pcm":
        decoded = np.frombuffer(data, dtype="<i2")
    else:
        decoded, _ = sf.read(io.BytesIO(data), dtype="int16")
    np.testing.assert_array_equal(decoded, [32767, -32767, 32767, -32767, 8192, 0])


def test_unknown_format_names_the_field_and_the_choices():
    with pytest.raises(UnsupportedFormat) as err:
        audio.encode(tone(), SR, "aac")
    assert err.value.field == "format"
    assert "wav" in err.value.message


def test_format_lookup_accepts_extensions_and_case():
    assert audio.audio_format(".WAV").name == "wav"
    # A format's media type is its own, whether or not this machine's libsndfile can write it.
    assert audio.content_type(audio.FORMATS["mp3"]) == "audio/mpeg"
    # RFC 2586's audio/L16 is big-endian: OpenAI's little-endian PCM says its layout instead.
    assert audio.content_type("pcm", 44100) == "audio/pcm;rate=24000;channels=1;encoding=signed-int;bits=16;endianness=little"


def test_pcm_is_openai_raw_pcm_24_khz_little_endian():
    """A 440 Hz tone made at 44.1 kHz arrives as 24,000 little-endian int16 samples a second, the
    tone intact, and streamed in pieces the same bytes as in one write."""
    data = audio.encode(tone(1.0), SR, "pcm")
    assert len(data) == 2 * 24_000
    decoded = np.frombuffer(data, dtype="<i2") / 32767.0
    expected = 0.5 * np.sin(2 * np.pi * 440 * np.arange(24_000) / 24_000)
    assert np.abs(decoded[100:-100] - expected[100:-100]).max() < 3e-3
    streamed = io.BytesIO()
    with audio.AudioWriter(streamed, "pcm", SR) as writer:
        for piece in np.array_split(tone(1.0), 9):
            writer.write(piece)
    assert streamed.getvalue() == data


@pytest.mark.parametrize("hz", [15_000, 18_000, 21_000])
def test_pcm_resampling_filters_what_24_khz_cannot_hold(hz):
    """Above 12 kHz a tone would fold back into the band as a false one (18 kHz as 6 kHz); the
    resampler's low-pass leaves it at least 60 dB down."""
    t = np.arange(SR) / SR
    decoded = np.frombuffer(audio.encode((0.5 * np.sin(2 * np.pi * hz * t)).astype(np.float32), SR, "pcm"), dtype="<i2")
    rms = np.sqrt(np.mean((decoded[200:-200] / 32767.0) ** 2))
    assert 20 * np.log10(rms / (0.5 / np.sqrt(2))) < -60


def test_streamed_chunks_equal_one_shot_encoding(tmp_path):
    samples = tone(1.0)
    pieces = np.array_split(samples, 7)
    with audio.AudioWriter(tmp_path / "x.flac", "flac", SR) as writer:
        for piece in pieces:
            writer.write(piece)
    assert writer.frames == samples.size
    assert writer.bytes_written == (tmp_path / "x.flac").stat().st_size
    decoded, _ = sf.read(tmp_path / "x.flac", dtype="int16")
    np.testing.assert_array_equal(decoded, audio.to_pcm16(samples))


def test_resample_keeps_a_tone_at_its_frequency():
    out = audio.resample(tone(1.0), SR, 48_000)
    assert out.size == 48_000
    spectrum = np.abs(np.fft.rfft(out))
    assert abs(np.argmax(spectrum) - 440) <= 1


def test_resampling_in_pieces_gives_exactly_the_whole_signals_samples():
    signal = tone(1.3) * np.linspace(0.2, 1.0, int(SR * 1.3), dtype=np.float32)
    whole = audio.resample(signal, SR, 48_000)
    resampler = audio.Resampler(SR, 48_000)
    cuts = [0, 1, 3072, 9000, 30001, 40000, signal.size]
    pieces = [resampler.process(signal[a:b]) for a, b in itertools.pairwise(cuts)]
    pieces.append(resampler.process(np.zeros(0, np.float32), final=True))
    np.testing.assert_array_equal(np.concatenate(pieces), whole)


def test_resampled_tone_matches_the_tone_at_the_new_rate():
    out = audio.resample(tone(1.0), SR, 48_000)
    t = np.arange(out.size) / 48_000
    expected = 0.5 * np.sin(2 * np.pi * 440 * t)
    middle = slice(100, -100)  # the edges see the signal start from and return to silence
    assert np.abs(out[middle] - expected[middle]).max() < 2e-3


def test_streamed_opus_equals_one_shot_opus():
    if "opus" not in audio.available_formats():
        pytest.skip("this libsndfile has no Opus encoder")
    samples = tone(1.0)
    streamed = io.BytesIO()
    with audio.AudioWriter(streamed, "opus", SR) as writer:
        for piece in np.array_split(samples, 5):
            writer.write(piece)
    decoded_streamed, _ = sf.read(io.BytesIO(streamed.getvalue()), dtype="float32")
    decoded_whole, _ = sf.read(io.BytesIO(audio.encode(samples, SR, "opus")), dtype="float32")
    np.testing.assert_array_equal(decoded_streamed, decoded_whole)


# Minutes of audio in one call: libsndfile's Vorbis writer segfaulted past ~47 s in one write.
LONG_AUDIO_S = 180
ENCODE_ALL = """
import sys
import time
import numpy as np
from supertonic_engine import audio
noise = (np.random.RandomState(0).randn({frames}) * 0.3).astype(np.float32)
for fmt in audio.available_formats():
    with open(f"{{sys.argv[1]}}/long.{{fmt}}", "wb") as out:
        out.write(audio.encode(noise, {rate}, fmt))
"""


def test_minutes_of_audio_encode_to_valid_files_in_every_format(tmp_path):
    # In a child process: a crash in the codec must fail this test, not end the test run.
    frames = LONG_AUDIO_S * SR
    script = ENCODE_ALL.format(frames=frames, rate=SR)
    child = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, f"encoding died with status {child.returncode}: {child.stderr[-2000:]}"
    noise = (np.random.RandomState(0).randn(frames) * 0.3).astype(np.float32)
    for fmt in audio.available_formats():
        data = (tmp_path / f"long.{fmt}").read_bytes()
        if fmt == "pcm":
            np.testing.assert_array_equal(np.frombuffer(data, dtype="<i2"), audio.to_pcm16(audio.resample(noise, SR, 24_000)))
            continue
        decoded, rate = sf.read(io.BytesIO(data), dtype="int16" if fmt in ("wav", "flac") else "float32")
        assert rate == (audio.FORMATS[fmt].sample_rate or SR), fmt
        if fmt in ("wav", "flac"):  # lossless: every sample survives the blocks
            np.testing.assert_array_equal(decoded, audio.to_pcm16(noise))
        else:  # lossy: the whole length, give or take the codec's padding
            assert abs(decoded.shape[0] / rate - LONG_AUDIO_S) < 0.1, fmt
            assert np.isfinite(decoded).all() and np.abs(decoded).max() > 0.1, fmt


def test_resampling_costs_about_as_much_as_filtering_the_signal_once():
    """Opus answers resample every sample; the cost, measured against a plain FIR filter with the
    same number of taps over the same signal, must stay a small multiple of it (one windowed-sinc
    evaluation per output sample made it about two hundred times; now about ten)."""
    signal = np.random.RandomState(0).randn(SR * 10).astype(np.float32)
    taps = np.hanning(2 * audio.Resampler.HALF_TAPS + 1)

    def best_of_five(work) -> float:
        times = []
        for _ in range(5):
            started = time.perf_counter()
            work()
            times.append(time.perf_counter() - started)
        return min(times)

    filtering = best_of_five(lambda: np.convolve(signal.astype(np.float64), taps))
    resampling = best_of_five(lambda: audio.resample(signal, SR, 48_000))
    assert resampling < 60 * filtering, f"resampling took {resampling:.3f} s, filtering {filtering:.3f} s"


def test_a_check_before_each_block_can_stop_a_long_encode():
    calls = []

    def check() -> None:
        calls.append(len(calls))
        if len(calls) == 3:
            raise TimeoutError("the deadline passed")

    with pytest.raises(TimeoutError), audio.AudioWriter(io.BytesIO(), "ogg", SR, before_block=check) as writer:
        writer.write(np.zeros(audio.BLOCK_FRAMES * 10, np.float32))
    assert len(calls) == 3  # stopped at the third of ten blocks, not after the whole signal
