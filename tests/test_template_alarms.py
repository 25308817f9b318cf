"""template.yaml as deployed with chosen parameters: the parts mappings inside the function's
reserved concurrency, and the alarms that say when jobs fail.

``Deployed`` checks the parameters' constraints as CloudFormation does before it reads the template,
then has the harness's ``Template`` evaluate the rest (Conditions, ``Fn::If``, ``Fn::FindInMap``,
``AWS::NoValue``, resources' ``Condition``, and the intrinsics that name things as a local stack).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from supertonic_harness.function.template import Template, TemplateError

TEMPLATE = Path(__file__).resolve().parents[1] / "template.yaml"
LOADED = Template.load(TEMPLATE)
FUNCTION = "TtsFunction"
ALARM_TYPE = "AWS::CloudWatch::Alarm"
# ScalingConfig.MaximumConcurrency: at least 2, at most 1,000
# (https://docs.aws.amazon.com/lambda/latest/dg/API_ScalingConfig.html).
MAPPING_CONCURRENCY = range(2, 1001)
# What a reserved concurrency must keep for the function URL and the S3 events beside the mappings:
# a fifth of it, at least one (template.yaml, Mappings.ConcurrencyShares).


class Refused(Exception):
    """CloudFormation would refuse these parameters before creating anything."""


class Deployed:
    def __init__(self, overrides: dict[str, Any] | None = None) -> None:
        self.template = LOADED.with_parameters(overrides or {})
        for name, parameter in self.template.parameters.items():
            _check_parameter(name, parameter, str(parameter.get("Default", "")))
        try:
            for name in self.template.conditions:
                self.template.condition(name)  # CloudFormation evaluates every condition, used or not
            self.resources = {logical_id: self.evaluate(resource) for logical_id, resource in self.template.created().items()}
        except TemplateError as error:
            raise Refused(str(error)) from None

    def evaluate(self, value: Any) -> Any:
        return self.template.evaluate(value)

    def of_type(self, resource_type: str) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in self.resources.items() if v["Type"] == resource_type}

    def sqs_mappings(self) -> list[dict[str, Any]]:
        events = self.resources[FUNCTION]["Properties"]["Events"]
        return [event["Properties"] for event in events.values() if event["Type"] == "SQS"]


def _check_parameter(name: str, parameter: dict[str, Any], value: str) -> None:
    """What CloudFormation checks of a parameter value before it looks at the template."""
    allowed = parameter.get("AllowedValues")
    if allowed is not None and value not in {str(a) for a in allowed}:
        raise Refused(f"{name}={value} is not one of its AllowedValues")
    if "AllowedPattern" in parameter and not re.fullmatch(parameter["AllowedPattern"], value):
        raise Refused(f"{name}={value!r} does not match its AllowedPattern")
    if parameter["Type"] == "Number":
        number = float(value)
        if "MinValue" in parameter and number < float(parameter["MinValue"]):
            raise Refused(f"{name}={value} is below its MinValue")
        if "MaxValue" in parameter and number > float(parameter["MaxValue"]):
            raise Refused(f"{name}={value} is above its MaxValue")


# --- the parts mappings inside the reserved concurrency --------------------------------------------------


@pytest.mark.parametrize("reserved", [2, 3, 5, 50])
def test_the_mappings_never_ask_for_more_than_is_reserved(reserved: int) -> None:
    # AWS: keep the function's reserved concurrency at least the sum of its SQS mappings' maximum
    # concurrency, or Lambda may throttle their messages, and every throttled receive counts toward
    # maxReceiveCount (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html).
    try:
        deployed = Deployed({"ReservedConcurrency": reserved})
    except Refused:
        return  # refused before anything is made, which is also not a throttled part
    ceilings = [int(mapping["ScalingConfig"]["MaximumConcurrency"]) for mapping in deployed.sqs_mappings()]
    assert len(ceilings) == 2 and all(ceiling in MAPPING_CONCURRENCY for ceiling in ceilings), ceilings
    assert sum(ceilings) + max(1, reserved // 5) <= reserved, (reserved, ceilings)


def test_every_reservation_either_fits_the_mappings_or_is_refused() -> None:
    fitted = []
    for reserved in range(1, 1001):
        try:
            deployed = Deployed({"ReservedConcurrency": reserved})
        except Refused:
            continue
        ceilings = [int(mapping["ScalingConfig"]["MaximumConcurrency"]) for mapping in deployed.sqs_mappings()]
        assert all(ceiling in MAPPING_CONCURRENCY for ceiling in ceilings), (reserved, ceilings)
        assert sum(ceilings) + max(1, reserved // 5) <= reserved, (reserved, ceilings)
        assert int(deployed.resources[FUNCTION]["Properties"]["ReservedConcurrentExecutions"]) == reserved
        fitted.append(reserved)
    assert 5 in fitted  # the README's example for a public URL
    assert {1, 2, 3}.isdisjoint(fitted)  # two mappings of at least 2 each cannot fit


def test_unreserved_the_parts_mapping_takes_its_own_ceiling() -> None:
    deployed = Deployed({"ReservedConcurrency": 0, "PartsMaximumConcurrency": 40})
    assert "ReservedConcurrentExecutions" not in deployed.resources[FUNCTION]["Properties"]
    parts, dead = deployed.sqs_mappings()
    assert parts["Queue"] == deployed.template.resolve({"Fn::GetAtt": ["PartsQueue", "Arn"]})
    assert (parts["ScalingConfig"]["MaximumConcurrency"], dead["ScalingConfig"]["MaximumConcurrency"]) == ("40", 2)


def _local_ceilings(template: Template) -> dict[str, int | None]:
    """Queue logical id -> the MaximumConcurrency the emulator gives the function's mapping of it."""
    arns = {queue.arn: logical_id for logical_id, queue in template.queues().items()}
    return {arns[trigger.queue_arn]: trigger.maximum_concurrency for trigger in template.function().sqs_triggers}


def test_the_emulator_s_mappings_get_the_ceilings_the_stack_would() -> None:
    loaded = Template.load(TEMPLATE)
    # Unreserved (ReservedConcurrency 0): the parts take PartsMaximumConcurrency, the dead letters row 0.
    assert _local_ceilings(loaded) == {"PartsQueue": 100, "PartsDeadLetterQueue": 2}
    assert _local_ceilings(loaded.with_parameters({"ReservedConcurrency": 5})) == {"PartsQueue": 2, "PartsDeadLetterQueue": 2}
    assert _local_ceilings(loaded) == {"PartsQueue": 100, "PartsDeadLetterQueue": 2}  # the copy left the original as it was


def test_the_emulator_makes_only_the_queues_and_mappings_whose_condition_holds() -> None:
    template = Template(
        resources={
            "Fn": {"Type": "AWS::Serverless::Function", "Properties": {"Events": {}}},
            "Always": {"Type": "AWS::SQS::Queue"},
            "Spare": {"Type": "AWS::SQS::Queue", "Condition": "WantSpare"},
            "SpareMapping": {
                "Type": "AWS::Lambda::EventSourceMapping",
                "Condition": "WantSpare",
                "Properties": {"FunctionName": {"Ref": "Fn"}, "EventSourceArn": {"Fn::GetAtt": ["Spare", "Arn"]}},
            },
        },
        parameters={"Spare": {"Type": "String", "Default": "no"}},
        conditions={"WantSpare": {"Fn::Equals": [{"Ref": "Spare"}, "yes"]}},
    )
    assert list(template.queues()) == ["Always"] and template.function().sqs_triggers == []
    wanted = template.with_parameters({"Spare": "yes"})
    assert list(wanted.queues()) == ["Always", "Spare"] and len(wanted.function().sqs_triggers) == 1


def test_a_part_gets_the_receives_aws_advises_for_a_lambda_consumer() -> None:
    # AWS: set maxReceiveCount to at least 5 for a queue a function reads
    # (https://docs.aws.amazon.com/lambda/latest/dg/sqs-retries.html).
    queues = Deployed().template.queues()
    assert queues["PartsQueue"].max_receive_count is not None and queues["PartsQueue"].max_receive_count >= 5


# --- alarms -------------------------------------------------------------------------------------------------


def _alarms(deployed: Deployed) -> dict[str, dict[str, Any]]:
    return {k: v["Properties"] for k, v in deployed.of_type(ALARM_TYPE).items()}


def _metric(alarm: dict[str, Any]) -> tuple[str, str, list[dict[str, Any]]]:
    """Namespace, metric name and dimensions of the alarm's one metric (alone or inside metric math)."""
    if "MetricName" in alarm:
        return alarm["Namespace"], alarm["MetricName"], alarm["Dimensions"]
    (stat,) = [query["MetricStat"] for query in alarm["Metrics"] if "MetricStat" in query]
    metric = stat["Metric"]
    return metric["Namespace"], metric["MetricName"], metric["Dimensions"]


EXPECTED = {
    # alarm: (namespace, metric, the dimension naming the resource, the resource)
    "PartsDeadLetteredAlarm": ("AWS/SQS", "NumberOfMessagesReceived", "QueueName", {"Fn::GetAtt": ["PartsDeadLetterQueue", "QueueName"]}),
    "PartsDeadLetterQueueAgeAlarm": (
        "AWS/SQS",
        "ApproximateAgeOfOldestMessage",
        "QueueName",
        {"Fn::GetAtt": ["PartsDeadLetterQueue", "QueueName"]},
    ),
    "FailedEventsQueueDepthAlarm": (
        "AWS/SQS",
        "ApproximateNumberOfMessagesVisible",
        "QueueName",
        {"Fn::GetAtt": ["FailedEventsQueue", "QueueName"]},
    ),
    "FunctionErrorsAlarm": ("AWS/Lambda", "Errors", "FunctionName", {"Ref": FUNCTION}),
    "FunctionThrottlesAlarm": ("AWS/Lambda", "Throttles", "FunctionName", {"Ref": FUNCTION}),
    "FunctionNearTimeoutAlarm": ("AWS/Lambda", "Duration", "FunctionName", {"Ref": FUNCTION}),
}


def test_alarms_watch_the_queues_and_the_function() -> None:
    deployed = Deployed()
    alarms = _alarms(deployed)
    assert set(alarms) == set(EXPECTED)
    for logical_id, (namespace, metric, dimension, resource) in EXPECTED.items():
        alarm = alarms[logical_id]
        assert _metric(alarm) == (namespace, metric, [{"Name": dimension, "Value": deployed.evaluate(resource)}]), logical_id
        assert alarm["TreatMissingData"] == "notBreaching", logical_id  # no traffic is no failure
        assert alarm["AlarmDescription"], logical_id  # what it means and what to do, in the console and the e-mail
    for logical_id in set(EXPECTED) - {"FunctionNearTimeoutAlarm", "PartsDeadLetterQueueAgeAlarm"}:
        alarm = alarms[logical_id]
        # Any one is worth telling: a failed job, a dropped file that was never read, a 429 or 5xx.
        assert (alarm["ComparisonOperator"], float(alarm["Threshold"])) == ("GreaterThanThreshold", 0), logical_id
    # A dead letter is read within seconds as it should be: one left there for five minutes was not handled.
    stuck = alarms["PartsDeadLetterQueueAgeAlarm"]
    assert (stuck["ComparisonOperator"], float(stuck["Threshold"]), stuck["Statistic"]) == ("GreaterThanThreshold", 300, "Maximum")


@pytest.mark.parametrize("timeout_s", [10, 120, 900])
def test_the_near_timeout_alarm_fires_past_nine_tenths_of_the_timeout(timeout_s: int) -> None:
    alarm = _alarms(Deployed({"Timeout": timeout_s}))["FunctionNearTimeoutAlarm"]
    (expression,) = [query for query in alarm["Metrics"] if "Expression" in query]
    (stat,) = [query for query in alarm["Metrics"] if "MetricStat" in query]
    assert stat["MetricStat"]["Stat"] == "Maximum" and stat["MetricStat"]["Metric"]["MetricName"] == "Duration"
    assert stat["ReturnData"] is False and expression["ReturnData"] is True
    # Duration is in milliseconds; the expression is the longest invocation as a share of Timeout.
    match = re.fullmatch(rf"{stat['Id']} / \((\d+) \* 1000\)", expression["Expression"])
    assert match is not None and int(match[1]) == timeout_s, expression["Expression"]
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold" and float(alarm["Threshold"]) == 0.9


def test_alarms_off_makes_none() -> None:
    deployed = Deployed({"Alarms": "false", "AlarmEmail": "ops@example.com", "AlarmTopicArn": "arn:aws:sns:us-east-1:123456789012:ops"})
    assert deployed.of_type(ALARM_TYPE) == {}
    assert deployed.of_type("AWS::SNS::Topic") == {} and deployed.of_type("AWS::SNS::Subscription") == {}


def test_without_a_destination_the_alarms_only_show_in_the_console() -> None:
    deployed = Deployed()
    alarms = _alarms(deployed)
    assert deployed.of_type("AWS::SNS::Topic") == {} and set(alarms) == set(EXPECTED)
    assert all(alarm["AlarmActions"] == [] == alarm["OKActions"] for alarm in alarms.values())


def test_an_email_adds_a_topic_its_subscription_and_the_actions() -> None:
    deployed = Deployed({"AlarmEmail": "ops@example.com"})
    ((topic_id, _),) = deployed.of_type("AWS::SNS::Topic").items()
    ((_, subscription),) = deployed.of_type("AWS::SNS::Subscription").items()
    assert subscription["Properties"] == {"Protocol": "email", "Endpoint": "ops@example.com", "TopicArn": {"Ref": topic_id}}
    assert set(_alarms(deployed)) == set(EXPECTED)
    for alarm in _alarms(deployed).values():
        assert alarm["AlarmActions"] == [{"Ref": topic_id}] and alarm["OKActions"] == [{"Ref": topic_id}]


def test_an_existing_topic_gets_the_actions_beside_the_email_s() -> None:
    arn = "arn:aws:sns:us-east-1:123456789012:ops"
    alone = Deployed({"AlarmTopicArn": arn})
    assert alone.of_type("AWS::SNS::Topic") == {} and set(_alarms(alone)) == set(EXPECTED)
    assert all(alarm["AlarmActions"] == [arn] for alarm in _alarms(alone).values())
    both = Deployed({"AlarmTopicArn": arn, "AlarmEmail": "ops@example.com"})
    ((topic_id, _),) = both.of_type("AWS::SNS::Topic").items()
    assert all(alarm["AlarmActions"] == [{"Ref": topic_id}, arn] for alarm in _alarms(both).values())


@pytest.mark.parametrize(
    ("name", "value"),
    [("AlarmEmail", "not an address"), ("AlarmTopicArn", "ops-topic"), ("Alarms", "yes")],
)
def test_a_malformed_alarm_setting_is_refused(name: str, value: str) -> None:
    with pytest.raises(Refused, match=name):
        Deployed({name: value})
