"""How a stand-in model says what it is: a mark in each graph's ONNX metadata.

The stand-in ships the real release's JSON files byte for byte, so only its graphs can tell it
apart. The mark is a ``metadata_props`` entry of the ONNX model; ONNX Runtime keeps metadata when
it saves an optimized model and the quantizer copies it, so prepared and int8 graphs carry it too.

It is read here without the ``onnx`` package (the image does not install it) by walking the
top-level fields of the ``ModelProto`` message and skipping the graph, so even a 256 MB graph
costs a few reads.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import BinaryIO

# The metadata key every stand-in graph carries; its value is a JSON object (generator version,
# size, seed, the graph's internal widths).
STANDIN_KEY = "supertonic_lambda.stand_in"
# Bumped whenever the generated files change, so caches keyed by it regenerate.
GENERATOR_VERSION = "2"
NOTE = "random weights: output is noise, not speech"
# Stand-ins of generator version 1 marked a ``stand_in`` object in tts.json instead of their graphs.
# Their JSON files were guesses, not the release's, so they are refused rather than served.
LEGACY_CONFIG_KEY = "stand_in"

# onnx.proto: ModelProto.metadata_props = 14 (StringStringEntryProto: key = 1, value = 2).
_METADATA_PROPS = 14
_VARINT, _FIXED64, _LENGTH_DELIMITED, _FIXED32 = 0, 1, 2, 5


def graph_metadata(path: str | os.PathLike[str]) -> dict[str, str]:
    """The ``metadata_props`` of the ONNX model in ``path`` (empty if it has none).

    Raises ``ValueError`` when the file is not a well-formed protobuf message.
    """
    metadata: dict[str, str] = {}
    with Path(path).open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            raise ValueError(f"{path}: an empty file is not an ONNX model")
        while f.tell() < size:
            field, wire = divmod(_read_varint(f), 8)
            if field == 0:
                raise ValueError(f"{path}: not an ONNX model (field number 0)")
            if wire == _VARINT:
                _read_varint(f)
                continue
            length = {_FIXED64: 8, _FIXED32: 4}.get(wire)
            if length is None and wire == _LENGTH_DELIMITED:
                length = _read_varint(f)
            if length is None:
                raise ValueError(f"{path}: not an ONNX model (wire type {wire})")
            if f.tell() + length > size:
                raise ValueError(f"{path}: a field runs past the end of the file")
            if field == _METADATA_PROPS and wire == _LENGTH_DELIMITED:
                key, value = _string_pair(f.read(length))
                metadata[key] = value
            else:
                f.seek(length, os.SEEK_CUR)
    return metadata


def standin_mark(path: str | os.PathLike[str]) -> dict[str, object] | None:
    """The stand-in mark of one graph file, or None for a graph without it (a real one)."""
    raw = graph_metadata(path).get(STANDIN_KEY)
    if raw is None:
        return None
    try:
        mark = json.loads(raw)
    except ValueError:
        return {"unreadable": raw}
    return mark if isinstance(mark, dict) else {"value": mark}


def any_standin(paths: Iterable[str | os.PathLike[str]]) -> bool:
    """True when any of the graphs carries the stand-in mark (unreadable files count as not marked:
    loading them fails on its own, naming the file)."""
    for path in paths:
        try:
            if standin_mark(path) is not None:
                return True
        except (OSError, ValueError):
            continue
    return False


def is_legacy_standin(tts_config: Mapping[str, object]) -> bool:
    """True for a tts.json written by the first stand-in generator (see ``LEGACY_CONFIG_KEY``)."""
    return isinstance(tts_config.get(LEGACY_CONFIG_KEY), Mapping)


def _read_varint(f: BinaryIO) -> int:
    value, shift = 0, 0
    while True:
        byte = f.read(1)
        if not byte:
            raise ValueError("truncated varint")
        value |= (byte[0] & 0x7F) << shift
        if byte[0] < 0x80:
            return value
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _string_pair(message: bytes) -> tuple[str, str]:
    """key (field 1) and value (field 2) of a StringStringEntryProto."""
    fields = {1: "", 2: ""}
    entry = io.BytesIO(message)
    while entry.tell() < len(message):
        field, wire = divmod(_read_varint(entry), 8)
        if wire != _LENGTH_DELIMITED:
            raise ValueError("unexpected field in a metadata entry")
        length = _read_varint(entry)
        text = entry.read(length)
        if len(text) != length:
            raise ValueError("a metadata entry runs past its end")
        if field in fields:
            fields[field] = text.decode("utf-8", errors="replace")
    return fields[1], fields[2]
