"""The stand-in mark, read from a graph's ONNX metadata without the onnx package."""

from __future__ import annotations

import json

import onnx
import pytest
from onnx import TensorProto, helper

from supertonic_engine.standin_marker import STANDIN_KEY, any_standin, graph_metadata, standin_mark


def _model(metadata: dict[str, str]) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    model = helper.make_model(helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y]))
    helper.set_model_props(model, metadata)
    return model


@pytest.fixture()
def marked(tmp_path):
    path = tmp_path / "marked.onnx"
    mark = {"size": "tiny", "note": "noise — not speech"}
    path.write_bytes(_model({"other": "1", STANDIN_KEY: json.dumps(mark, ensure_ascii=False)}).SerializeToString())
    return path, mark


def test_the_metadata_is_read_as_onnx_writes_it(marked):
    path, mark = marked
    assert graph_metadata(path) == {entry.key: entry.value for entry in onnx.load(path).metadata_props}
    assert standin_mark(path) == mark and any_standin([path])


def test_a_graph_without_the_mark_is_real(tmp_path):
    path = tmp_path / "plain.onnx"
    path.write_bytes(_model({}).SerializeToString())
    assert graph_metadata(path) == {} and standin_mark(path) is None and not any_standin([path])


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-3],  # cut inside the last metadata entry
        lambda data: b"",  # empty
        lambda data: b"\x00" + data,  # field number 0
        lambda data: data + b"\x09\x01\x02",  # a fixed64 field cut short
        lambda data: data + b"\x0f",  # wire type 7 does not exist
        lambda data: data + b"\xff" * 11,  # a varint longer than 64 bits
    ],
)
def test_a_damaged_file_is_an_error_not_metadata(marked, damage):
    path, _ = marked
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(ValueError):
        graph_metadata(path)
    assert not any_standin([path])  # loading it fails on its own, naming the file


def test_an_entry_longer_than_its_message_is_refused(tmp_path):
    # ModelProto field 14 (metadata_props) holding one entry whose key claims 9 bytes but has 3.
    entry = b"\x0a\x09abc"
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"\x72" + bytes([len(entry)]) + entry)
    with pytest.raises(ValueError, match="past its end"):
        graph_metadata(path)
