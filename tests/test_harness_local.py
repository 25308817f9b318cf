"""What emulate and replay set up around the function: its model's prepared graphs and page cache."""

from __future__ import annotations

import ctypes
import mmap
import os
import shutil
from pathlib import Path

import pytest
from harness_fixtures.support import function_args

from supertonic_engine import prepared
from supertonic_harness.fronts.local import evict_from_page_cache, start_local_function
from supertonic_tools import prepare

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


def filesystem_type(path: Path) -> str:
    """The type of the filesystem ``path`` is on, from the longest matching mount point."""
    best, kind = "", ""
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, mount_point, fstype, *_ = line.split()
        if str(path).startswith(mount_point.rstrip("/") + "/") and len(mount_point) > len(best):
            best, kind = mount_point, fstype
    return kind


def test_a_model_just_written_leaves_the_page_cache(tmp_path):
    if filesystem_type(tmp_path) in ("tmpfs", "ramfs"):
        pytest.skip(f"{tmp_path} is in memory: its pages cannot leave the page cache")
    weights = tmp_path / "model" / "onnx" / "graph.onnx"
    weights.parent.mkdir(parents=True)
    weights.write_bytes(os.urandom(8 << 20))  # dirty pages, as right after make-model or prepare-model
    assert cached_bytes(weights) == 8 << 20
    assert evict_from_page_cache(tmp_path / "model") == 8 << 20
    assert cached_bytes(weights) < 1 << 20


def test_a_model_directory_without_prepared_graphs_runs_as_is_with_a_note(tiny_model_dir):
    with start_local_function(function_args("--model", str(tiny_model_dir), "--no-s3", "--limit-mode", "fallback")) as local:
        assert any("has no prepared graphs" in note and "prepare-model" in note for note in local.notes)
    assert not (tiny_model_dir / "prepared").exists()


def test_ensure_prepared_writes_once_then_reuses(tiny_model_dir, tmp_path):
    model = shutil.copytree(tiny_model_dir, tmp_path / "model")
    assert not prepared.has_prepared(model)
    assert prepare.ensure_prepared(model) is True
    assert prepared.has_prepared(model)
    assert prepare.ensure_prepared(model) is False
