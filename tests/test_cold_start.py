"""Cold start: the init imports only what every request needs; S3's client comes with the first S3 call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fixtures_s3 import FUNCTION_ENV, INPUT_BUCKET

# Runs the function's init phase in a fresh interpreter (this test process has boto3 loaded by the
# S3 fixtures), then the first job lookup, which reads S3.
PROBE = """
import json, sys
import supertonic_function.app as app
at_init = sorted(m for m in ("boto3", "botocore.config", "s3transfer") if m in sys.modules)
health = app.service.init_report()
try:
    app.service.store.get_json(sys.argv[1], "nothing-here.json")
except Exception as error:
    pass  # the bucket is not reachable here: only whether the import happened matters
after_s3 = sorted(m for m in ("boto3", "botocore.config") if m in sys.modules)
print(json.dumps({"at_init": at_init, "after_s3": after_s3, "cpu": health["cpu"]}))
"""


def test_the_init_phase_does_not_import_boto3_even_with_buckets_configured(tiny_model_dir):
    env = {
        **os.environ,
        **FUNCTION_ENV,
        "SUPERTONIC_MODEL_DIR": str(tiny_model_dir),
        "SUPERTONIC_WARM_UP": "0",
        "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9",
        "AWS_ACCESS_KEY_ID": "x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_MAX_ATTEMPTS": "1",
    }
    done = subprocess.run([sys.executable, "-c", PROBE, INPUT_BUCKET], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["at_init"] == []
    assert facts["after_s3"] == ["boto3", "botocore.config"]
    assert "avx2" in facts["cpu"]["flags"] or facts["cpu"]["machine"] != "x86_64"


# The Lambda context the probes below hand their handler call.
LAMBDA_CONTEXT = """
class Context:
    aws_request_id = "req-1"
    function_name = "supertonic-tts"
    function_version = "$LATEST"
    memory_limit_in_mb = "2048"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:supertonic-tts"
    def get_remaining_time_in_millis(self):
        return 60_000
"""


# The handler's init and a /health call, in a fresh interpreter; "as-image" first makes the modules
# the image does not hold unimportable (it installs no onnx or huggingface_hub, copies no tools/).
RUNTIME_PROBE = (
    """
import importlib.abc, json, re, sys

class NotInTheImage(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("onnx", "huggingface_hub", "supertonic_tools"):
            raise ModuleNotFoundError(f"No module named {name!r} (the image has none)", name=name)
        return None

if sys.argv[1] == "as-image":
    sys.meta_path.insert(0, NotInTheImage())

"""
    + LAMBDA_CONTEXT
    + """

import supertonic_function.app as app
answer = app.lambda_handler(json.load(open(sys.argv[2])), Context())
build_tools = sorted(m for m in sys.modules if m.split(".")[0] in ("supertonic_tools", "onnx", "huggingface_hub")
                     or re.search(r"[.](standin|optimize|fetch)([.]|$)", m))
print(json.dumps({"status": answer["statusCode"], "health": json.loads(answer["body"]), "build_tools": build_tools}))
"""
)


def _health_in_a_fresh_process(mode: str, model_dir: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "SUPERTONIC_MODEL_DIR"} | {"SUPERTONIC_WARM_UP": "0"}
    if model_dir is not None:
        env["SUPERTONIC_MODEL_DIR"] = model_dir
    event = Path(__file__).resolve().parents[1] / "events" / "furl_get_health.json"
    done = subprocess.run([sys.executable, "-c", RUNTIME_PROBE, mode, str(event)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_handler_loads_none_of_the_build_tools(tiny_model_dir):
    facts = _health_in_a_fresh_process("with-tools-installed", str(tiny_model_dir))
    assert facts["status"] == 200 and facts["health"]["model_kind"] == "stand-in"
    assert facts["build_tools"] == []  # no stand-in generator, optimizer, fetcher, onnx or hub client


def test_without_a_model_directory_health_is_a_503_naming_the_setting():
    # As in the image: no SUPERTONIC_MODEL_DIR and nothing that could make a stand-in.
    facts = _health_in_a_fresh_process("as-image", None)
    assert facts["status"] == 503 and facts["health"]["status"] == "unavailable" and facts["health"]["model_loaded"] is False
    error = facts["health"]["error"]
    assert error["code"] == "model_missing" and error["field"] == "SUPERTONIC_MODEL_DIR"
    assert "set SUPERTONIC_MODEL_DIR" in error["message"] and "fetch-model" in error["message"]  # says what to do


# Modules a cold start's init and first function URL request have no use for, with what they cost
# inside the image under lambda-2048 (python -X importtime, benchmarks/cold-first-audio-image-stdlib.txt).
NOT_ON_THE_FIRST_REQUEST = (
    "asyncio",  # Powertools' batch processor (SQS batches only): 89 ms with its imports, 35 ms once the standard library is compiled
    "aws_lambda_powertools.utilities.batch",
)
FIRST_REQUEST_PROBE = (
    """
import json, sys
import supertonic_function.app as app
"""
    + LAMBDA_CONTEXT
    + """
answer = app.lambda_handler(json.load(open(sys.argv[1])), Context())
print(json.dumps({"status": answer["statusCode"], "loaded": sorted(m for m in sys.argv[2:] if m in sys.modules)}))
"""
)


def test_init_and_the_first_function_url_request_leave_the_sqs_batch_machinery_unloaded(tiny_model_dir):
    env = {**os.environ, "SUPERTONIC_MODEL_DIR": str(tiny_model_dir), "SUPERTONIC_WARM_UP": "0"}
    event = Path(__file__).resolve().parents[1] / "events" / "furl_post_tts.json"
    command = [sys.executable, "-c", FIRST_REQUEST_PROBE, str(event), *NOT_ON_THE_FIRST_REQUEST]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts == {"status": 200, "loaded": []}
