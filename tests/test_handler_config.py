"""The function's configuration: argument > environment > default, checked at init."""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

import supertonic_function
from supertonic_engine.config import threads_for, usable_cpus
from supertonic_engine.errors import ConfigurationError
from supertonic_function.config import VARIABLES, FunctionConfig, TelemetryNames

REPO = Path(__file__).resolve().parents[1]


def test_every_setting_has_one_environment_variable() -> None:
    assert set(VARIABLES) == {f.name for f in fields(FunctionConfig)}
    names = [variable for variable, _ in VARIABLES.values()]
    assert len(names) == len(set(names))


def test_precedence_argument_over_environment_over_default() -> None:
    env = {"SUPERTONIC_SYNC_MAX_TEXT_CHARS": "500", "SUPERTONIC_URL_EXPIRES_S": "60"}
    config = FunctionConfig.from_env(env, url_expires_s=900)
    assert config.sync_max_text_chars == 500  # environment
    assert config.url_expires_s == 900  # argument
    assert config.deadline_margin_s == FunctionConfig.deadline_margin_s  # default


def test_values_are_normalised() -> None:
    config = FunctionConfig.from_env(
        {
            "SUPERTONIC_INPUT_BUCKET": "in",
            "SUPERTONIC_INPUT_PREFIX": "/texts",
            "SUPERTONIC_OUTPUT_PREFIX": "audio//",
            "SUPERTONIC_CORS_ALLOW_ORIGINS": "https://a.example/, https://b.example",
            "SUPERTONIC_WARM_UP": "off",
            "SUPERTONIC_OUTPUT_BUCKET": "",
        }
    )
    assert (config.input_prefix, config.output_prefix) == ("texts/", "audio/")
    assert config.cors_allow_origins == ("https://a.example", "https://b.example")
    assert config.warm_up is False
    assert config.output_bucket is None and config.results_bucket == "in"
    assert config.jobs_prefix == "texts/jobs/" and config.responses_prefix == "audio/responses/"


@pytest.mark.parametrize(
    ("variable", "value"),
    [("SUPERTONIC_SYNC_MAX_TEXT_CHARS", "0"), ("SUPERTONIC_DEADLINE_MARGIN_S", "soon"), ("SUPERTONIC_WARM_UP", "maybe")],
)
def test_bad_values_name_the_variable(variable: str, value: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        FunctionConfig.from_env({variable: value})
    assert raised.value.field == variable and value in raised.value.message


def test_telemetry_names_never_fail_and_fall_back_to_defaults() -> None:
    # Read at the first import, before FunctionConfig: nothing here may raise, even on a bad deploy.
    assert TelemetryNames.from_env({}) == TelemetryNames("supertonic-tts", "Supertonic")
    named = TelemetryNames.from_env(
        {"POWERTOOLS_SERVICE_NAME": "tts-eu", "POWERTOOLS_METRICS_NAMESPACE": " ", "SUPERTONIC_WARM_UP": "maybe"}
    )
    assert named == TelemetryNames("tts-eu", "Supertonic")


def test_outputs_under_the_input_prefix_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="SUPERTONIC_OUTPUT_BUCKET"):
        FunctionConfig.from_env({"SUPERTONIC_INPUT_BUCKET": "b", "SUPERTONIC_INPUT_PREFIX": "in/", "SUPERTONIC_OUTPUT_PREFIX": "in/out/"})
    # A separate output bucket makes any prefixes safe.
    FunctionConfig(input_bucket="b", output_bucket="c", input_prefix="x/", output_prefix="x/")


def test_version_matches_the_project() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert supertonic_function.__version__ == project["version"]


@pytest.mark.parametrize(("margin", "timeout"), [("120", "120"), ("130", "120"), ("3", "2.5")])
def test_a_margin_that_leaves_no_synthesis_time_is_refused(margin: str, timeout: str) -> None:
    # Every request would be a 504 and every dropped text a failure blamed on the text.
    with pytest.raises(ConfigurationError) as raised:
        FunctionConfig.from_env({"SUPERTONIC_DEADLINE_MARGIN_S": margin, "AWS_LAMBDA_FUNCTION_TIMEOUT": timeout})
    assert raised.value.field == "SUPERTONIC_DEADLINE_MARGIN_S"
    assert "AWS_LAMBDA_FUNCTION_TIMEOUT" in raised.value.message and "below the timeout" in raised.value.message


def test_a_margin_is_checked_only_against_a_known_timeout() -> None:
    assert FunctionConfig.from_env({"SUPERTONIC_DEADLINE_MARGIN_S": "2", "AWS_LAMBDA_FUNCTION_TIMEOUT": "3"}).function_timeout_s == 3
    # Outside Lambda and the emulator nobody says what the timeout is: nothing to check against.
    assert FunctionConfig.from_env({"SUPERTONIC_DEADLINE_MARGIN_S": "600"}).function_timeout_s is None
    with pytest.raises(ConfigurationError, match="AWS_LAMBDA_FUNCTION_TIMEOUT='soon'"):
        FunctionConfig.from_env({"AWS_LAMBDA_FUNCTION_TIMEOUT": "soon"})


def test_a_link_lifetime_s3_refuses_is_refused_at_init() -> None:
    week = 7 * 24 * 3600
    assert FunctionConfig.from_env({"SUPERTONIC_URL_EXPIRES_S": str(week)}).url_expires_s == week
    with pytest.raises(ConfigurationError) as raised:
        FunctionConfig.from_env({"SUPERTONIC_URL_EXPIRES_S": str(week + 1)})
    assert raised.value.field == "SUPERTONIC_URL_EXPIRES_S" and f"at most {week}" in raised.value.message


@pytest.mark.parametrize("memory_mb, expected", [("128", 1), ("1769", 1), ("2048", 1), ("3538", 2), ("10240", 5)])
def test_lambda_memory_size_gives_a_thread_per_whole_vcpu_of_its_share(memory_mb: str, expected: int, monkeypatch) -> None:
    # The engine knows nothing of Lambda: the function passes the threads its memory size buys.
    monkeypatch.setattr("supertonic_function.config.cpu_quota", lambda: None)  # as where no quota is visible
    host = usable_cpus()
    config = FunctionConfig.from_env({"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": memory_mb})
    assert config.session_config({}).intra_op_threads == min(host, expected)
    assert config.session_config({"SUPERTONIC_INTRA_OP_THREADS": "3"}).intra_op_threads == 3
    assert FunctionConfig().session_config({}).intra_op_threads == 0  # outside Lambda: the engine's own count


def test_a_visible_cpu_quota_is_what_the_function_was_granted_whatever_its_memory(monkeypatch) -> None:
    monkeypatch.setattr("supertonic_function.config.cpu_quota", lambda: 2.0)
    assert FunctionConfig.from_env({"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "2048"}).session_config({}).intra_op_threads == 0


def test_a_thread_per_whole_cpu_of_a_share() -> None:
    assert [threads_for(share) for share in (0.25, 1.0, 1.158, 1.7, 2.0, 3.999)] == [1, 1, 1, 1, 2, 3]


def test_less_than_a_vcpu_plans_less_audio_and_more_plans_no_more() -> None:
    at = {
        mb: FunctionConfig.from_env({"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(mb), "AWS_LAMBDA_FUNCTION_TIMEOUT": "180"})
        for mb in (885, 1769, 3008)
    }
    one_vcpu = at[1769].renderable_audio_s(8)
    assert one_vcpu == pytest.approx((180 - at[1769].deadline_margin_s) / at[1769].sync_plan_rtf)
    assert at[885].renderable_audio_s(8) < one_vcpu * 885 / 1769  # slower than the share alone says
    assert at[885].renderable_audio_s(8) == pytest.approx(one_vcpu * (885 / 1769) ** 1.13)
    assert at[3008].renderable_audio_s(8) == one_vcpu
