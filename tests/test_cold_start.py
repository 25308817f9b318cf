"""Cold start: the init imports only what every request needs; S3's client comes with the first S3 call."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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
        **os.environ, **FUNCTION_ENV, "SUPERTONIC_MODEL_DIR": str(tiny_model_dir), "SUPERTONIC_WARM_UP": "0",
        "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9", "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x",
        "AWS_DEFAULT_REGION": "us-east-1", "AWS_MAX_ATTEMPTS": "1",
    }
    done = subprocess.run([sys.executable, "-c", PROBE, INPUT_BUCKET], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["at_init"] == []
    assert facts["after_s3"] == ["boto3", "botocore.config"]
    assert "avx2" in facts["cpu"]["flags"] or facts["cpu"]["machine"] != "x86_64"
