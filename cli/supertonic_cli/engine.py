"""Engine subcommands of ``supertonic-lambda``: synthesize, normalize, make-model, fetch-model, verify-model, prepare-model.

Without ``--model`` or ``SUPERTONIC_MODEL_DIR`` they use the tiny stand-in, which the build tools make.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from supertonic_engine import Engine, audio
from supertonic_engine.assets import load_assets
from supertonic_engine.deadline import Deadline
from supertonic_engine.errors import InvalidParameter
from supertonic_engine.marks import CAPTION_FORMATS, check_mark_types, json_lines
from supertonic_engine.options import DEFAULT_LANG, DEFAULT_SPEED, DEFAULT_STEPS, DEFAULT_VOICE, SynthesisOptions
from supertonic_engine.preparation import Preparer
from supertonic_engine.standin_marker import NOTE as STANDIN_NOTICE
from supertonic_engine.text.ssml import TEXT_TYPES
from supertonic_tools import prepare
from supertonic_tools.models import locate_model


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("synthesize", help="text to an audio file")
    p.add_argument("text", help="the text to speak; '-' reads standard input")
    p.add_argument("-o", "--output", required=True, help="audio file to write (format from --format or the extension)")
    p.add_argument("--voice", default=DEFAULT_VOICE)
    p.add_argument("--lang", default=DEFAULT_LANG)
    p.add_argument("--steps", type=int, default=DEFAULT_STEPS)
    p.add_argument("--speed", type=float, default=DEFAULT_SPEED)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--format", default=None, help="wav, flac, ogg, mp3, opus, pcm; srt or vtt: captions instead of audio")
    p.add_argument(
        "--marks",
        default=None,
        metavar="TYPE[,TYPE]",
        help="sentence, word or both: write Polly-style speech marks (JSON lines) to -o instead of audio",
    )
    p.add_argument(
        "--chunking",
        default="packed",
        choices=("packed", "sentence"),
        help="packed (the official chunks) or sentence: one sentence a chunk, so every sentence mark is exact",
    )
    p.add_argument(
        "--first-chunk-chars",
        type=int,
        default=None,
        metavar="N",
        help="a first chunk of at most N characters, later ones doubling up to the usual size: earlier first audio, some prosody lost",
    )
    p.add_argument(
        "--first-chunk-steps",
        type=int,
        default=None,
        metavar="N",
        help="flow steps for the first chunk only (4 of 8 nearly halves its render)",
    )
    p.add_argument("--trim-silence", action="store_true", help="cut each chunk's silence to 80 ms before its speech and 200 ms after")
    p.add_argument("--timeout", type=float, default=None, help="hard deadline in seconds")
    p.add_argument("--no-normalize", action="store_true", help="read the text as given (no number/date/lexicon rewriting)")
    _text_type_argument(p)
    p.add_argument("--json", action="store_true", help="print the result's metadata as JSON")
    _model_argument(p)
    p.set_defaults(func=_synthesize)

    p = subparsers.add_parser("normalize", help="print the exact text the model will read")
    p.add_argument("text", help="the text; '-' reads standard input")
    p.add_argument("--lang", default=DEFAULT_LANG)
    p.add_argument(
        "--no-normalize",
        action="store_true",
        help="show only the model's own processing (and the folding of characters it cannot read, docs/readable-characters.md)",
    )
    _text_type_argument(p)
    _model_argument(p)
    p.set_defaults(func=_normalize)

    p = subparsers.add_parser("make-model", help="write a stand-in model (random weights: noise, not speech)")
    p.add_argument("--size", choices=("tiny", "full"), default="tiny")
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_make_model)

    p = subparsers.add_parser("fetch-model", help="download the real Supertonic 3 release (pinned revision, every file verified)")
    p.add_argument("--out", required=True)
    p.add_argument("--revision", default=None, help="another model hub revision (checked for layout only, not against the release)")
    p.set_defaults(func=_fetch_model)

    p = subparsers.add_parser("verify-model", help="check a model directory file by file against the release's sizes and SHA-256")
    p.add_argument("model_dir", metavar="DIR")
    p.set_defaults(func=_verify_model)

    prepare.register(subparsers)


def _model_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=None, help="model directory (default: $SUPERTONIC_MODEL_DIR, else the tiny stand-in)")


def _text_type_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--text-type", default=None, choices=TEXT_TYPES, help="ssml or text (default: SSML when the text starts with <speak>)")


def _read_text(arg: str) -> str:
    return sys.stdin.read() if arg == "-" else arg


def _synthesize(args: argparse.Namespace) -> int:
    fmt = (args.format or Path(args.output).suffix.lstrip(".") or "wav").lower()
    described = args.marks is not None or fmt in CAPTION_FORMATS
    if args.marks is not None:
        check_mark_types(args.marks, "--marks")  # before the model loads
    elif not described:
        audio.audio_format(fmt)  # an unknown format fails before the model loads
    options = SynthesisOptions(
        voice=args.voice,
        lang=args.lang,
        steps=args.steps,
        speed=args.speed,
        seed=args.seed,
        normalize=not args.no_normalize,
        chunking=args.chunking,
        first_chunk_chars=args.first_chunk_chars,
        first_chunk_steps=args.first_chunk_steps,
        trim_silence=args.trim_silence,
    )
    if described:
        return _describe(args, options, fmt)
    started = time.perf_counter()
    engine = Engine.load(locate_model(args.model))
    load_s = time.perf_counter() - started
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    # Written to a temporary file beside the target and renamed: a failure leaves no half file.
    fd, partial = tempfile.mkstemp(prefix=f".{output.name}.", dir=output.parent)
    os.close(fd)
    try:
        deadline = Deadline(args.timeout)
        prepared = engine.prepare(_read_text(args.text), options, format=fmt, text_type=args.text_type)
        with audio.AudioWriter(partial, prepared.format, engine.sample_rate, before_block=deadline.check) as writer:
            result = engine.synthesize(prepared, deadline=deadline, into=writer)
        os.chmod(partial, 0o666 & ~_umask())  # mkstemp's 0600 was for the half-written file only
        os.replace(partial, output)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    options = prepared.options  # a blend's canonical name: "F1:7,M2:3" is reported as "F1:0.7,M2:0.3"
    file_rate = prepared.format.sample_rate or engine.sample_rate  # pcm is 24 kHz, opus 48 kHz
    summary = {
        "output": str(output),
        "format": audio.audio_format(fmt).name,
        "duration_s": round(result.duration_s, 3),
        "sample_rate": file_rate,
        "synth_s": round(result.synth_ms / 1000, 3),
        "encode_s": round(result.encode_ms / 1000, 3),
        "load_s": round(load_s, 3),
        "rtf": round(result.rtf, 4),
        "chunks": [asdict(t) for t in result.chunks],
        "voice": options.voice,
        "lang": options.lang,
        "steps": options.steps,
        "model": engine.model_kind,
        "model_dir": str(engine.model_dir),
    }
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        print(
            f"wrote {output}: {result.duration_s:.2f} s of audio at {file_rate} Hz in {summary['synth_s']:.2f} s "
            f"(RTF {summary['rtf']}), {len(result.chunks)} chunk(s), voice {options.voice}, lang {options.lang}, "
            f"model: {engine.model_kind}" + (f" ({STANDIN_NOTICE})" if engine.model_kind == "stand-in" else "")
        )
    return 0


def _describe(args: argparse.Namespace, options: SynthesisOptions, fmt: str) -> int:
    """Speech marks or captions of the audio the same command would write, from the durations alone."""
    engine = Engine.load(locate_model(args.model))
    prepared = engine.prepare(_read_text(args.text), options, text_type=args.text_type)
    if args.marks is not None:
        marks = engine.marks(prepared, args.marks, deadline=args.timeout)
        body = json_lines(marks)
        what = f"{len(marks)} speech mark(s)"
    else:
        body = engine.captions(prepared, fmt, deadline=args.timeout)
        what = f"{fmt} captions"
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(body, encoding="utf-8")
    print(
        f"wrote {output}: {what}, voice {options.voice}, lang {options.lang}, model: {engine.model_kind}"
        + (f" ({STANDIN_NOTICE}; its timings are real)" if engine.model_kind == "stand-in" else "")
    )
    return 0


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _normalize(args: argparse.Namespace) -> int:
    preparer = Preparer(load_assets(locate_model(args.model)))
    options = SynthesisOptions(lang=args.lang, normalize=not args.no_normalize)
    print(preparer.prepare(_read_text(args.text), options, text_type=args.text_type).model_text)
    return 0


def _make_model(args: argparse.Namespace) -> int:
    from supertonic_tools.standin import make_model

    started = time.perf_counter()
    out = make_model(args.out, size=args.size, seed=args.seed)
    print(f"wrote the {args.size} stand-in model to {out} in {time.perf_counter() - started:.1f} s (stand-in: {STANDIN_NOTICE})")
    return 0


def _fetch_model(args: argparse.Namespace) -> int:
    from supertonic_tools.fetch import fetch_model

    out = fetch_model(args.out, revision=args.revision)
    print(f"downloaded Supertonic 3 to {out}; use it with --model {out} or SUPERTONIC_MODEL_DIR={out}")
    return 0


def _verify_model(args: argparse.Namespace) -> int:
    from supertonic_tools.fetch import RELEASE_FILES
    from supertonic_tools.verify import check_model

    root = Path(args.model_dir).expanduser()
    if not root.is_dir():
        raise InvalidParameter(f"{root} is not a directory; name a model directory", field="model_dir")
    result = check_model(root, RELEASE_FILES)
    for check in result.files:
        print(check.describe())
    print(f"verdict: {result.summary()}")
    return 0 if result.ok else 1
