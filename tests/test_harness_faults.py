"""S3 faults between the real function (under RIE, tiny stand-in) and moto, and S3's delivery rules.

Every S3 request the function makes passes through the harness's fault proxy; each test arms a
schedule and checks what a text dropped in the bucket leaves behind: exactly one audio object and a
manifest that names it, whatever S3 answered on the way, however often the event arrived.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from urllib.parse import unquote_plus

import pytest
import soundfile as sf
from harness_fixtures.support import function_args, sample_function

from supertonic_function.storage import s3_client
from supertonic_harness.fronts.delivery import deliver, deliver_concurrently
from supertonic_harness.fronts.faults import Fault, FaultProxy, FaultSchedule, Rule, s3_operation
from supertonic_harness.fronts.local import start_local_function
from supertonic_harness.function.limits import leftover_cgroups, open_limits, resolve_profile
from supertonic_harness.function.outcome import Outcome
from supertonic_harness.function.sandbox import Sandbox
from supertonic_harness.function.template import trigger_for

OUTPUT_BUCKET = "supertonic-output-123456789012-us-east-1"
MANIFEST = "manifest.json"
TEXT = "A short story, read aloud."
# Tries botocore makes of one request in the function's client: the first, then its retries.
TRIES = s3_client().meta.config.retries["total_max_attempts"]
# A schedule whose faults, on today's request sequence, hit every kind and once outlast botocore's
# retries (the test holds for any seed; the printed tally says what a seed did).
SEED = 4


@pytest.fixture(scope="module")
def local(tiny_model_dir):
    existing = set(leftover_cgroups())
    args = function_args("--model", str(tiny_model_dir), "--profile", "lambda-2048")
    with start_local_function(args, faults=FaultSchedule()) as started:
        yield started
    assert set(leftover_cgroups()) == existing


def drop(local, name: str, text: str = TEXT) -> dict:
    """Store a text where the S3 trigger listens; returns the event S3 would send for it."""
    trigger = trigger_for(name, local.triggers)
    return local.s3.put(trigger.bucket, trigger.key_for(name), text.encode("utf-8"))


def single_result(local, event: dict) -> dict:
    """The one manifest and the one audio object the event left, checked against each other."""
    obj = event["Records"][0]["s3"]["object"]
    relative = unquote_plus(obj["key"]).removeprefix("input/")
    listing = local.s3.client.list_objects_v2(Bucket=OUTPUT_BUCKET, Prefix=f"output/results/{relative}/")
    keys = sorted(item["Key"] for item in listing.get("Contents", []))
    manifests = [key for key in keys if key.endswith(MANIFEST)]
    audio = [key for key in keys if not key.endswith(MANIFEST)]
    assert len(manifests) == 1 and len(audio) == 1, f"expected one manifest and one audio object, found {keys}"
    manifest = json.loads(local.s3.fetch(OUTPUT_BUCKET, manifests[0]).body)
    assert manifest["status"] == "done" and manifest["audio"]["key"] == audio[0], manifest
    assert manifest["source"]["etag"] == obj["eTag"]
    body = local.s3.fetch(OUTPUT_BUCKET, audio[0]).body
    assert manifest["audio"]["bytes"] == len(body)
    assert sf.info(io.BytesIO(body)).duration == pytest.approx(manifest["duration_s"], abs=0.05)
    return manifest


def statuses(invocation) -> list[str]:
    return [result["status"] for result in invocation.result()["results"]]


def test_botocore_retries_absorb_each_transient_fault_on_every_request_of_a_render(local):
    local.faults.arm(
        FaultSchedule(
            (
                Rule(Fault.SLOW_DOWN, operation="HeadObject", key=MANIFEST, times=TRIES - 1),
                Rule(Fault.INTERNAL_ERROR, operation="GetObject"),
                Rule(Fault.SLOW_READ, operation="GetObject", nth=2),
                Rule(Fault.RESET, operation="PutObject", key="/audio-"),
                # S3 stores the manifest, the answer is lost: the retry meets the function's own write.
                Rule(Fault.LOST_REPLY, operation="PutObject", key=MANIFEST),
            )
        )
    )
    event = drop(local, "transient.txt")
    delivery = deliver(local.sandbox, event)
    assert delivery.succeeded and not delivery.retries, delivery.final.log_lines[-10:]
    assert statuses(delivery.final) == ["done"]
    assert local.faults.injected() == {"slow_down": TRIES - 1, "internal_error": 1, "slow_read": 1, "reset": 1, "lost_reply": 1}
    single_result(local, event)


def test_a_fault_that_outlasts_the_retries_fails_the_invocation_and_lambdas_retry_leaves_one_result(local):
    local.faults.arm(FaultSchedule((Rule(Fault.SLOW_DOWN, operation="PutObject", key=MANIFEST, times=TRIES),)))
    event = drop(local, "outlasting.txt")
    delivery = deliver(local.sandbox, event)
    first, last = delivery.attempts[0], delivery.final
    assert delivery.retries == 1 and delivery.succeeded, delivery.describe()
    assert first.outcome is Outcome.FUNCTION_ERROR and first.error_type == "StorageUnavailable"
    assert statuses(last) == ["done"]
    single_result(local, event)  # the failed attempt's audio did not stay behind
    audio_puts = {e.request.key for e in local.faults.operations("PutObject", "/audio-")}
    assert len(audio_puts) == 2  # each attempt rendered and uploaded its own


def test_a_manifest_stored_although_every_answer_said_failure_is_kept_and_its_audio_too(local):
    local.faults.arm(
        FaultSchedule(
            (
                Rule(Fault.LOST_REPLY, operation="PutObject", key=MANIFEST),
                Rule(Fault.SLOW_DOWN, operation="PutObject", key=MANIFEST, nth=2, times=TRIES - 1),
            )
        )
    )
    event = drop(local, "stored-anyway.txt")
    delivery = deliver(local.sandbox, event)
    assert delivery.succeeded and not delivery.retries, delivery.describe()
    assert statuses(delivery.final) == ["done"]
    single_result(local, event)


def test_a_seeded_schedule_of_faults_over_several_texts_leaves_one_result_per_text(local):
    schedule = FaultSchedule.seeded(SEED, requests=40, rate=0.6)
    assert schedule == FaultSchedule.seeded(SEED, requests=40, rate=0.6)  # replayable
    local.faults.arm(schedule)
    events = [drop(local, f"seeded-{n}.txt", f"{TEXT} Part {n}.") for n in range(4)]
    deliveries = [deliver(local.sandbox, event) for event in events]
    assert all(d.succeeded for d in deliveries), [d.describe() for d in deliveries]
    for event in events:
        single_result(local, event)
    injected, made = local.faults.injected(), len(local.faults.exchanges)
    print(
        f"\nseeded faults ({schedule.describe()}): injected {injected} in {made} requests, Lambda retries {[d.retries for d in deliveries]}"
    )
    assert sum(injected.values()) == sum(rule.request <= made for rule in schedule.rules) > 0


def test_one_event_delivered_to_two_sandboxes_at_once_gives_one_result(local):
    with open_limits(local.limits.profile) as limits, Sandbox(local.sandbox.function, limits) as second:
        for sandbox in (local.sandbox, second):  # both warm, so neither waits out the other's init
            assert sandbox.invoke({"text": "Warm.", "steps": 2}).outcome is Outcome.SUCCESS
        # Both deliveries ask for the manifest before either has one: both render, both publish.
        local.faults.arm(FaultSchedule((Rule(Fault.BARRIER, operation="HeadObject", key=MANIFEST, times=2),)))
        event = drop(local, "twice.txt")
        deliveries = deliver_concurrently([local.sandbox, second], event)
    assert all(d.succeeded and not d.retries for d in deliveries), [d.describe() for d in deliveries]
    results = sorted((r["status"], r.get("reason")) for d in deliveries for r in d.final.result()["results"])
    assert results == [("done", None), ("skipped", "already_done")]
    manifest = single_result(local, event)
    assert manifest["request_id"] in {d.final.request_id for d in deliveries}
    manifest_puts = sorted(e.upstream_status for e in local.faults.operations("PutObject", MANIFEST))
    assert manifest_puts == [200, 412]  # the race was run, and S3's conditional write decided it
    assert len(local.faults.operations("DeleteObject")) == 1  # the loser removed its own audio


def test_lambda_retries_a_failing_asynchronous_invoke_twice_then_gives_up():
    function = sample_function("fail")
    with open_limits(resolve_profile("2vcpu-2gb")) as limits, Sandbox(function, limits) as box:
        delivery = deliver(box, {"Records": []})
        ok = deliver(box, {"Records": []}, retries=0)
    assert [a.outcome for a in delivery.attempts] == [Outcome.FUNCTION_ERROR] * 3
    assert not delivery.succeeded and "on-failure destination" in delivery.describe()
    assert len(ok.attempts) == 1


@pytest.mark.parametrize(
    ("method", "path", "headers", "expected"),
    [
        ("HEAD", "/bkt/output/a.txt/e/manifest.json", [], ("HeadObject", "bkt", "output/a.txt/e/manifest.json")),
        ("GET", "/bkt/input/my%20story.txt", [], ("GetObject", "bkt", "input/my story.txt")),
        ("PUT", "/bkt/k?x-id=PutObject", [], ("PutObject", "bkt", "k")),
        ("PUT", "/bkt/k", [("X-Amz-Copy-Source", "a/b")], ("CopyObject", "bkt", "k")),
        ("PUT", "/bkt/k?partNumber=1&uploadId=u", [], ("UploadPart", "bkt", "k")),
        ("POST", "/bkt/k?uploads", [], ("CreateMultipartUpload", "bkt", "k")),
        ("DELETE", "/bkt/k", [], ("DeleteObject", "bkt", "k")),
        ("GET", "/bkt?list-type=2&prefix=x", [], ("ListObjectsV2", "bkt", None)),
        ("GET", "/", [], ("ListBuckets", None, None)),
    ],
)
def test_the_proxy_names_each_request_by_its_s3_operation(method, path, headers, expected):
    assert s3_operation(method, path, headers) == expected


def test_seeded_schedules_differ_by_seed_and_the_proxy_only_forwards_to_loopback():
    one, other = (FaultSchedule.seeded(seed, requests=50, rate=0.3) for seed in (1, 2))
    assert one.rules != other.rules
    assert Counter(rule.request for rule in one.rules).most_common(1)[0][1] == 1  # one fault per request
    with pytest.raises(ValueError, match="loopback"):
        FaultProxy("http://192.0.2.1:9000")
