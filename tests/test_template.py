"""template.yaml: valid for cfn-lint, and shaped the way the function and the Lambda notes require."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from fixtures_s3 import FUNCTION_ENV, INPUT_BUCKET, OUTPUT_BUCKET

from supertonic_engine import DEFAULT_SPEED, SPEED_RANGE
from supertonic_engine.config import ENV_MODEL_DIR
from supertonic_function import cors as function_cors
from supertonic_function.config import (
    ENV_CORS_ALLOW_ORIGINS,
    ENV_FUNCTION_TIMEOUT,
    ENV_METRICS_NAMESPACE,
    ENV_SERVICE_NAME,
    TEXT_SUFFIXES,
    VARIABLES,
    FunctionConfig,
)
from supertonic_function.layout import KeyKind, Layout
from supertonic_harness.function import template as template_module
from supertonic_harness.function.template import Template

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "template.yaml"


@pytest.fixture(scope="module")
def template() -> Template:
    return Template.load(TEMPLATE)


@pytest.fixture(scope="module")
def function(template: Template) -> dict[str, Any]:
    return template.resources["TtsFunction"]


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """The whole template as CloudFormation reads it (Conditions and Rules included)."""
    return yaml.load(TEMPLATE.read_text(), Loader=template_module._CfnLoader)


def _statements(function: dict[str, Any], action: str) -> list[dict[str, Any]]:
    (policy,) = function["Properties"]["Policies"]
    return [s for s in policy["Statement"] if action in (s["Action"] if isinstance(s["Action"], list) else [s["Action"]])]


def _iam_matches(pattern: str, value: str) -> bool:
    """IAM's wildcards: ``*`` is any run of characters (slashes too), ``?`` one character."""
    return re.fullmatch(re.escape(pattern).replace(r"\*", ".*").replace(r"\?", "."), value) is not None


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


def test_s3_events_watch_text_jobs_and_books_under_the_input_prefix(template: Template) -> None:
    triggers = template.function("TtsFunction").s3_triggers
    assert {(t.bucket, t.prefix, t.suffix) for t in triggers} == {(INPUT_BUCKET, "input/", suffix) for suffix in TEXT_SUFFIXES}
    # Results go to another bucket, so they can never trigger the function.
    assert all(t.bucket != OUTPUT_BUCKET for t in triggers)


def test_the_function_reads_exactly_the_keys_the_s3_filters_deliver(template: Template) -> None:
    # S3 matches suffixes case-sensitively: what the filters never deliver, the function must not take either.
    layout = Layout(FunctionConfig(input_bucket=INPUT_BUCKET, output_bucket=OUTPUT_BUCKET))
    for trigger in template.function("TtsFunction").s3_triggers:
        assert layout.kind(trigger.bucket, trigger.key_for("story")) is KeyKind.INPUT
        assert layout.kind(trigger.bucket, trigger.prefix + "story" + trigger.suffix.upper()) is KeyKind.OTHER


def test_tmp_holds_the_longest_job_made_in_one_invocation(function: dict[str, Any], template: Template) -> None:
    # A job made in one invocation encodes into /tmp; longer ones are rendered in parts and joined
    # in S3 (or refused at planning where their file would be encoded whole past /tmp). The longest
    # text that does not fan out, as Korean (about 6.5 syllables a second at the normal pace) read at
    # the slowest speed, as 16-bit 44.1 kHz WAV, must fit.
    longest = int(template.resolve(template.function("TtsFunction").environment["SUPERTONIC_FANOUT_MIN_CHARS"]))
    seconds = longest / (6.5 * SPEED_RANGE[0] / DEFAULT_SPEED)
    wav_bytes = seconds * 44_100 * 2
    assert int(template.resolve(function["Properties"]["EphemeralStorage"]["Size"]) or 0) * 1024 * 1024 >= wav_bytes


def test_cors_is_the_url_s_own_and_matches_the_function_s(function: dict[str, Any], template: Template, document: dict[str, Any]) -> None:
    # Browser preflights are unsigned: only the URL's Cors block answers them under AWS_IAM too.
    url = function["Properties"]["FunctionUrlConfig"]
    condition, cors, otherwise = url["Cors"]["Fn::If"]
    assert otherwise == {"Ref": "AWS::NoValue"}  # no origins, no CORS at all
    conditions = document["Conditions"]
    assert conditions[condition] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "CorsAllowOrigins"}, ""]}]}
    assert cors["AllowOrigins"] == {"Fn::Split": [",", {"Ref": "CorsAllowOrigins"}]}
    assert tuple(cors["AllowMethods"]) == function_cors.CORS_ALLOW_METHODS
    assert tuple(cors["AllowHeaders"]) == function_cors.CORS_ALLOW_HEADERS
    assert tuple(cors["ExposeHeaders"]) == function_cors.CORS_EXPOSE_HEADERS
    assert cors["MaxAge"] == function_cors.CORS_MAX_AGE_S
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
        resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        if actions == ["sqs:SendMessage"]:  # the planner sends to the parts queue and nowhere else
            assert resources == [{"Fn::GetAtt": ["PartsQueue", "Arn"]}], statement
        elif actions != ["s3:ListBucket"]:
            assert all(r["Fn::Sub"].endswith(("*", ".json", "/chunks.txt")) for r in resources), statement  # prefixes, or named objects
            assert all("/" in r["Fn::Sub"] for r in resources), statement


def _lifecycle_rules(template: Template) -> list[dict[str, Any]]:
    return template.resources["OutputBucket"]["Properties"]["LifecycleConfiguration"]["Rules"]


def test_short_retention_of_parked_responses_never_matches_a_result(template: Template) -> None:
    # An input folder may have any name, "responses/" included: its results keep their retention.
    layout = Layout(FunctionConfig(input_bucket=INPUT_BUCKET, output_bucket=OUTPUT_BUCKET))
    (short,) = [rule for rule in _lifecycle_rules(template) if rule.get("ExpirationInDays") == 1]
    assert layout.response_key("request-1", "wav").startswith(short["Prefix"])
    for key in ("input/responses/story.txt", "input/story.txt", "input/jobs/" + "0" * 32 + ".json"):
        keys = layout.result_keys(key, "etag", {"voice": "F1"})
        assert not keys.manifest.startswith(short["Prefix"]), keys.manifest
        assert not keys.audio("wav", "request-1").startswith(short["Prefix"])


def test_cut_short_uploads_are_aborted(function: dict[str, Any], template: Template) -> None:
    # A failed multipart upload is aborted by the function (the action must be allowed); one cut
    # short by a timeout cannot be, and the lifecycle rule removes its parts.
    (abort,) = [rule for rule in _lifecycle_rules(template) if "AbortIncompleteMultipartUpload" in rule]
    assert abort["Status"] == "Enabled" and abort["Prefix"] == FunctionConfig().output_prefix
    assert abort["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"] >= 1
    (policy,) = function["Properties"]["Policies"]
    (results,) = [statement for statement in policy["Statement"] if statement["Sid"] == "WriteAndReadResults"]
    assert "s3:AbortMultipartUpload" in results["Action"] and "s3:PutObject" in results["Action"]


def test_results_expire_when_the_function_says_they_do(template: Template) -> None:
    (results,) = [rule for rule in _lifecycle_rules(template) if rule["Id"] == "expire-results"]
    days = template.parameters["ResultRetentionDays"]["Default"]
    assert results["ExpirationInDays"] == {"Ref": "ResultRetentionDays"}
    assert template.function("TtsFunction").environment["SUPERTONIC_RESULT_RETENTION_DAYS"] == str(days)


def test_outputs() -> None:
    class TagsAsText(yaml.SafeLoader):
        """Reads CloudFormation's short tags (!Ref, !GetAtt, !Sub) as plain values."""

    TagsAsText.add_multi_constructor(
        "!", lambda loader, tag, node: loader.construct_scalar(node) if isinstance(node, yaml.ScalarNode) else None
    )
    outputs = yaml.load(TEMPLATE.read_text(), Loader=TagsAsText)["Outputs"]
    assert {"FunctionUrl", "InputBucketName", "OutputBucketName", "FunctionName", "FailedEventsQueueUrl"} <= set(outputs)
    assert outputs["FunctionUrl"]["Value"] == "TtsFunctionUrl.FunctionUrl"


# --- least privilege and the public edge ----------------------------------------------------------------

LAYOUT = Layout(FunctionConfig(input_bucket=INPUT_BUCKET, output_bucket=OUTPUT_BUCKET))
REQUEST_ID = "8f14e45f-ceea-467f-a0e6-5c1a9d1b8e2a"
JOB_KEY = LAYOUT.job_key("0123456789abcdef0123456789abcdef")
RESULTS = LAYOUT.result_keys("input/story.txt", "0a1b2c3d")


def test_list_bucket_only_for_the_prefixes_the_function_reads(function: dict[str, Any], template: Template) -> None:
    # ListBucket only makes a HEAD or GET of a missing key a 404; S3 checks it with the key as s3:prefix.
    prefixes: dict[str, list[str]] = {}
    for statement in _statements(function, "s3:ListBucket"):
        assert statement["Action"] == "s3:ListBucket"  # alone: nothing else is bucket-wide
        bucket = template.resolve(statement["Resource"]).rpartition(":")[2]
        prefixes.setdefault(bucket, []).append(template.resolve(statement["Condition"]["StringLike"]["s3:prefix"]))
    assert set(prefixes) == {INPUT_BUCKET, OUTPUT_BUCKET}
    read = {INPUT_BUCKET: ["input/story.txt", JOB_KEY], OUTPUT_BUCKET: [RESULTS.manifest]}
    for bucket, keys in read.items():
        assert all(any(_iam_matches(p, key) for p in prefixes[bucket]) for key in keys), (bucket, keys)
        assert not any(_iam_matches(p, "private/notes.txt") or _iam_matches(p, "") for p in prefixes[bucket])


def test_deletes_only_a_losing_deliverys_audio_and_a_long_jobs_parts(function: dict[str, Any], template: Template) -> None:
    patterns = []
    for statement in _statements(function, "s3:DeleteObject"):
        assert statement["Action"] == "s3:DeleteObject"
        resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        patterns += [template.resolve(r) for r in resources]
    arn = f"arn:aws:s3:::{OUTPUT_BUCKET}/"
    for removable in (
        RESULTS.audio("mp3", REQUEST_ID),
        RESULTS.part(3),
        RESULTS.encoded_part(3),
        RESULTS.part_error(3),
        RESULTS.chunks,
        RESULTS.claim,
    ):
        assert any(_iam_matches(p, arn + removable) for p in patterns), removable
    for kept in (RESULTS.manifest, RESULTS.plan, LAYOUT.response_key(REQUEST_ID, "wav"), "input/story.txt"):
        assert not any(_iam_matches(p, arn + kept) for p in patterns), kept


def test_parts_queue_hides_a_part_six_timeouts_and_dead_letters_it(template: Template) -> None:
    parameters = template.parameters
    assert int(parameters["PartsVisibilityTimeout"]["Default"]) >= 6 * int(parameters["Timeout"]["Default"])
    queues = template.queues()
    parts, dead = queues["PartsQueue"], queues["PartsDeadLetterQueue"]
    # Five receives, as AWS advises for a queue a function reads; the mappings' concurrency is
    # checked against ReservedConcurrency in test_template_alarms.py.
    assert parts.dead_letter_arn == dead.arn and parts.max_receive_count == 5
    function = template.function("TtsFunction")
    arns = {trigger.queue_arn: trigger for trigger in function.sqs_triggers}
    assert set(arns) == {parts.arn, dead.arn}
    assert all(t.report_batch_item_failures for t in arns.values())
    assert function.environment["SUPERTONIC_PARTS_DLQ_ARN"] == dead.arn


def test_buckets_refuse_plain_http(template: Template) -> None:
    policies = {
        r["Properties"]["Bucket"]["Ref"]: r["Properties"]["PolicyDocument"]
        for r in template.resources.values()
        if r["Type"] == "AWS::S3::BucketPolicy"
    }
    assert set(policies) == set(template.buckets())
    for bucket, policy in policies.items():
        (deny,) = [s for s in policy["Statement"] if s["Effect"] == "Deny"]
        assert deny["Principal"] == "*" and deny["Action"] == "s3:*"
        assert deny["Condition"] == {"Bool": {"aws:SecureTransport": False}}
        assert deny["Resource"] == [{"Fn::GetAtt": [bucket, "Arn"]}, {"Fn::Sub": f"${{{bucket}.Arn}}/*"}]


def test_concurrency_can_be_reserved_and_must_be_for_a_public_url(
    function: dict[str, Any], template: Template, document: dict[str, Any]
) -> None:
    parameter = template.parameters["ReservedConcurrency"]
    assert (parameter["Type"], parameter["Default"]) == ("Number", 0) and 0 in parameter["AllowedValues"]
    # 0 means unreserved (ReservedConcurrentExecutions: 0 would stop the function altogether).
    assert function["Properties"]["ReservedConcurrentExecutions"] == {
        "Fn::If": ["HasReservedConcurrency", {"Ref": "ReservedConcurrency"}, {"Ref": "AWS::NoValue"}]
    }
    assert document["Conditions"]["HasReservedConcurrency"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "ReservedConcurrency"}, 0]}]}
    (rule,) = [r for r in document["Rules"].values() if r["RuleCondition"] == {"Fn::Equals": [{"Ref": "FunctionUrlAuthType"}, "NONE"]}]
    (assertion,) = rule["Assertions"]
    assert assertion["Assert"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "ReservedConcurrency"}, "0"]}]}


def test_output_bucket_lets_the_url_s_origins_read_the_audio(template: Template) -> None:
    # A browser follows the 303 to the presigned link, or fetches audio_url, from the page's origin.
    condition, cors, otherwise = template.resources["OutputBucket"]["Properties"]["CorsConfiguration"]["Fn::If"]
    assert (condition, otherwise) == ("HasCorsOrigins", {"Ref": "AWS::NoValue"})
    (rule,) = cors["CorsRules"]
    # "null": the Origin a followed cross-origin redirect carries.
    assert rule["AllowedOrigins"] == {"Fn::Split": [",", {"Fn::Sub": "${CorsAllowOrigins},null"}]}
    assert set(rule["AllowedMethods"]) == {"GET", "HEAD"} and rule["MaxAge"] == function_cors.CORS_MAX_AGE_S
    assert "CorsConfiguration" not in template.resources["InputBucket"]["Properties"]


def test_the_function_is_told_its_timeout(function: dict[str, Any], template: Template) -> None:
    variables = function["Properties"]["Environment"]["Variables"]
    assert variables[ENV_FUNCTION_TIMEOUT] == {"Ref": "Timeout"}
    config = FunctionConfig.from_env(template.function("TtsFunction").environment)
    assert config.function_timeout_s == template.parameters["Timeout"]["Default"]
    assert config.deadline_margin_s < template.parameters["Timeout"]["MinValue"]  # the defaults always leave time


def test_snapstart_and_provisioned_concurrency_are_off_by_default_and_the_alias_always_exists(
    function: dict[str, Any], template: Template
) -> None:
    properties = function["Properties"]
    # Every way in (URL, S3 and SQS events, async retries) goes through the alias SAM makes for this.
    assert properties["AutoPublishAlias"] == "live"
    assert template.evaluate(properties["SnapStart"]) == {"ApplyOn": "None"}
    assert "ProvisionedConcurrencyConfig" not in template.evaluate(properties)
    assert template.refusals() == []


def test_snapstart_applies_to_published_versions(function: dict[str, Any], template: Template) -> None:
    deployed = template.with_parameters({"SnapStart": "PublishedVersions", "EphemeralStorageMB": 512})
    assert deployed.evaluate(function["Properties"]["SnapStart"]) == {"ApplyOn": "PublishedVersions"}
    assert deployed.refusals() == []


def test_provisioned_concurrency_configures_the_alias(function: dict[str, Any], template: Template) -> None:
    deployed = template.with_parameters({"ProvisionedConcurrency": 2})
    assert deployed.evaluate(function["Properties"])["ProvisionedConcurrencyConfig"] == {"ProvisionedConcurrentExecutions": "2"}
    assert deployed.refusals() == []


def test_snapstart_refuses_provisioned_concurrency_and_more_than_512_mb_of_tmp(template: Template) -> None:
    # https://docs.aws.amazon.com/lambda/latest/dg/snapstart.html, "Supported features and limitations".
    both = template.with_parameters({"SnapStart": "PublishedVersions", "EphemeralStorageMB": 512, "ProvisionedConcurrency": 1})
    (refused,) = both.refusals()
    assert "ProvisionedConcurrency to 0" in refused
    (refused,) = template.with_parameters({"SnapStart": "PublishedVersions"}).refusals()  # /tmp at its default, 2,048 MB
    assert "EphemeralStorageMB to 512" in refused


def test_the_snapstart_refusal_says_how_much_audio_512_mb_of_tmp_holds(template: Template) -> None:
    # 16-bit mono WAV at the model's 44.1 kHz: 88,200 bytes a second; 2,048 MB as the parameter's own description says.
    hours = 512 * 1024 * 1024 / 88_200 / 3600
    (refused,) = template.with_parameters({"SnapStart": "PublishedVersions"}).refusals()
    assert f"about {hours:.1f} hours of WAV" in refused
    assert "2,048 MB holds 6.7 hours" in refused and "6.7 hours" in template.parameters["EphemeralStorageMB"]["Description"]
