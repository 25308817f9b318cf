"""The engine on the tiny stand-in: output shape, timings, equality with the official package, errors."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from supertonic_engine import Engine, SessionConfig, SynthesisOptions
from supertonic_engine.errors import (
    EmptyText,
    InvalidParameter,
    TextTooLong,
    UnknownLanguage,
    UnknownVoice,
    UnsupportedCharacters,
)

FRAME = 3072
SR = 44_100
EN = "The quick brown fox jumps over the lazy dog."
KO = "안녕하세요, 오늘 날씨가 참 좋네요."


@pytest.fixture(scope="module")
def engine(tiny_model_dir) -> Engine:
    return Engine.load(tiny_model_dir, session_config=SessionConfig(intra_op_threads=2))


def test_engine_reports_what_model_it_runs(engine, tiny_model_dir):
    assert engine.model_kind == "stand-in"
    assert engine.model_dir == tiny_model_dir
    assert engine.sample_rate == SR
    assert engine.voices == sorted(f"{g}{i}" for g in "FM" for i in range(1, 6))
    assert {"en", "ko", "ja", "na"} <= set(engine.languages) and len(engine.languages) == 32


def test_one_chunk_gives_whole_latent_frames_of_bounded_audio(engine):
    result = engine.synthesize(EN, SynthesisOptions(voice="F2", lang="en", steps=2, seed=1))
    assert result.audio.dtype == np.float32 and result.audio.ndim == 1
    assert result.audio.size % FRAME == 0 and result.audio.size > 0
    assert np.isfinite(result.audio).all() and np.abs(result.audio).max() <= 1.0
    assert result.model_kind == "stand-in"
    [chunk] = result.chunks
    assert chunk.start_s == 0 and chunk.end_s == pytest.approx(result.duration_s)
    assert 0 < chunk.speech_s <= chunk.end_s
    assert result.synth_ms > 0 and result.rtf == pytest.approx(result.synth_ms / 1000 / result.duration_s)
    assert result.text == f"<en>{EN}</en>"


def test_chunks_are_separated_by_the_requested_silence(engine):
    text = "First sentence is here. " * 6 + "\n\n" + "Second paragraph follows now."
    result = engine.synthesize(text, SynthesisOptions(steps=1, seed=3, max_chunk_chars=60, silence_s=0.25))
    assert len(result.chunks) >= 3
    gap = int(0.25 * SR)
    for previous, current in itertools.pairwise(result.chunks):
        assert round((current.start_s - previous.end_s) * SR) == gap
        silence = result.audio[round(previous.end_s * SR) : round(current.start_s * SR)]
        assert silence.size == gap and not silence.any()
    assert result.chunks[-1].end_s == pytest.approx(result.duration_s)
    assert all(len(c.text) <= 60 for c in result.chunks)


def test_a_seed_makes_output_reproducible_and_different_seeds_differ(engine):
    a = engine.synthesize(EN, SynthesisOptions(steps=2, seed=7)).audio
    b = engine.synthesize(EN, SynthesisOptions(steps=2, seed=7)).audio
    c = engine.synthesize(EN, SynthesisOptions(steps=2, seed=8)).audio
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_korean_is_read_as_jamo_inside_language_tags(engine):
    text = engine.prepare(KO, SynthesisOptions(lang="ko", normalize=False)).model_text
    assert text.startswith("<ko>") and text.endswith("</ko>")
    assert "\u1100" <= text[4] <= "\u11ff"  # NFKD turned the syllable 안 into conjoining jamo
    result = engine.synthesize(KO, SynthesisOptions(lang="ko", steps=1, seed=0))
    assert result.duration_s > 0.5


def test_speed_shortens_the_audio(engine):
    slow = engine.synthesize(EN * 3, SynthesisOptions(steps=1, seed=0, speed=0.8))
    fast = engine.synthesize(EN * 3, SynthesisOptions(steps=1, seed=0, speed=1.6))
    assert fast.duration_s < slow.duration_s


def test_stream_yields_the_same_audio_as_synthesize(engine):
    text = "One. Two is here. Three comes last."
    whole = engine.synthesize(text, SynthesisOptions(steps=1, seed=5, max_chunk_chars=12)).audio
    pieces = [p.samples for p in engine.stream(text, SynthesisOptions(steps=1, seed=5, max_chunk_chars=12))]
    assert len(pieces) == 4  # "Three comes last." is longer than 12 and splits at its space
    np.testing.assert_array_equal(np.concatenate(pieces), whole)


@pytest.mark.parametrize(
    "kwargs, error, field",
    [
        ({"text": ""}, EmptyText, "text"),
        ({"text": "   \n\t "}, EmptyText, "text"),
        ({"text": "🙂🙂"}, EmptyText, "text"),
        ({"text": "x" * 1_000_001}, TextTooLong, "text"),
        ({"text": "Hello ᚠ world"}, UnsupportedCharacters, "text"),
        ({"voice": "Z9"}, UnknownVoice, "voice"),
        ({"lang": "xx"}, UnknownLanguage, "lang"),
        ({"steps": 0}, InvalidParameter, "steps"),
        ({"steps": 101}, InvalidParameter, "steps"),
        ({"steps": 2.5}, InvalidParameter, "steps"),
        ({"steps": True}, InvalidParameter, "steps"),
        ({"speed": 0.5}, InvalidParameter, "speed"),
        ({"speed": float("nan")}, InvalidParameter, "speed"),
        ({"speed": "fast"}, InvalidParameter, "speed"),
        ({"seed": -1}, InvalidParameter, "seed"),
        ({"text": 42}, InvalidParameter, "text"),
    ],
)
def test_bad_input_raises_a_typed_error_naming_the_field(engine, kwargs, error, field):
    call = {"text": EN, **kwargs}
    with pytest.raises(error) as err:
        text = call.pop("text")
        engine.synthesize(text, SynthesisOptions(**call))
    assert err.value.field == field
    assert err.value.message


def test_unsupported_characters_are_named(engine):
    with pytest.raises(UnsupportedCharacters) as err:
        engine.synthesize("Runes ᚠ and ⌘ here, emoji 🙂 are dropped", SynthesisOptions(steps=1))
    assert err.value.characters == ["ᚠ", "⌘"]
    assert "RUNIC LETTER FEHU FEOH FE F" in err.value.message and "PLACE OF INTEREST SIGN" in err.value.message


def test_equal_to_the_official_package_for_the_same_noise(tiny_model_dir, engine):
    """Same model, text, voice, steps, speed and noise: the official supertonic package's waveform."""
    from supertonic import TTS

    official = TTS(model_dir=tiny_model_dir, auto_download=False, intra_op_num_threads=2, inter_op_num_threads=1)
    text = "Hello there. This is a test of two chunks, with a comma! And a third sentence?"
    for lang, voice, steps, speed, max_len in (("en", "M3", 4, 1.05, 50), ("ko", "F1", 2, 1.3, 120)):
        source = text if lang == "en" else KO
        np.random.seed(1234)
        expected, _ = official.synthesize(
            source,
            voice_style=official.get_voice_style(voice),
            total_steps=steps,
            speed=speed,
            lang=lang,
            max_chunk_length=max_len,
        )
        ours = engine.synthesize(
            source, SynthesisOptions(voice=voice, lang=lang, steps=steps, speed=speed, seed=1234, normalize=False, max_chunk_chars=max_len)
        )
        assert ours.audio.shape == expected.reshape(-1).shape
        np.testing.assert_allclose(ours.audio, expected.reshape(-1), rtol=0, atol=1e-6)


def test_synthesize_into_a_writer_equals_encoding_the_whole_result(engine, tmp_path):
    from supertonic_engine import AudioWriter, encode

    text = "First sentence here. Second one follows. And a third."
    options = SynthesisOptions(steps=1, seed=11, max_chunk_chars=25)
    whole = engine.synthesize(text, options)
    prepared = engine.prepare(text, options, format="wav")
    with AudioWriter(tmp_path / "out.wav", prepared.format, engine.sample_rate) as writer:
        streamed = engine.synthesize(prepared, into=writer)
    assert streamed.audio is None and streamed.frames == whole.audio.size
    assert [(c.text, c.start_s, c.end_s) for c in streamed.chunks] == [(c.text, c.start_s, c.end_s) for c in whole.chunks]
    assert (tmp_path / "out.wav").read_bytes() == encode(whole.audio, whole.sample_rate, "wav")
    assert streamed.encode_ms > 0 and streamed.duration_s == pytest.approx(whole.duration_s)


def test_limits_refuse_text_that_reads_long_before_any_audio_is_made(engine):
    from supertonic_engine import Limits
    from supertonic_engine.errors import SpokenTextTooLong

    # 60 characters as written, 299 as read ("nine nine ... nine"): the written length says little.
    limits = Limits(max_text_chars=100, max_spoken_chars=200)
    with pytest.raises(SpokenTextTooLong) as err:
        engine.prepare("9" * 60, SynthesisOptions(steps=1), limits=limits)
    assert err.value.field == "text" and isinstance(err.value, TextTooLong)
    assert "299 characters" in err.value.message and "limit is 200" in err.value.message
    # The engine's own advice: a route that takes longer texts is the caller's to name.
    assert err.value.caller_bound and err.value.message.endswith("Split it into shorter texts.")
    assert "job" not in err.value.message
    assert err.value.advised("Use a job.").endswith("limit is 200. Use a job.")


def test_the_forecast_bounds_the_audio_and_synthesis_reuses_it(engine):
    from supertonic_engine import Limits
    from supertonic_engine.errors import AudioTooLong

    # One-letter paragraphs: few characters, one chunk each, and the silence between them.
    text = "A.\n\nB.\n\nC.\n\nD.\n\nE.\n\nF."
    options = SynthesisOptions(steps=2, seed=5)
    whole = engine.synthesize(text, options)
    with pytest.raises(AudioTooLong) as err:
        engine.synthesize(engine.prepare(text, options, limits=Limits(max_audio_s=whole.duration_s * 0.8)))
    assert err.value.field == "text" and "s of audio; the limit is" in err.value.message
    assert whole.duration_s * 0.8 < err.value.length <= whole.duration_s
    # The forecast is within a latent frame per chunk of the audio made, and the audio is unchanged.
    forecast = sum(c.speech_s for c in whole.chunks) + 0.3 * (len(whole.chunks) - 1)
    assert 0 <= whole.duration_s - forecast <= len(whole.chunks) * FRAME / SR
    bounded = engine.synthesize(engine.prepare(text, options, limits=Limits(max_audio_s=whole.duration_s * 1.2)))
    np.testing.assert_array_equal(bounded.audio, whole.audio)
    assert [c.speech_s for c in bounded.chunks] == [c.speech_s for c in whole.chunks]


def test_time_kept_back_for_delivery_that_leaves_none_refuses_to_start(engine):
    from supertonic_engine import Limits
    from supertonic_engine.errors import DeadlineExceeded

    # One second of delivery per second of audio cannot fit a 2 s deadline for several seconds of audio.
    with pytest.raises(DeadlineExceeded) as err:
        engine.synthesize(engine.prepare(EN * 3, SynthesisOptions(steps=1), limits=Limits(after_s_per_audio_s=1.0)), deadline=2.0)
    assert err.value.message.startswith("no time was left to start synthesis")
    assert "delivering about" in err.value.message and "0/0 chunks" not in err.value.message
    # The engine advises only what it knows; another way out (a job) is the caller's to add.
    assert err.value.message.endswith("Send shorter text or fewer steps.") and "job" not in err.value.message
    assert re.search(r"kept for delivering about [\d,]+ s of audio\. Use a job\.$", err.value.advised("Use a job."))


def test_prepare_checks_the_whole_request_before_any_audio_and_streams_as_given(engine):
    from supertonic_engine.errors import UnsupportedFormat

    options = SynthesisOptions(voice="F1", steps=1, seed=2)
    prepared = engine.prepare(EN, options, format="FLAC")
    assert (prepared.format.name, prepared.options, prepared.model_text) == ("flac", options, f"<en>{EN}</en>")
    with pytest.raises(UnsupportedFormat) as err:
        engine.prepare(EN, options, format="aac")
    assert err.value.field == "format"
    np.testing.assert_array_equal(engine.synthesize(prepared).audio, engine.synthesize(EN, options).audio)
    with pytest.raises(TypeError):  # a Prepared carries its options: no second set to disagree with
        engine.stream(prepared, SynthesisOptions(steps=2))
