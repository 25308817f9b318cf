"""The local SQS event source mapping: moto's SQS, small functions under RIE, the event Lambda sends.

Queues are made in each test (moto's server, as the harness runs it for S3); the functions are
the harness's sample functions, so a batch costs milliseconds and the timing the tests rely on is
the queue's own visibility timeout.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from harness_fixtures.support import TEMPLATE, sample_function, template_data, write_template

from supertonic_harness.fronts.s3 import LocalS3
from supertonic_harness.fronts.sqs import LocalSqs, SqsEventSourceMapping
from supertonic_harness.function.limits import open_limits, resolve_profile
from supertonic_harness.function.outcome import Outcome
from supertonic_harness.function.sandbox import Sandbox
from supertonic_harness.function.template import QueueConfig, SqsTrigger, Template

POWERTOOLS_EVENTS = Path(__file__).resolve().parent / "powertools_events"
SANDBOX_PROFILE = {"cpus": 0.5, "memory_mb": 512}


def _sandbox(stack: ExitStack, name: str, **spec) -> Sandbox:
    limits = stack.enter_context(open_limits(resolve_profile("custom", **SANDBOX_PROFILE)))
    return stack.enter_context(Sandbox(sample_function(name, **spec), limits))


@pytest.fixture(scope="module")
def cold_invoke_s() -> float:
    """One cold start and invoke of a sample function in these limits, as this machine runs it."""
    with ExitStack() as stack:
        started = time.monotonic()
        _sandbox(stack, "echo").invoke({})
        return time.monotonic() - started


@pytest.fixture(scope="module")
def visibility_s(cold_invoke_s: float) -> int:
    """A visibility timeout well past any batch of these tests (one cold start, at most a 1 s function
    timeout), so a message comes back only when a test means it to; as short as that allows, since
    the retry tests wait it out. Five cold starts: the one measured may have found the page cache
    warm and the machine idle, a later sandbox's (another function's) neither."""
    return math.ceil(5 * cold_invoke_s + 1)


@pytest.fixture(scope="module")
def sqs():
    with LocalS3() as s3:
        yield LocalSqs(s3.endpoint_url)


@pytest.fixture
def sandboxes():
    """``make(name, count, **spec)``: ``count`` sandboxes of a sample function, each in limits of its own."""
    with ExitStack() as stack:

        def make(name: str, count: int = 1, **spec) -> list[Sandbox]:
            return [_sandbox(stack, name, **spec) for _ in range(count)]

        yield make


def _queues(sqs: LocalSqs, name: str, visibility_s: int, max_receive_count: int = 2) -> tuple[QueueConfig, QueueConfig]:
    """A queue and its dead-letter queue, as a template would declare them."""
    dead = QueueConfig(f"{name}Dlq", f"{name}-dlq", f"arn:aws:sqs:us-east-1:123456789012:{name}-dlq")
    queue = QueueConfig(
        name,
        name,
        f"arn:aws:sqs:us-east-1:123456789012:{name}",
        visibility_timeout_s=visibility_s,
        dead_letter_arn=dead.arn,
        max_receive_count=max_receive_count,
    )
    sqs.create_queues([dead, queue])
    return queue, dead


def _send(sqs: LocalSqs, queue: QueueConfig, *bodies: str, **attributes) -> list[str]:
    url = sqs.url_of(queue.arn)
    return [sqs.client.send_message(QueueUrl=url, MessageBody=body, **attributes)["MessageId"] for body in bodies]


def _drain_budget_s(queue: QueueConfig, receives: int) -> float:
    """Each receive after the first waits out the visibility timeout; the batches themselves are short."""
    return receives * (queue.visibility_timeout_s + 5) + 10


def test_the_function_gets_the_event_lambda_sends_and_a_success_deletes_the_batch(sqs, sandboxes, visibility_s):
    queue, _ = _queues(sqs, "shape", visibility_s)
    attributes = {"MessageAttributes": {"part": {"DataType": "Number", "StringValue": "3"}}}
    sent = _send(sqs, queue, '{"job": "a"}', '{"job": "b"}', **attributes)
    trigger = SqsTrigger(queue.arn, batch_size=10, batching_window_s=1)

    with SqsEventSourceMapping(sqs, trigger, sandboxes("echo")) as mapping:
        assert mapping.drain(_drain_budget_s(queue, 1))

    (batch,) = mapping.batches
    assert batch.invocation.outcome is Outcome.SUCCESS and batch.deleted == sent
    records = batch.invocation.result()["event"]["Records"]
    lambdas = json.loads((POWERTOOLS_EVENTS / "sqsEvent.json").read_text())["Records"][0]
    assert [sorted(record) for record in records] == [sorted(lambdas)] * 2
    assert [r["messageId"] for r in records] == sent and records[0]["body"] == '{"job": "a"}'
    assert records[0]["eventSource"] == "aws:sqs" and records[0]["eventSourceARN"] == queue.arn
    assert records[0]["awsRegion"] == "us-east-1" and len(records[0]["md5OfBody"]) == 32
    assert records[0]["attributes"]["ApproximateReceiveCount"] == "1"
    assert set(lambdas["attributes"]) <= set(records[0]["attributes"])
    assert records[0]["messageAttributes"]["part"] == {
        "stringValue": "3",
        "stringListValues": [],
        "binaryListValues": [],
        "dataType": "Number",
    }
    assert sqs.counts(sqs.url_of(queue.arn)) == (0, 0)


@pytest.mark.parametrize("reports", [True, False], ids=["ReportBatchItemFailures", "without"])
def test_reported_failures_come_back_and_end_in_the_dead_letter_queue(sqs, sandboxes, visibility_s, reports):
    queue, dead = _queues(sqs, f"partial-{reports}", visibility_s, max_receive_count=2)
    ok, failing, also_ok = _send(sqs, queue, "ok", "fail", "ok")
    trigger = SqsTrigger(queue.arn, batch_size=10, report_batch_item_failures=reports)

    with SqsEventSourceMapping(sqs, trigger, sandboxes("sqs_partial")) as mapping:
        assert mapping.drain(_drain_budget_s(queue, 3))

    if not reports:
        # Without the setting Lambda ignores the answer: the batch succeeded, every message is deleted.
        assert [b.deleted for b in mapping.batches] == [[ok, failing, also_ok]]
        assert sqs.bodies(sqs.url_of(dead.arn)) == []
        return
    first, *again = mapping.batches
    assert first.deleted == [ok, also_ok] and first.returned == [failing]
    # Received once more after the visibility timeout, failed again: then moto's redrive moves it
    # to the dead-letter queue at the next receive, and the function does not see it a third time.
    assert [(b.message_ids, b.receive_counts, b.returned) for b in again] == [([failing], [2], [failing])]
    assert sqs.bodies(sqs.url_of(dead.arn)) == ["fail"]
    assert sqs.counts(sqs.url_of(queue.arn)) == (0, 0)


def test_a_batch_that_times_out_becomes_visible_again_and_is_retried(sqs, sandboxes, visibility_s):
    queue, dead = _queues(sqs, "timeout", visibility_s, max_receive_count=3)
    (sent,) = _send(sqs, queue, "part 1")
    trigger = SqsTrigger(queue.arn, batch_size=1, report_batch_item_failures=True)

    with SqsEventSourceMapping(sqs, trigger, sandboxes("sqs_slow_first", timeout_s=1)) as mapping:
        assert mapping.drain(_drain_budget_s(queue, 2) + 1)

    assert [(b.invocation.outcome, b.receive_counts) for b in mapping.batches] == [(Outcome.TIMEOUT, [1]), (Outcome.SUCCESS, [2])]
    assert mapping.batches[0].returned == [sent] and mapping.batches[1].deleted == [sent]
    assert sqs.bodies(sqs.url_of(dead.arn)) == []


def test_an_answer_naming_no_message_of_the_batch_fails_the_whole_batch(sqs, sandboxes, visibility_s):
    queue, dead = _queues(sqs, "bad-answer", visibility_s, max_receive_count=1)
    sent = _send(sqs, queue, "a", "b")
    trigger = SqsTrigger(queue.arn, batch_size=10, report_batch_item_failures=True)

    with SqsEventSourceMapping(sqs, trigger, sandboxes("sqs_wrong_id")) as mapping:
        assert mapping.drain(_drain_budget_s(queue, 2))

    (batch,) = mapping.batches
    assert batch.invocation.outcome is Outcome.SUCCESS
    assert batch.returned == sent and batch.deleted == [] and "not-a-message-of-this-batch" in batch.problem
    assert sorted(sqs.bodies(sqs.url_of(dead.arn))) == ["a", "b"]


def test_concurrency_starts_sandboxes_in_limits_of_their_own_fed_by_the_template_s_mapping(tmp_path):
    from harness_fixtures.support import FIXTURES, function_args

    from supertonic_harness.fronts.local import start_local_function

    data = template_data(TEMPLATE)
    data["Resources"]["SampleFunction"]["Properties"]["Events"]["Work"] = _mapped_queue("WorkQueue", BatchSize=1)
    data["Resources"]["WorkQueue"] = {"Type": "AWS::SQS::Queue"}
    template = write_template(data, tmp_path / "template.yaml")
    args = function_args(
        "--handler",
        "sample_functions.echo",
        "--task-root",
        str(FIXTURES),
        "--template",
        str(template),
        "--profile",
        "custom",
        "--cpus",
        "0.5",
        "--memory-mb",
        "512",
        "--concurrency",
        "2",
    )
    with start_local_function(args) as local:
        (mapping,) = local.mappings
        assert mapping.sandboxes == local.sandboxes and len(local.sandboxes) == 2
        assert local.sandboxes[0].limits is not local.sandboxes[1].limits
        assert {box.limits.profile.memory_mb for box in local.sandboxes} == {512}
        url = local.sqs.url_of(mapping.trigger.queue_arn)
        local.sqs.client.send_message(QueueUrl=url, MessageBody="work")
        assert local.drain(local.sandbox.function.timeout_s + 30)  # one batch, at most the function's timeout
        (batch,) = mapping.batches
        result = batch.invocation.result()
        assert result["event"]["Records"][0]["body"] == "work"
        assert result["environment"]["AWS_ENDPOINT_URL_SQS"] == local.sqs.endpoint_url
        assert local.describe()["concurrency"] == 2


def _mapped_queue(queue: str, **properties: object) -> dict[str, object]:
    """A SAM SQS event on the template's ``queue``."""
    return {"Type": "SQS", "Properties": {"Queue": {"Fn::GetAtt": [queue, "Arn"]}, **properties}}


def _redriven_queue(dead_letter_queue: str) -> dict[str, object]:
    """A queue whose messages move to ``dead_letter_queue`` after three receives, as the project's parts queue does."""
    return {
        "Type": "AWS::SQS::Queue",
        "Properties": {
            "VisibilityTimeout": 1080,
            "RedrivePolicy": {"deadLetterTargetArn": {"Fn::GetAtt": [dead_letter_queue, "Arn"]}, "maxReceiveCount": 3},
        },
    }


def _fan_out_template(tmp_path: Path) -> Path:
    """The harness's sample template with a parts queue its function sends to and is mapped to."""
    data = template_data(TEMPLATE)
    function = data["Resources"]["SampleFunction"]["Properties"]
    function["Events"]["Parts"] = _mapped_queue("PartsQueue", BatchSize=1, ScalingConfig={"MaximumConcurrency": 2})
    function["Environment"]["Variables"]["SAMPLE_QUEUE_URL"] = {"Ref": "PartsQueue"}
    data["Resources"]["PartsQueue"] = {"Type": "AWS::SQS::Queue"}
    return write_template(data, tmp_path / "template.yaml")


def test_replay_waits_for_the_queue_the_event_filled_and_reports_its_batches(tmp_path, capsys):
    from harness_fixtures.support import FIXTURES, run_command

    template = _fan_out_template(tmp_path)
    event = tmp_path / "plan.json"
    event.write_text(json.dumps({"fan_out": 4}))

    status = run_command(
        "replay",
        str(event),
        "--handler",
        "sample_functions.sqs_fan_out",
        "--task-root",
        str(FIXTURES),
        "--template",
        str(template),
        "--profile",
        "custom",
        "--cpus",
        "0.5",
        "--memory-mb",
        "512",
        "--concurrency",
        "2",
    )

    out = capsys.readouterr().out
    assert status == 0, out
    # The template's queue URL reached the function, which sent 4 parts; all were done before the report.
    assert "sqs supertonic-local-PartsQueue: 4 batch(es) of 4 message(s): 4 deleted, 0 returned" in out


def test_emulate_upload_waits_for_the_parts_and_prints_them_and_the_wall_time(tmp_path, capsys):
    from harness_fixtures.support import FIXTURES, run_command

    book = tmp_path / "book.txt"
    book.write_text("A long book.")
    status = run_command(
        "emulate",
        "--handler",
        "sample_functions.sqs_fan_out",
        "--task-root",
        str(FIXTURES),
        "--template",
        str(_fan_out_template(tmp_path)),
        "--profile",
        "custom",
        "--cpus",
        "0.5",
        "--memory-mb",
        "512",
        "--concurrency",
        "2",
        "--rie-port",
        "0",
        "--upload",
        str(book),
        "--no-serve",
    )

    out = capsys.readouterr().out
    assert status == 0, out
    assert "SQS event source mapping: supertonic-local-PartsQueue -> 2 sandbox(es), batch size 1" in out
    assert out.count("sqs supertonic-local-PartsQueue: 1 message(s) deleted; success") == 3
    assert re.search(
        r"queues drained: 3 batch\(es\) of 3 message\(s\): 3 deleted, 0 returned; billed \d+ ms in all; "
        r"wall \d+\.\d s",
        out,
    ), out


def test_side_by_side_fallback_sandboxes_take_different_cores():
    from supertonic_harness.function.limits import FallbackLimits

    one_core = resolve_profile("custom", cpus=1, memory_mb=512)
    cores = [FallbackLimits(one_core, slot).cores for slot in range(2)]
    if len(os.sched_getaffinity(0)) > 1:
        assert cores[0] != cores[1]
    assert all(len(c) == 1 for c in cores)


def test_batches_run_in_parallel_on_free_sandboxes_up_to_the_maximum_concurrency(sqs, sandboxes):
    # Longer than a batch takes, so no message is received twice (that is at-least-once delivery, not concurrency).
    queue, _ = _queues(sqs, "concurrency", 60)
    _send(sqs, queue, *["1"] * 6)
    trigger = SqsTrigger(queue.arn, batch_size=1, maximum_concurrency=2)

    with SqsEventSourceMapping(sqs, trigger, sandboxes("sqs_busy", 3)) as mapping:
        assert len(mapping.sandboxes) == 2
        assert mapping.drain(_drain_budget_s(queue, 6))

    runs = [b.invocation.result() for b in mapping.batches]
    assert len(runs) == 6 and all(run is not None for run in runs)
    assert len({run["pid"] for run in runs}) == 2
    moments = sorted([(run["started"], 1) for run in runs] + [(run["ended"], -1) for run in runs])
    running, most = 0, 0
    for _, step in moments:
        running += step
        most = max(most, running)
    assert most == 2


def test_the_template_s_queues_and_mappings_are_read(tmp_path):
    data = template_data(TEMPLATE)
    function = data["Resources"]["SampleFunction"]["Properties"]
    function["Events"]["Parts"] = _mapped_queue(
        "PartsQueue", BatchSize=5, FunctionResponseTypes=["ReportBatchItemFailures"], ScalingConfig={"MaximumConcurrency": 4}
    )
    function["Environment"]["Variables"]["SAMPLE_PARTS_QUEUE_URL"] = {"Ref": "PartsQueue"}
    data["Resources"].update(
        PartsQueue=_redriven_queue("PartsDeadLetterQueue"),
        PartsDeadLetterQueue={"Type": "AWS::SQS::Queue", "Properties": {"QueueName": {"Fn::Sub": "parts-dlq-${Stage}"}}},
        OtherMapping={
            "Type": "AWS::Lambda::EventSourceMapping",
            "Properties": {
                "FunctionName": {"Ref": "SampleFunction"},
                "EventSourceArn": {"Fn::GetAtt": ["PartsDeadLetterQueue", "Arn"]},
                "BatchSize": 1,
                "Enabled": False,
            },
        },
    )
    template = write_template(data, tmp_path / "template.yaml")
    loaded = Template.load(template)

    queues = loaded.queues()
    assert list(queues) == ["PartsDeadLetterQueue", "PartsQueue"]  # the dead-letter queue is made first
    parts = queues["PartsQueue"]
    assert parts.name == "supertonic-local-PartsQueue" and parts.visibility_timeout_s == 1080
    assert parts.dead_letter_arn == "arn:aws:sqs:us-east-1:123456789012:parts-dlq-test" and parts.max_receive_count == 3
    assert queues["PartsDeadLetterQueue"].visibility_timeout_s == 30
    config = loaded.function()
    assert config.sqs_triggers == [
        SqsTrigger(parts.arn, batch_size=5, report_batch_item_failures=True, maximum_concurrency=4),
        SqsTrigger(queues["PartsDeadLetterQueue"].arn, batch_size=1, enabled=False),
    ]
    assert config.environment["SAMPLE_PARTS_QUEUE_URL"] == ("https://sqs.us-east-1.amazonaws.com/123456789012/supertonic-local-PartsQueue")


# --- end to end: a text dropped in the bucket, S3 -> SQS -> the mapping -> the real function -------------


def test_a_text_dropped_in_a_bucket_that_notifies_a_queue_becomes_audio(tmp_path, tiny_model_dir):
    from harness_fixtures.support import function_args

    from supertonic_harness.fronts.local import start_local_function
    from supertonic_harness.function.rie import REPO_ROOT

    # The project's template with its bucket wired to a queue the function's mapping reads.
    data = template_data(REPO_ROOT / "template.yaml")
    data["Resources"]["TtsFunction"]["Properties"]["Events"]["TextQueued"] = _mapped_queue(
        "TextQueue", BatchSize=10, FunctionResponseTypes=["ReportBatchItemFailures"], ScalingConfig={"MaximumConcurrency": 2}
    )
    data["Resources"].update(
        TextQueue=_redriven_queue("TextDeadLetterQueue"),
        TextDeadLetterQueue={"Type": "AWS::SQS::Queue"},
    )
    template = write_template(data, tmp_path / "template.yaml")
    args = function_args("--model", str(tiny_model_dir), "--profile", "lambda-2048", "--template", str(template), "--concurrency", "2")

    with start_local_function(args) as local:
        # The template's own parts queue and its dead-letter queue have mappings too.
        (mapping,) = [m for m in local.mappings if m.queue_name.endswith("-TextQueue")]
        assert len(mapping.sandboxes) == 2
        input_bucket = local.triggers[0].bucket
        queue_arn = mapping.trigger.queue_arn
        # S3 (moto) sends the queue an s3:TestEvent now, and a notification per object later, as S3 does.
        local.s3.client.put_bucket_notification_configuration(
            Bucket=input_bucket,
            NotificationConfiguration={
                "QueueConfigurations": [
                    {
                        "QueueArn": queue_arn,
                        "Events": ["s3:ObjectCreated:*"],
                        "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "input/"}, {"Name": "suffix", "Value": ".txt"}]}},
                    }
                ]
            },
        )
        before = local.s3.keys()
        for name in ("queued one.txt", "queued two.txt"):
            local.s3.client.put_object(Bucket=input_bucket, Key=f"input/{name}", Body=b"Read from a queue, aloud.")
        # Each batch takes at most the function's timeout; three at most (the test event, two texts).
        assert local.drain(3 * local.sandbox.function.timeout_s + 30)
        written = local.s3.written_since(before)
        dead_letters = local.sqs.bodies(local.sqs.url_of(queue_arn.replace("TextQueue", "TextDeadLetterQueue")))

    assert all(batch.succeeded for batch in mapping.batches), [b.invocation.log_lines[-10:] for b in mapping.batches]
    assert all(batch.invocation.outcome is Outcome.SUCCESS for batch in mapping.batches)
    assert sum(len(batch.message_ids) for batch in mapping.batches) == 3  # the test event and two texts
    manifests = {json.loads(o.body)["source"]["key"]: json.loads(o.body) for o in written if o.key.endswith("manifest.json")}
    assert set(manifests) == {"input/queued one.txt", "input/queued two.txt"}
    assert all(m["status"] == "done" and m["model"] == "stand-in" for m in manifests.values())
    audio = {m["audio"]["key"] for m in manifests.values()}
    assert audio <= {o.key for o in written}
    assert dead_letters == []
