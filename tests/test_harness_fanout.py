"""A long text dropped in the bucket, rendered in parts by concurrent sandboxes under RIE, stitched once.

The project's own template runs here (parts queue, dead-letter queue, both mappings) on the tiny
stand-in, with two changes a test needs: a low fan-out threshold, and a function timeout and
visibility timeout short enough for a killed worker's message to come back within the test.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile
from harness_fixtures.support import function_args, template_data, write_template

from supertonic_engine import Engine, SessionConfig, SynthesisOptions, encode
from supertonic_harness.fronts.faults import Fault, FaultSchedule, Rule
from supertonic_harness.fronts.local import start_local_function
from supertonic_harness.function.outcome import Outcome
from supertonic_harness.function.rie import REPO_ROOT

TEXT = " ".join(f"Sentence number {n} of a long story is read aloud here, slowly and clearly." for n in range(1, 25))
# Long enough for a part of the tiny model many times over on a slow machine; short enough that
# the retry of a killed worker's message comes back within the test.
TIMEOUT_S = 20
# A killed worker's message comes back this long after it was received: well after the kill, so the
# held upload below lands in between.
VISIBILITY_S = TIMEOUT_S + 10


def _template(tmp_path: Path) -> Path:
    template = template_data(REPO_ROOT / "template.yaml")
    template["Parameters"]["FanOutMinChars"]["Default"] = 300
    template["Parameters"]["PartsVisibilityTimeout"]["Default"] = VISIBILITY_S
    return write_template(template, tmp_path / "template.yaml")


def _run(tmp_path: Path, tiny_model_dir: Path, text: str, faults: FaultSchedule | None = None):
    """Drop ``text`` (its own per test: moto's state lives as long as the process) and run it all."""
    args = function_args(
        "--model",
        str(tiny_model_dir),
        "--profile",
        "lambda-2048",
        "--template",
        str(_template(tmp_path)),
        "--concurrency",
        "2",
        "--timeout",
        str(TIMEOUT_S),
    )
    with start_local_function(args, rie_port=0, faults=faults) as local:
        (parts_mapping, dead_mapping) = sorted(local.mappings, key=lambda m: "Dead" in m.queue_name)
        trigger = next(t for t in local.triggers if t.key_for("book.txt").endswith(".txt"))
        book = tmp_path / "book.txt"
        book.write_text(text)
        before = local.s3.keys()
        event = local.s3.upload_file(book, trigger.bucket, trigger.key_for(book.name))
        planner = local.sandbox.invoke(event)
        # Each part takes at most a timeout, plus a visibility timeout for a retried one.
        assert local.drain(60 * TIMEOUT_S)
        written = local.s3.written_since(before)
        exchanges = list(local.faults.exchanges) if local.faults else []
    return planner, parts_mapping, dead_mapping, written, exchanges


def _sequential(tiny_model_dir: Path, text: str, manifest: dict) -> bytes:
    engine = Engine.load(tiny_model_dir, session_config=SessionConfig(intra_op_threads=1))
    options = SynthesisOptions(
        voice=manifest["voice"], lang=manifest["lang"], steps=manifest["steps"], speed=manifest["speed"], seed=manifest["seed"]
    )
    return encode(engine.synthesize(text, options).audio, engine.sample_rate, manifest["format"])


def test_a_long_text_is_rendered_by_two_sandboxes_and_stitched_to_the_sequential_file(tmp_path, tiny_model_dir):
    text = TEXT + " It ends well."
    planner, parts, dead, written, _ = _run(tmp_path, tiny_model_dir, text)

    assert planner.outcome is Outcome.SUCCESS
    assert planner.result()["results"][0]["status"] == "planned"
    (manifest,) = [json.loads(o.body) for o in written if o.key.endswith("manifest.json")]
    assert manifest["status"] == "done" and manifest["model"] == "stand-in"
    assert len(parts.batches) == manifest["parts_total"] > 3 and all(b.succeeded for b in parts.batches)
    assert dead.batches == []
    (audio,) = [o for o in written if o.key == manifest["audio"]["key"]]
    assert audio.body == _sequential(tiny_model_dir, text, manifest)
    info = soundfile.info(io.BytesIO(audio.body))
    assert info.duration == pytest.approx(manifest["duration_s"], abs=1e-3)
    # Parts and the claim are removed once the manifest stands.
    assert not [o.key for o in written if "/parts/" in o.key or o.key.endswith("assembly.json")]


def test_a_worker_killed_mid_part_is_retried_and_its_part_stored_once(tmp_path, tiny_model_dir):
    # Part 1's upload is held past the function's timeout: RIE kills the worker mid-part.
    stall = FaultSchedule(
        (Rule(Fault.BARRIER, operation="PutObject", key="parts/000001.enc"),), barrier_count=1000, barrier_timeout_s=TIMEOUT_S + 1
    )
    text = TEXT + " It ends, after a stall."
    planner, parts, dead, written, exchanges = _run(tmp_path, tiny_model_dir, text, stall)

    manifests = [json.loads(o.body) for o in written if o.key.endswith("manifest.json")]
    assert len(manifests) == 1, (
        planner.body,
        [(b.invocation.outcome, b.invocation.body[:300]) for b in parts.batches],
        [o.key for o in written],
    )
    (manifest,) = manifests
    assert manifest["status"] == "done"
    timed_out = [b for b in parts.batches if b.invocation.outcome is Outcome.TIMEOUT]
    assert len(timed_out) == 1 and timed_out[0].returned
    assert max(max(b.receive_counts) for b in parts.batches) == 2  # the killed part's message, once more
    stored = [e for e in exchanges if e.request.operation == "PutObject" and (e.request.key or "").endswith("parts/000001.enc")]
    assert len(stored) == 1  # the held upload landed late; the retry found it and rendered nothing
    (audio,) = [o for o in written if o.key == manifest["audio"]["key"]]
    assert audio.body == _sequential(tiny_model_dir, text, manifest)
    assert np.frombuffer(audio.body[:4], dtype=np.uint8).tobytes() == b"RIFF"
