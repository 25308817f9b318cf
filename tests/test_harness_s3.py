"""The template's buckets in moto's S3 server, and a local text file turned into an upload + S3 event."""

from __future__ import annotations

import io
import json

import pytest
import soundfile as sf
from harness_fixtures.support import FIXTURES, TEMPLATE, function_args, run_command

from supertonic_harness.fronts.emulator import upload_and_deliver
from supertonic_harness.fronts.local import start_local_function
from supertonic_harness.fronts.s3 import s3_put_event
from supertonic_harness.function.template import S3Trigger, Template, trigger_for


def test_template_names_buckets_environment_and_trigger():
    template = Template.load(TEMPLATE)
    assert template.buckets() == {
        "InputBucket": "sample-in-123456789012-us-east-1",
        "OutputBucket": "supertonic-local-outputbucket",
    }
    function = template.function()
    assert function.logical_id == "SampleFunction"
    assert (function.memory_mb, function.timeout_s) == (2048, 7)  # own MemorySize, Globals' Timeout
    assert function.environment == {
        "SAMPLE_STAGE": "test",
        "SAMPLE_OUTPUT_BUCKET": "supertonic-local-outputbucket",
        "SAMPLE_OUTPUT_ARN": "arn:aws:s3:::supertonic-local-outputbucket",
        "SAMPLE_JOINED": "test-x",
    }
    assert template.unresolved == ["environment variable SAMPLE_UNKNOWN"]
    assert function.s3_triggers == [S3Trigger("sample-in-123456789012-us-east-1", "input/", ".txt")]


@pytest.mark.parametrize(("filename", "key"), [("a.txt", "input/a.txt"), ("notes.md", "input/notes.md.txt")])
def test_trigger_keys_match_the_filter(filename, key):
    assert S3Trigger("b", "input/", ".txt").key_for(filename) == key


@pytest.mark.parametrize(
    ("filename", "key"),
    [("job.json", "input/job.json"), ("notes.txt", "input/notes.txt"), ("notes.md", "input/notes.md.txt")],
)
def test_uploads_go_to_the_trigger_of_their_suffix(filename, key):
    triggers = [S3Trigger("b", "input/", ".txt"), S3Trigger("b", "input/", ".json")]
    assert trigger_for(filename, triggers).key_for(filename) == key


def test_emulate_keeps_the_top_level_verbose_flag():
    from supertonic_cli.main import build_parser

    # A subcommand option with the same dest would reset what `supertonic-lambda -v` set.
    args = build_parser().parse_args(["-v", "emulate"])
    assert args.verbose is True and args.rie_log is False
    both = build_parser().parse_args(["--verbose", "emulate", "--rie-log"])
    assert both.verbose is True and both.rie_log is True


def test_s3_event_encodes_the_key_as_s3_does():
    record = s3_put_event("bkt", "input/my story.txt", 12, '"abc"')["Records"][0]
    assert record["eventSource"] == "aws:s3" and record["eventName"] == "ObjectCreated:Put"
    assert record["s3"]["object"] == {**record["s3"]["object"], "key": "input/my+story.txt", "size": 12, "eTag": "abc"}
    assert record["s3"]["bucket"]["arn"] == "arn:aws:s3:::bkt"


def test_uploaded_text_file_produces_audio_and_manifest_through_moto(tmp_path):
    text_file = tmp_path / "three words here.txt"
    text_file.write_text("three words here", encoding="utf-8")
    args = function_args(
        "--handler", "sample_functions.s3_tone", "--task-root", str(FIXTURES), "--template", str(TEMPLATE), "--model", str(tmp_path)
    )
    with start_local_function(args) as local:
        assert local.sandbox.function.timeout_s == 7
        event, delivery, written = upload_and_deliver(local, text_file, local.triggers[0])
        assert delivery.succeeded and not delivery.retries, delivery.final.log_lines[-10:]
        out = "s3://supertonic-local-outputbucket/audio/input/three words here"
        assert written == [f"{out}.json", f"{out}.wav"]
        audio = local.s3.fetch("supertonic-local-outputbucket", "audio/input/three words here.wav")
        manifest = local.s3.fetch("supertonic-local-outputbucket", "audio/input/three words here.json")
    assert event["Records"][0]["s3"]["object"]["key"] == "input/three+words+here.txt"
    assert audio.content_type == "audio/wav"
    assert sf.info(io.BytesIO(audio.body)).duration == pytest.approx(3.0)
    assert json.loads(manifest.body)["source"] == "s3://sample-in-123456789012-us-east-1/input/three words here.txt"


def test_emulate_upload_without_serving_prints_what_the_function_wrote(tmp_path, capsys):
    text_file = tmp_path / "note.txt"
    text_file.write_text("one two", encoding="utf-8")
    status = run_command(
        "emulate",
        "--handler",
        "sample_functions.s3_tone",
        "--task-root",
        str(FIXTURES),
        "--template",
        str(TEMPLATE),
        "--upload",
        str(text_file),
        "--no-serve",
    )
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert "upload" in printed and "s3://sample-in-123456789012-us-east-1/input/note.txt: success" in printed
    assert "wrote s3://supertonic-local-outputbucket/audio/input/note.wav" in printed


def test_emulate_upload_needs_an_s3_trigger(tmp_path, capsys):
    text_file = tmp_path / "note.txt"
    text_file.write_text("x", encoding="utf-8")
    status = run_command(
        "emulate",
        "--handler",
        "sample_functions.echo",
        "--task-root",
        str(FIXTURES),
        "--template",
        "none",
        "--upload",
        str(text_file),
        "--no-serve",
    )
    assert status == 1
    assert "needs an S3 event in the template" in capsys.readouterr().err
