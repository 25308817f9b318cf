"""template.yaml: valid for cfn-lint, and shaped the way the function and the Lambda notes require."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from fixtures_s3 import FUNCTION_ENV, INPUT_BUCKET, OUTPUT_BUCKET
from supertonic_engine.config import DEFAULT_MAX_TEXT_CHARS, ENV_MODEL_DIR
from supertonic_engine.synthesis import DEFAULT_SPEED, SPEED_RANGE
from supertonic_function import http_api
from supertonic_function.config import ENV_CORS_ALLOW_ORIGINS, ENV_METRICS_NAMESPACE, ENV_SERVICE_NAME, VARIABLES, FunctionConfig
from supertonic_function.layout import KeyKind, Layout
from supertonic_harness import template as template_module
from supertonic_harness.template import Template

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "template.yaml"


@pytest.fixture(scope="module")
def template() -> Template:
    return Template.load(TEMPLATE)


@pytest.fixture(scope="module")
def function(template: Template) -> dict[str, Any]:
    return template.resources["TtsFunction"]


@pytest.mark.slow  # cfn-lint loads every resource schema: ~5 s of imports
def test_cfn_lint_passes() -> None:
    cfn_lint = Path(sys.executable).with_name("cfn-lint")
    result = subprocess.run([str(cfn_lint), str(TEMPLATE)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_image_function(function: dict[str, Any], template: Template) -> None:
    properties = function["Properties"]
    assert properties["PackageType"] == "Image"
    assert template.globals["Architectures"] == ["x86_64"]  # onnxruntime aborts on arm64 Lambda
    assert {"Dockerfile", "DockerContext", "DockerTag"} <= set(function["Metadata"])
    assert (REPO / function["Metadata"]["Dockerfile"]).is_file()
    assert properties["MemorySize"] == {"Ref": "MemorySize"} and properties["Timeout"] == {"Ref": "Timeout"}
    assert template.parameters["MemorySize"]["Default"] == 1769  # bench --cost's recommendation


def test_function_url_defaults_to_iam(function: dict[str, Any], template: Template) -> None:
    assert function["Properties"]["FunctionUrlConfig"]["AuthType"] == {"Ref": "FunctionUrlAuthType"}
    auth = template.parameters["FunctionUrlAuthType"]
    assert auth["Default"] == "AWS_IAM" and set(auth["AllowedValues"]) == {"AWS_IAM", "NONE"}


def test_environment_names_the_buckets_the_events_use(template: Template) -> None:
    config = template.function("TtsFunction")
    assert {k: config.environment[k] for k in FUNCTION_ENV} == FUNCTION_ENV
    assert set(template.buckets().values()) == {INPUT_BUCKET, OUTPUT_BUCKET}
    known = {variable for variable, _ in VARIABLES.values()} | {ENV_MODEL_DIR, ENV_SERVICE_NAME, ENV_METRICS_NAMESPACE}
    assert set(config.environment) <= known, "the template sets a variable the function does not read"


def test_no_ref_to_a_bucket_outside_the_s3_events(function: dict[str, Any]) -> None:
    # !Ref/!GetAtt of the notifying bucket in the function's environment or policies makes
    # CloudFormation report a circular dependency; names are built with !Sub instead.
    text = json.dumps({k: v for k, v in function["Properties"].items() if k != "Events"})
    for bucket in ("InputBucket", "OutputBucket"):
        assert f'"Ref": "{bucket}"' not in text and f'"{bucket}", "Arn"' not in text


def test_s3_events_watch_text_and_jobs_under_the_input_prefix(template: Template) -> None:
    triggers = template.function("TtsFunction").s3_triggers
    assert {(t.bucket, t.prefix, t.suffix) for t in triggers} == {(INPUT_BUCKET, "input/", ".txt"), (INPUT_BUCKET, "input/", ".json")}
    # Results go to another bucket, so they can never trigger the function.
    assert all(t.bucket != OUTPUT_BUCKET for t in triggers)


def test_the_function_reads_exactly_the_keys_the_s3_filters_deliver(template: Template) -> None:
    # S3 matches suffixes case-sensitively: what the filters never deliver, the function must not take either.
    layout = Layout(FunctionConfig(input_bucket=INPUT_BUCKET, output_bucket=OUTPUT_BUCKET))
    for trigger in template.function("TtsFunction").s3_triggers:
        assert layout.kind(trigger.bucket, trigger.key_for("story")) is KeyKind.INPUT
        assert layout.kind(trigger.bucket, trigger.prefix + "story" + trigger.suffix.upper()) is KeyKind.OTHER


def test_tmp_holds_the_longest_job(function: dict[str, Any]) -> None:
    # S3 jobs encode into /tmp. The longest text the engine takes, as Korean (about 6.5 syllables
    # a second at the normal pace) read at the slowest speed, as 16-bit 44.1 kHz WAV, must fit.
    seconds = DEFAULT_MAX_TEXT_CHARS / (6.5 * SPEED_RANGE[0] / DEFAULT_SPEED)
    wav_bytes = seconds * 44_100 * 2
    assert function["Properties"]["EphemeralStorage"]["Size"] * 1024 * 1024 >= wav_bytes


def test_cors_is_the_url_s_own_and_matches_the_function_s(function: dict[str, Any], template: Template) -> None:
    # Browser preflights are unsigned: only the URL's Cors block answers them under AWS_IAM too.
    url = function["Properties"]["FunctionUrlConfig"]
    condition, cors, otherwise = url["Cors"]["Fn::If"]
    assert otherwise == {"Ref": "AWS::NoValue"}  # no origins, no CORS at all
    conditions = yaml.load(TEMPLATE.read_text(), Loader=template_module._CfnLoader)["Conditions"]
    assert conditions[condition] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "CorsAllowOrigins"}, ""]}]}
    assert cors["AllowOrigins"] == {"Fn::Split": [",", {"Ref": "CorsAllowOrigins"}]}
    assert tuple(cors["AllowMethods"]) == http_api.CORS_ALLOW_METHODS
    assert tuple(cors["AllowHeaders"]) == http_api.CORS_ALLOW_HEADERS
    assert tuple(cors["ExposeHeaders"]) == http_api.CORS_EXPOSE_HEADERS
    assert cors["MaxAge"] == http_api.CORS_MAX_AGE_S
    assert all(len(method) <= 6 for method in cors["AllowMethods"])  # Lambda's limit per entry
    # The function does not answer CORS as well where the URL does.
    assert ENV_CORS_ALLOW_ORIGINS not in template.function("TtsFunction").environment


def test_failed_events_go_to_a_destination(function: dict[str, Any]) -> None:
    invoke = function["Properties"]["EventInvokeConfig"]
    assert invoke["MaximumRetryAttempts"] == 2
    assert invoke["DestinationConfig"]["OnFailure"]["Type"] == "SQS"


def test_policies_are_scoped_to_prefixes(function: dict[str, Any]) -> None:
    (policy,) = function["Properties"]["Policies"]
    for statement in policy["Statement"]:
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        assert all(not action.endswith("*") for action in actions), statement
        if actions != ["s3:ListBucket"]:
            assert statement["Resource"]["Fn::Sub"].endswith("*") and "/" in statement["Resource"]["Fn::Sub"], statement


def test_outputs() -> None:
    class TagsAsText(yaml.SafeLoader):
        """Reads CloudFormation's short tags (!Ref, !GetAtt, !Sub) as plain values."""

    TagsAsText.add_multi_constructor("!", lambda loader, tag, node: loader.construct_scalar(node) if isinstance(node, yaml.ScalarNode) else None)
    outputs = yaml.load(TEMPLATE.read_text(), Loader=TagsAsText)["Outputs"]
    assert {"FunctionUrl", "InputBucketName", "OutputBucketName", "FunctionName", "FailedEventsQueueUrl"} <= set(outputs)
    assert outputs["FunctionUrl"]["Value"] == "TtsFunctionUrl.FunctionUrl"
