"""What emulate and replay set up around the function: its model's prepared graphs and page cache."""

from __future__ import annotations

import ctypes
import mmap
import os
import shutil
from pathlib import Path

from harness_fixtures.support import function_args
from supertonic_harness.local import evict_from_page_cache, start_local_function

from supertonic_engine import prepared

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


def cached_bytes(path: Path) -> int:
    """Bytes of ``path`` resident in the page cache, as mincore(2) sees them."""
    size, page = path.stat().st_size, mmap.PAGESIZE
    vector = ctypes.create_string_buffer((size + page - 1) // page)
    fd = os.open(path, os.O_RDONLY)
    try:
        pointer = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        try:
            assert _libc.mincore(pointer, size, vector) == 0, os.strerror(ctypes.get_errno())
        finally:
            _libc.munmap(pointer, size)
    finally:
        os.close(fd)
    return sum(byte & 1 for byte in vector.raw) * page


def test_evicted_model_files_leave_the_page_cache(tmp_path):
    weights = tmp_path / "model" / "onnx" / "graph.onnx"
    weights.parent.mkdir(parents=True)
    weights.write_bytes(os.urandom(8 << 20))
    os.sync()  # only clean pages can be dropped
    weights.read_bytes()
    assert cached_bytes(weights) == 8 << 20
    assert evict_from_page_cache(tmp_path / "model") == 8 << 20
    assert cached_bytes(weights) < 1 << 20


def test_a_model_directory_without_prepared_graphs_runs_as_is_with_a_note(tiny_model_dir, tmp_path):
    bare = shutil.copytree(tiny_model_dir, tmp_path / "model", ignore=shutil.ignore_patterns("prepared"))
    with start_local_function(function_args("--model", str(bare), "--no-s3", "--limit-mode", "fallback")) as local:
        assert any("has no prepared graphs" in note and "prepare-model" in note for note in local.notes)
    assert not (bare / "prepared").exists()


def test_ensure_prepared_writes_once_then_reuses(tiny_model_dir, tmp_path):
    model = shutil.copytree(tiny_model_dir, tmp_path / "model", ignore=shutil.ignore_patterns("prepared"))
    assert not prepared.has_prepared(model)
    assert prepared.ensure_prepared(model) is True
    assert prepared.has_prepared(model)
    assert prepared.ensure_prepared(model) is False
