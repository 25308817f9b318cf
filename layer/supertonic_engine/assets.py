"""The model directory in the official Supertonic 3 layout, checked and read once.

    onnx/duration_predictor.onnx  onnx/text_encoder.onnx  onnx/vector_estimator.onnx
    onnx/vocoder.onnx  onnx/tts.json  onnx/unicode_indexer.json  voice_styles/{M1..M5,F1..F5}.json

Any other ``voice_styles/NAME.json`` in the same shape is a custom voice named NAME. Voices are
read when first used, so a malformed file fails only the requests for its voice. A stock graph may
be absent where a prepared set lists it (the image ships each graph once: ``prepared.py``); whether
that copy can load here is the sessions' to judge.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from . import config, prepared
from .errors import ModelCorrupt, ModelMissing, UnknownVoice, VoiceFileCorrupt, clipped, quoted
from .model_layout import CONFIG_FILE, INDEXER_FILE, VOICES_DIR, graph_files
from .standin_marker import is_legacy_standin
from .voice_blend import ITEM_SEPARATOR, WEIGHT_SEPARATOR, is_blend, mix, parse_blend

logger = logging.getLogger(__name__)

BLEND_CACHE_SIZE = 64  # blended styles kept, least recently used dropped: a hot blend is mixed once

_FIX = (
    "Point SUPERTONIC_MODEL_DIR (or --model) at a complete model directory: "
    "`supertonic-lambda fetch-model --out DIR` downloads the real weights, "
    "`supertonic-lambda make-model --size tiny --out DIR` writes a stand-in."
)


@dataclass(frozen=True)
class VoiceStyle:
    """The two style tensors that are a voice: ``ttl`` [1,50,256] and ``dp`` [1,8,16]."""

    name: str
    ttl: np.ndarray
    dp: np.ndarray


@dataclass
class ModelAssets:
    """Paths, configuration, indexer and voices of one model directory."""

    root: Path
    tts_config: dict
    voice_paths: dict[str, Path]
    _voices: dict[str, VoiceStyle] = field(default_factory=dict, repr=False)
    _blends: OrderedDict[str, VoiceStyle] = field(default_factory=OrderedDict, repr=False)

    @property
    def sample_rate(self) -> int:
        return int(self.tts_config["ae"]["sample_rate"])

    @property
    def samples_per_frame(self) -> int:
        """Waveform samples per latent frame: base chunk size x compression factor (512 x 6)."""
        return int(self.tts_config["ae"]["base_chunk_size"]) * int(self.tts_config["ttl"]["chunk_compress_factor"])

    @property
    def latent_channels(self) -> int:
        return int(self.tts_config["ttl"]["latent_dim"]) * int(self.tts_config["ttl"]["chunk_compress_factor"])

    def graph_path(self, name: str) -> Path:
        return graph_files(self.root)[name]

    @cached_property
    def indexer(self) -> np.ndarray:
        """Token id per code point (-1 = the model cannot read it)."""
        path = self.root / INDEXER_FILE
        data = _read_json(path)
        if not isinstance(data, list) or not data or not all(isinstance(v, int) for v in data[:256]):
            raise ModelCorrupt(f"{path} must be a non-empty JSON list of token ids. {_FIX}")
        return np.asarray(data, dtype=np.int64)

    @property
    def voices(self) -> list[str]:
        return sorted(self.voice_paths)

    def voice(self, name: str) -> VoiceStyle:
        """One voice (``F1``) or a blend (``F1:0.7,M2:0.3``, see ``voice_blend``); the style's
        ``name`` is the canonical one. Unknown names list the available ones."""
        if not is_blend(name):
            return self._file_voice(name)
        blend = parse_blend(name)
        cached = self._blends.get(blend.name)
        if cached is not None:
            self._blends.move_to_end(blend.name)
            return cached
        styles = [self._file_voice(voice, blend=name) for voice in blend.voices]
        if len(styles) == 1:
            return styles[0]  # a blend of one voice is the voice, bit for bit
        style = VoiceStyle(blend.name, mix(blend, [s.ttl for s in styles]), mix(blend, [s.dp for s in styles]))
        self._blends[blend.name] = style
        if len(self._blends) > BLEND_CACHE_SIZE:
            self._blends.popitem(last=False)
        return style

    def _file_voice(self, name: str, blend: str | None = None) -> VoiceStyle:
        """A voice file's style, read once and kept."""
        cached = self._voices.get(name)
        if cached is not None:
            return cached
        path = self.voice_paths.get(name)
        if path is None:
            raise UnknownVoice(name, self.voice_paths, blend)
        style = _read_voice(name, path)
        self._voices[name] = style
        return style


def resolve_model_dir(model_dir: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Path | None:
    """The model directory from the argument, else ``SUPERTONIC_MODEL_DIR``; None when neither is set."""
    env = os.environ if env is None else env
    chosen = model_dir if model_dir not in (None, "") else env.get(config.ENV_MODEL_DIR) or None
    return Path(chosen).expanduser() if chosen else None


def load_assets(model_dir: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> ModelAssets:
    """Check that every file is there and readable; a missing or corrupt file names itself and the fix.

    ``env`` (default ``os.environ``) says where the prepared sets are, as it does to ``load_sessions``:
    a stock graph that one of them stands in for may be absent."""
    root = Path(model_dir).expanduser()
    if not root.is_dir():
        raise ModelMissing(f"model directory {root} does not exist. {_FIX}")
    graphs = graph_files(root)
    if not all(path.is_file() for path in graphs.values()):
        stand_in = prepared.listed(root, env)
        graphs = {name: path for name, path in graphs.items() if path.is_file() or name not in stand_in}
    missing = [str(path.relative_to(root)) for path in graphs.values() if not path.is_file()]
    missing += [name for name in (CONFIG_FILE, INDEXER_FILE) if not (root / name).is_file()]
    voice_paths = _voice_files(root / VOICES_DIR)
    if not voice_paths:
        missing.append(f"{VOICES_DIR}/*.json")
    if missing:
        raise ModelMissing(f"model directory {root} lacks {', '.join(missing)}. {_FIX}")
    for path in graphs.values():
        if path.is_file() and path.stat().st_size == 0:
            raise ModelCorrupt(f"{path} is empty. {_FIX}")

    tts_config = _read_json(root / CONFIG_FILE)
    if not isinstance(tts_config, dict):
        raise ModelCorrupt(
            f"{root / CONFIG_FILE} holds a JSON {type(tts_config).__name__}, not an object: it is not a Supertonic tts.json. {_FIX}"
        )
    try:
        for section, key in (("ae", "sample_rate"), ("ae", "base_chunk_size"), ("ttl", "chunk_compress_factor"), ("ttl", "latent_dim")):
            int(tts_config[section][key])
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelCorrupt(f"{root / CONFIG_FILE} lacks {exc}: it is not a Supertonic tts.json. {_FIX}") from None
    if is_legacy_standin(tts_config):
        raise ModelCorrupt(
            f"{root} is a stand-in from an earlier generator, whose JSON files were not the release's: regenerate it with "
            "`supertonic-lambda make-model --size tiny|full --out DIR`, or fetch the real model with `fetch-model --out DIR`."
        )
    assets = ModelAssets(root=root, tts_config=tts_config, voice_paths=voice_paths)
    logger.info("model directory %s, %d voices", root, len(voice_paths))
    return assets


def _read_json(path: Path) -> object:
    try:
        with path.open("rb") as f:
            return json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelCorrupt(f"{path} is not valid JSON ({exc}). {_FIX}") from None
    except OSError as exc:
        raise ModelMissing(f"{path} cannot be read ({exc.strerror}). {_FIX}") from None


def _voice_files(directory: Path) -> dict[str, Path]:
    """``NAME.json`` -> NAME for every voice file; a name a blend could not spell is skipped, with a warning."""
    found = {}
    for path in sorted(directory.glob("*.json")):
        if ITEM_SEPARATOR in path.stem or WEIGHT_SEPARATOR in path.stem or path.stem != path.stem.strip():
            logger.warning(
                "ignoring voice file %s: a voice name cannot hold %r or %r or start or end with a space; rename the file",
                path,
                ITEM_SEPARATOR,
                WEIGHT_SEPARATOR,
            )
            continue
        found[path.stem] = path
    return found


_VOICE_SHAPES = {"style_ttl": (1, 50, 256), "style_dp": (1, 8, 16)}
VOICE_DTYPE = "float32"  # what the official files' "type" says, and what the graphs take
_VOICE_FIX = (
    "Replace it with a file in the official voice_styles shape: "
    '{"style_ttl": {"dims": [1, 50, 256], "data": [...]}, "style_dp": {"dims": [1, 8, 16], "data": [...]}}'
)
# What numpy makes of a JSON list that is not all numbers, by the kind of array it becomes.
_NOT_NUMBERS = {"U": "text", "b": "true/false", "O": "null, objects, ragged lists or whole numbers beyond 64 bits"}


def _read_voice(name: str, path: Path) -> VoiceStyle:
    """The voice in ``path``; ``VoiceFileCorrupt`` names the file as ``voice_styles/NAME.json``, which
    a caller may see (a full path stays in the logs)."""
    where = f"{VOICES_DIR}/{path.name}"
    try:
        data = json.loads(path.read_bytes())
    except OSError as exc:
        raise VoiceFileCorrupt(f"voice file {where} cannot be read ({exc.strerror}). {_VOICE_FIX}") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError; their text holds no path
        raise VoiceFileCorrupt(f"voice file {where} is not valid JSON ({clipped(str(exc))}). {_VOICE_FIX}") from None
    except RecursionError:  # lists nested thousands deep: deeper than the JSON reader may recurse
        raise VoiceFileCorrupt(f"voice file {where} nests its JSON too deeply to read. {_VOICE_FIX}") from None
    if not isinstance(data, dict):
        held = "null" if data is None else type(data).__name__
        raise VoiceFileCorrupt(f"voice file {where} holds a JSON {held}, not an object. {_VOICE_FIX}")
    ttl, dp = (_voice_tensor(where, key, data.get(key), shape) for key, shape in _VOICE_SHAPES.items())
    return VoiceStyle(name=name, ttl=ttl, dp=dp)


def _voice_tensor(where: str, key: str, entry: object, shape: tuple[int, ...]) -> np.ndarray:
    """One style tensor of a voice file as float32 of ``shape``, or ``VoiceFileCorrupt`` saying what is wrong with it."""
    if not isinstance(entry, dict):
        raise VoiceFileCorrupt(f"voice file {where} has no {key!r} object. {_VOICE_FIX}")
    dtype = entry.get("type", VOICE_DTYPE)
    if dtype != VOICE_DTYPE:
        raise VoiceFileCorrupt(f"voice file {where}: {key}.type is {quoted(dtype)}, expected {VOICE_DTYPE!r}. {_VOICE_FIX}")
    if entry.get("dims") != list(shape):
        raise VoiceFileCorrupt(f"voice file {where}: {key}.dims is {quoted(entry.get('dims'))}, expected {list(shape)}. {_VOICE_FIX}")
    try:
        values = np.asarray(entry.get("data"))
    except ValueError:  # lists of unequal lengths
        raise VoiceFileCorrupt(
            f"voice file {where}: {key}.data is not a list of numbers (its lists differ in length). {_VOICE_FIX}"
        ) from None
    if values.dtype.kind not in "iuf" or values.ndim == 0:
        held = "a single value" if values.ndim == 0 else _NOT_NUMBERS.get(values.dtype.kind, values.dtype.name)
        raise VoiceFileCorrupt(f"voice file {where}: {key}.data must be a list of numbers; it holds {held}. {_VOICE_FIX}")
    if values.size != math.prod(shape):
        raise VoiceFileCorrupt(
            f"voice file {where}: {key}.data holds {values.size:,} numbers; dims {list(shape)} need {math.prod(shape):,}. {_VOICE_FIX}"
        )
    with np.errstate(over="ignore"):  # a value past float32's range becomes infinite, refused next
        array = values.astype(np.float32).reshape(shape)
    if not np.isfinite(array).all():
        raise VoiceFileCorrupt(f"voice file {where}: {key} holds NaN or values too large for {VOICE_DTYPE}. {_VOICE_FIX}")
    return array
