"""Every setting is checked at init for a value that can work, and every report of a bad one
names it, whatever event arrives: a function URL request, an S3 notification (plain or in an
SQS message), a part of a long job, a direct invoke."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fixtures_s3 import FUNCTION_ENV, INPUT_BUCKET, OUTPUT_BUCKET, HttpAnswer, LambdaContext, load_event

from supertonic_engine import config as engine_config
from supertonic_engine.config import SessionConfig
from supertonic_engine.errors import ConfigurationError
from supertonic_function.config import FunctionConfig
from supertonic_function.errors import BatchFailed
from supertonic_function.service import Service
from supertonic_harness.fronts.furl import http_to_event
from supertonic_harness.fronts.s3 import s3_put_event

pytest_plugins = ["fixtures_s3"]

HUGE = "99999999999999999999"  # past a C int, which ONNX Runtime reads its numbers into

# Values no deployment can work with, for every numeric or closed-choice setting the function reads.
FUNCTION_REFUSED = {
    "SUPERTONIC_SYNC_MAX_TEXT_CHARS": ["inf", "nan", "-1", "0", "1.5", "many"],
    "SUPERTONIC_SYNC_MAX_SPOKEN_CHARS": ["inf", "nan", "-1", "0", "many"],
    "SUPERTONIC_SYNC_MAX_AUDIO_S": ["inf", "nan", "-1", "0", "long"],
    "SUPERTONIC_SYNC_PLAN_RTF": ["inf", "nan", "-1", "fast"],
    "SUPERTONIC_MAX_OBJECT_BYTES": ["inf", "-1", "0", HUGE, "big"],
    "SUPERTONIC_MAX_BOOK_BYTES": ["inf", "-1", "0", HUGE, "big"],
    "SUPERTONIC_DEADLINE_MARGIN_S": ["inf", "nan", "-1", "900", "1e9", "soon"],
    "AWS_LAMBDA_FUNCTION_TIMEOUT": ["inf", "nan", "-1", "0", "901", "soon"],
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": ["inf", "-1", "0", "127", "10241", HUGE, "lots"],
    "SUPERTONIC_URL_EXPIRES_S": ["inf", "-1", "0", "604801", HUGE, "later"],
    "SUPERTONIC_RESULT_RETENTION_DAYS": ["inf", "-1", "0", HUGE, "forever"],
    "SUPERTONIC_UPLOAD_MB_PER_S": ["inf", "nan", "-1", "0", "0.05", "1e-9", "fast"],
    "SUPERTONIC_WARM_UP": ["maybe"],
    "SUPERTONIC_FANOUT_MIN_CHARS": ["inf", "-1", "0", "some"],
    "SUPERTONIC_EPHEMERAL_STORAGE_MB": ["inf", "-1", "0", "511", "10241", HUGE, "big"],
    "SUPERTONIC_FUNCTION_URL_INVOKE_MODE": ["STREAM"],
    "SUPERTONIC_FIRST_CHUNK_CHARS": ["inf", "-1", HUGE, "short"],
    "SUPERTONIC_FIRST_CHUNK_STEPS": ["inf", "-1", HUGE, "few"],
    "SUPERTONIC_TRIM_SILENCE": ["maybe"],
    "SUPERTONIC_STREAM_MIN_WRITE_BYTES": ["inf", "-1", HUGE, "some"],
    "SUPERTONIC_SSE_PAD_BYTES": ["inf", "-1", HUGE, "some"],
}
# The same for the engine's settings (ONNX Runtime's options and the text limit).
ENGINE_REFUSED = {
    "SUPERTONIC_INTRA_OP_THREADS": ["inf", "-1", "1025", HUGE, "two"],
    "SUPERTONIC_INTER_OP_THREADS": ["inf", "-1", "1025", HUGE, "two"],
    "SUPERTONIC_EXECUTION_MODE": ["fast"],
    "SUPERTONIC_GRAPH_OPTIMIZATION": ["max"],
    "SUPERTONIC_CPU_MEM_ARENA": ["maybe"],
    "SUPERTONIC_SHARED_ARENA": ["maybe"],
    "SUPERTONIC_MEM_PATTERN": ["maybe"],
    "SUPERTONIC_DYNAMIC_BLOCK_BASE": ["inf", "-1", HUGE, "four"],
    "SUPERTONIC_ALLOW_SPINNING": ["maybe"],
    "SUPERTONIC_PREPACKING": ["maybe"],
    "SUPERTONIC_PREPARED": ["maybe"],
    "SUPERTONIC_PRECISION": ["fp16"],
    "SUPERTONIC_PROFILING": ["maybe"],
    "SUPERTONIC_LOG_SEVERITY": ["inf", "-1", "5", "99", HUGE, "quiet"],
}
# The edges that are still good, so the checks above refuse no more than they must.
FUNCTION_ACCEPTED = {
    "SUPERTONIC_DEADLINE_MARGIN_S": ["0", "899.5"],
    "AWS_LAMBDA_FUNCTION_TIMEOUT": ["2.5", "900"],
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": ["128", "10240"],
    "SUPERTONIC_EPHEMERAL_STORAGE_MB": ["512", "10240"],
    "SUPERTONIC_URL_EXPIRES_S": ["1", "604800"],
    "SUPERTONIC_RESULT_RETENTION_DAYS": ["1", "36500"],
    "SUPERTONIC_UPLOAD_MB_PER_S": ["0.1", "1e6"],
    "SUPERTONIC_SSE_PAD_BYTES": ["0", "2048"],
}
ENGINE_ACCEPTED = {
    "SUPERTONIC_INTRA_OP_THREADS": ["0", "1024"],
    "SUPERTONIC_INTER_OP_THREADS": ["0", "1024"],
    "SUPERTONIC_DYNAMIC_BLOCK_BASE": ["0", "2147483647"],
    "SUPERTONIC_LOG_SEVERITY": ["0", "4"],
    "SUPERTONIC_PRECISION": ["FP32", "int8"],
}


def _cases(table: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(variable, value) for variable, values in table.items() for value in values]


@pytest.mark.parametrize(("variable", "value"), _cases(FUNCTION_REFUSED))
def test_a_function_setting_that_cannot_work_is_refused_by_name(variable: str, value: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        FunctionConfig.from_env({variable: value})
    assert raised.value.field == variable and variable in raised.value.message


@pytest.mark.parametrize(("variable", "value"), _cases(ENGINE_REFUSED))
def test_an_engine_setting_that_cannot_work_is_refused_by_name(variable: str, value: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        SessionConfig.from_env({variable: value})
    assert raised.value.field == variable and variable in raised.value.message


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0", "many"])
def test_the_engine_s_text_limit_is_refused_by_name(value: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        engine_config.max_text_chars({engine_config.ENV_MAX_TEXT_CHARS: value})
    assert raised.value.field == engine_config.ENV_MAX_TEXT_CHARS


@pytest.mark.parametrize(("variable", "value"), _cases(FUNCTION_ACCEPTED))
def test_the_edges_of_a_function_setting_s_range_are_accepted(variable: str, value: str) -> None:
    FunctionConfig.from_env({variable: value})


@pytest.mark.parametrize(("variable", "value"), _cases(ENGINE_ACCEPTED))
def test_the_edges_of_an_engine_setting_s_range_are_accepted(variable: str, value: str) -> None:
    SessionConfig.from_env({variable: value})


def test_every_numeric_or_closed_setting_is_in_the_tables() -> None:
    from supertonic_function.config import VARIABLES

    free_text = {"input_bucket", "input_prefix", "output_bucket", "output_prefix", "cors_allow_origins", "parts_queue_url", "parts_dlq_arn"}
    assert {variable for name, (variable, _) in VARIABLES.items() if name not in free_text} == set(FUNCTION_REFUSED)
    assert set(engine_config.SESSION_ENV_VARS) == set(ENGINE_REFUSED)


# --- through the handler -------------------------------------------------------------------------------


def _started(monkeypatch: pytest.MonkeyPatch, app: Any, model_dir: Path, **env: str) -> Service:
    """The app after an init phase with the template's buckets and ``env`` on top."""
    for name, value in {**FUNCTION_ENV, "SUPERTONIC_MODEL_DIR": str(model_dir), "SUPERTONIC_WARM_UP": "0", **env}.items():
        monkeypatch.setenv(name, value)
    service = Service.start()
    monkeypatch.setattr(app, "service", service)
    return service


def _health(app: Any) -> HttpAnswer:
    return HttpAnswer.of(app.lambda_handler(http_to_event("GET", "/health", [], b""), LambdaContext()))


@pytest.mark.parametrize(
    ("variable", "value"),
    [("SUPERTONIC_DEADLINE_MARGIN_S", "inf"), ("SUPERTONIC_UPLOAD_MB_PER_S", "1e-9"), ("SUPERTONIC_LOG_SEVERITY", "99")],
)
def test_health_and_requests_are_a_503_naming_the_setting(
    app: Any, tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    _started(monkeypatch, app, tiny_model_dir, **{variable: value})
    health = _health(app)
    assert health.status == 503 and health.json()["status"] == "unavailable"
    assert health.json()["error"]["code"] == "configuration_error" and health.json()["error"]["field"] == variable
    speech = HttpAnswer.of(app.lambda_handler(load_event("furl_post_tts"), LambdaContext()))
    assert speech.status == 503 and speech.json()["error"]["field"] == variable
    direct = app.lambda_handler(load_event("direct_invoke"), LambdaContext())
    assert direct["status"] == 503 and direct["error"]["field"] == variable


@pytest.mark.parametrize(("variable", "value"), [("SUPERTONIC_LOG_SEVERITY", "99"), ("SUPERTONIC_DYNAMIC_BLOCK_BASE", HUGE)])
def test_an_onnx_runtime_option_out_of_range_is_a_setting_not_a_corrupt_model(
    app: Any, tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    service = _started(monkeypatch, app, tiny_model_dir, **{variable: value})
    error = service.engine_or_error
    assert isinstance(error, ConfigurationError) and error.code == "configuration_error"
    assert error.field == variable and "Re-download" not in error.message


def _s3_event(s3: Any, key: str = "input/wrong-setting.txt") -> dict[str, Any]:
    body = b"A wrong setting must be named."
    reply = s3.put_object(Bucket=INPUT_BUCKET, Key=key, Body=body)
    return s3_put_event(INPUT_BUCKET, key, len(body), reply["ETag"].strip('"'))


def _in_sqs(body: dict[str, Any], message_id: str = "m-1") -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": message_id,
                "receiptHandle": "handle",
                "body": json.dumps(body),
                "attributes": {"ApproximateReceiveCount": "1"},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:texts",
                "awsRegion": "us-east-1",
            }
        ]
    }


def test_an_s3_event_raises_the_setting_at_fault_not_the_bucket_one(
    app: Any, s3: Any, tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _started(monkeypatch, app, tiny_model_dir, SUPERTONIC_URL_EXPIRES_S="0")
    with pytest.raises(ConfigurationError) as raised:
        app.lambda_handler(_s3_event(s3), LambdaContext())
    # What Lambda's retries and the on-failure destination carry: the setting to fix.
    assert raised.value.field == "SUPERTONIC_URL_EXPIRES_S" and "SUPERTONIC_OUTPUT_BUCKET" not in raised.value.message
    assert s3.list_objects_v2(Bucket=OUTPUT_BUCKET).get("KeyCount", 0) == 0  # no manifest blames the text


def test_an_sqs_batch_fails_with_the_setting_at_fault(app: Any, s3: Any, tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _started(monkeypatch, app, tiny_model_dir, SUPERTONIC_URL_EXPIRES_S="0")
    with pytest.raises((ConfigurationError, BatchFailed)) as raised:
        app.lambda_handler(_in_sqs(_s3_event(s3)), LambdaContext())
    error = raised.value
    assert isinstance(error, ConfigurationError), f"{type(error).__name__}: {error}"
    assert error.field == "SUPERTONIC_URL_EXPIRES_S"
    assert s3.list_objects_v2(Bucket=OUTPUT_BUCKET).get("KeyCount", 0) == 0  # no manifest blames the text
