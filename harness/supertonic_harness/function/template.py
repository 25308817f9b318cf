"""What the SAM template says the function needs locally: buckets, queues, environment, memory, timeout, triggers.

The intrinsics that name things are resolved (``!Ref``, ``!Sub``, ``!GetAtt ...Arn``, ``!Join``),
with the pseudo parameters a local stack would have, and so are the ones that choose what the stack
gets from its parameters as CloudFormation would: ``Conditions`` (``!Equals``, ``!Not``, ``!And``,
``!Or``, ``!Condition``), ``!If``, ``!FindInMap``, ``!Ref AWS::NoValue`` and a resource's
``Condition``. Anything else is left out and listed in ``unresolved`` so the caller can say so.

The short tags are read by a ``yaml.SafeLoader`` of its own, not by ``cfnlint.decode`` (cfn-lint
1.58), though both give equal documents for the repository's templates: importing
``cfnlint.decode.cfn_yaml`` runs the whole ``cfnlint`` package (its rules, ``sympy``, ``networkx``),
4 to 6 s on a two-core machine against 0.1 s for ``yaml``, and every ``emulate`` start reads the
template while nothing else it runs imports cfnlint. (cfnlint's reader makes ``!Condition X``
``{"Condition": "X"}`` where this one makes ``{"Fn::Condition": "X"}``, and rejects a duplicate key.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from .rie import BUFFERED, REPO_ROOT

DEFAULT_TEMPLATE = REPO_ROOT / "template.yaml"
FUNCTION_TYPES = ("AWS::Serverless::Function", "AWS::Lambda::Function")
BUCKET_TYPE = "AWS::S3::Bucket"
QUEUE_TYPE = "AWS::SQS::Queue"
MAPPING_TYPE = "AWS::Lambda::EventSourceMapping"
# SQS's and Lambda's defaults for what a template leaves out.
SQS_VISIBILITY_TIMEOUT_S = 30
SQS_BATCH_SIZE = 10
# The template parameter that chooses the function URL's InvokeMode (BUFFERED | RESPONSE_STREAM).
INVOKE_MODE_PARAMETER = "FunctionUrlInvokeMode"


class _CfnLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short tags (``!Ref X`` -> ``{"Ref": "X"}``, ``!Sub`` -> ``Fn::Sub``)."""


def _short_tag(loader: _CfnLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _short_tag)

_SUB_VARIABLE = re.compile(r"\$\{([^}!][^}]*)\}")
# What ``!Ref AWS::NoValue`` evaluates to: the property (or list item) it stands for is left out.
NO_VALUE: Any = object()


class TemplateError(ValueError):
    """The template cannot be evaluated with these parameters (CloudFormation would refuse it too)."""


@dataclass(frozen=True)
class S3Trigger:
    bucket: str
    prefix: str = ""
    suffix: str = ""

    def key_for(self, filename: str) -> str:
        """The object key an upload of ``filename`` gets so that the trigger fires."""
        key = self.prefix + filename
        return key if key.endswith(self.suffix) else key + self.suffix

    def fires_for(self, bucket: str, key: str) -> bool:
        return bucket == self.bucket and key.startswith(self.prefix) and key.endswith(self.suffix)


def trigger_for(filename: str, triggers: Sequence[S3Trigger]) -> S3Trigger:
    """The trigger an upload of ``filename`` goes to: the one whose suffix the name ends with (a
    ``.json`` job to the ``.json`` trigger), else the first, which appends its suffix."""
    if not triggers:
        raise ValueError("no S3 trigger to upload to")
    matching = [t for t in triggers if filename.endswith(t.suffix)]
    return max(matching, key=lambda t: len(t.suffix), default=triggers[0])


@dataclass(frozen=True)
class QueueConfig:
    """An SQS queue of the template, with the settings a local queue is created with."""

    logical_id: str
    name: str
    arn: str
    visibility_timeout_s: int = SQS_VISIBILITY_TIMEOUT_S
    fifo: bool = False
    dead_letter_arn: str | None = None  # RedrivePolicy.deadLetterTargetArn
    max_receive_count: int | None = None  # RedrivePolicy.maxReceiveCount

    def attributes(self) -> dict[str, str]:
        """CreateQueue's attributes for these settings."""
        attributes = {"VisibilityTimeout": str(self.visibility_timeout_s)}
        if self.fifo:
            attributes["FifoQueue"] = "true"
        if self.dead_letter_arn is not None:
            attributes["RedrivePolicy"] = json.dumps(
                {"deadLetterTargetArn": self.dead_letter_arn, "maxReceiveCount": self.max_receive_count or 1}
            )
        return attributes


@dataclass(frozen=True)
class SqsTrigger:
    """An SQS event source mapping of the function (SAM ``Type: SQS`` or ``AWS::Lambda::EventSourceMapping``)."""

    queue_arn: str
    batch_size: int = SQS_BATCH_SIZE
    batching_window_s: float = 0.0
    report_batch_item_failures: bool = False
    maximum_concurrency: int | None = None  # ScalingConfig.MaximumConcurrency; None: as many as there are
    enabled: bool = True


@dataclass
class FunctionConfig:
    logical_id: str
    memory_mb: int | None
    timeout_s: int | None
    environment: dict[str, str]
    s3_triggers: list[S3Trigger]
    sqs_triggers: list[SqsTrigger] = field(default_factory=list)
    invoke_mode: str = BUFFERED  # its function URL's InvokeMode


@dataclass
class Template:
    """A SAM template read for local use, resolved against a local account and region."""

    resources: dict[str, Any]
    parameters: dict[str, Any] = field(default_factory=dict)
    globals: dict[str, Any] = field(default_factory=dict)
    mappings: dict[str, Any] = field(default_factory=dict)
    conditions: dict[str, Any] = field(default_factory=dict)
    rules: dict[str, Any] = field(default_factory=dict)
    region: str = "us-east-1"
    account_id: str = "123456789012"
    stack_name: str = "supertonic-local"
    unresolved: list[str] = field(default_factory=list)
    _truths: dict[str, bool] = field(default_factory=dict, init=False, repr=False)  # the Conditions evaluated so far

    @classmethod
    def load(cls, path: Path = DEFAULT_TEMPLATE, *, region: str = "us-east-1") -> Template:
        document = yaml.load(Path(path).read_text(), Loader=_CfnLoader) or {}  # a SafeLoader with CloudFormation's tags  # nosec B506
        return cls(
            resources=document.get("Resources") or {},
            parameters=document.get("Parameters") or {},
            globals=(document.get("Globals") or {}).get("Function") or {},
            mappings=document.get("Mappings") or {},
            conditions=document.get("Conditions") or {},
            rules=document.get("Rules") or {},
            region=region,
        )

    def with_parameters(self, values: Mapping[str, Any]) -> Template:
        """This template as deployed with ``values`` for some of its parameters (the rest at their defaults)."""
        unknown = set(values) - set(self.parameters)
        if unknown:
            raise TemplateError(f"no parameter {', '.join(sorted(unknown))} in the template; it has: {', '.join(self.parameters)}")
        parameters = {name: {**p, "Default": values[name]} if name in values else p for name, p in self.parameters.items()}
        return replace(self, parameters=parameters, unresolved=[])

    def created(self) -> dict[str, Any]:
        """Logical id -> resource of every resource the stack creates: those whose ``Condition`` holds."""
        return {
            logical_id: resource
            for logical_id, resource in self.resources.items()
            if "Condition" not in resource or self.condition(resource["Condition"])
        }

    def buckets(self) -> dict[str, str]:
        """Logical id -> bucket name of every bucket the template creates."""
        return {
            logical_id: self._bucket_name(logical_id)
            for logical_id, resource in self.created().items()
            if resource.get("Type") == BUCKET_TYPE
        }

    def queues(self) -> dict[str, QueueConfig]:
        """Logical id -> settings of every SQS queue the template creates, dead-letter queues first."""
        found = {}
        for logical_id, resource in self.created().items():
            if resource.get("Type") != QUEUE_TYPE:
                continue
            properties = resource.get("Properties") or {}
            redrive = properties.get("RedrivePolicy") or {}
            dead_letter = self.resolve(redrive.get("deadLetterTargetArn")) if redrive else None
            if redrive and dead_letter is None:
                self.unresolved.append(f"queue {logical_id}'s dead-letter queue")
            visibility = _optional_int(self.resolve(properties.get("VisibilityTimeout")))
            found[logical_id] = QueueConfig(
                logical_id=logical_id,
                name=self._queue_name(logical_id),
                arn=self._queue_arn(logical_id),
                visibility_timeout_s=SQS_VISIBILITY_TIMEOUT_S if visibility is None else visibility,
                fifo=str(self.resolve(properties.get("FifoQueue")) or "").lower() == "true",
                dead_letter_arn=dead_letter,
                max_receive_count=_optional_int(self.resolve(redrive.get("maxReceiveCount"))) if redrive else None,
            )
        return dict(sorted(found.items(), key=lambda item: item[1].dead_letter_arn is not None))

    def function(self, logical_id: str | None = None) -> FunctionConfig:
        """The function's configuration (the only function, or ``logical_id``), Globals merged in."""
        functions = {k: v for k, v in self.created().items() if v.get("Type") in FUNCTION_TYPES}
        if logical_id is None:
            if len(functions) != 1:
                raise ValueError(f"the template has {len(functions)} functions; name one of: {', '.join(functions)}")
            logical_id = next(iter(functions))
        if logical_id not in functions:
            raise ValueError(f"no function {logical_id!r} in the template; it has: {', '.join(functions)}")
        properties = {**self.globals, **(functions[logical_id].get("Properties") or {})}
        variables = {
            **((self.globals.get("Environment") or {}).get("Variables") or {}),
            **((properties.get("Environment") or {}).get("Variables") or {}),
        }
        environment = {}
        for name, value in variables.items():
            resolved = self.resolve(value)
            if resolved is None:
                self.unresolved.append(f"environment variable {name}")
            else:
                environment[name] = resolved
        return FunctionConfig(
            logical_id=logical_id,
            memory_mb=_optional_int(self.resolve(properties.get("MemorySize"))),
            timeout_s=_optional_int(self.resolve(properties.get("Timeout"))),
            environment=environment,
            s3_triggers=self._s3_triggers(properties.get("Events") or {}),
            sqs_triggers=self._sqs_triggers(logical_id, properties.get("Events") or {}),
            invoke_mode=self._invoke_mode(properties),
        )

    def _invoke_mode(self, properties: dict[str, Any]) -> str:
        """The function URL's ``InvokeMode`` (``!Ref FunctionUrlInvokeMode`` resolves to the
        parameter's default), else that parameter's default, else Lambda's default, BUFFERED."""
        configured = self.resolve((properties.get("FunctionUrlConfig") or {}).get("InvokeMode"))
        if configured is None and INVOKE_MODE_PARAMETER in self.parameters:
            configured = self._ref(INVOKE_MODE_PARAMETER)
        return configured or BUFFERED

    def _sqs_triggers(self, function_id: str, events: dict[str, Any]) -> list[SqsTrigger]:
        """The function's SQS mappings: its ``Type: SQS`` events and the mappings naming it."""
        settings = [(event.get("Properties") or {}) for event in events.values() if event.get("Type") == "SQS"]
        for resource in self.created().values():
            properties = resource.get("Properties") or {}
            target = properties.get("FunctionName")
            if resource.get("Type") == MAPPING_TYPE and target in ({"Ref": function_id}, function_id, {"Fn::GetAtt": [function_id, "Arn"]}):
                settings.append({**properties, "Queue": properties.get("EventSourceArn")})
        triggers = []
        for properties in settings:
            queue = self.resolve(properties.get("Queue"))
            if queue is None or not queue.startswith("arn:aws:sqs:"):
                continue  # a Kinesis or DynamoDB stream mapping, or a queue of another stack
            scaling = properties.get("ScalingConfig") or {}
            triggers.append(
                SqsTrigger(
                    queue_arn=queue,
                    batch_size=_optional_int(self.resolve(properties.get("BatchSize"))) or SQS_BATCH_SIZE,
                    batching_window_s=float(self.resolve(properties.get("MaximumBatchingWindowInSeconds")) or 0),
                    report_batch_item_failures="ReportBatchItemFailures" in (properties.get("FunctionResponseTypes") or []),
                    maximum_concurrency=_optional_int(self.resolve(scaling.get("MaximumConcurrency"))),
                    enabled=str(self.resolve(properties.get("Enabled")) or "true").lower() != "false",
                )
            )
        return triggers

    def _s3_triggers(self, events: dict[str, Any]) -> list[S3Trigger]:
        triggers = []
        for event in events.values():
            if event.get("Type") != "S3":
                continue
            properties = event.get("Properties") or {}
            bucket = self.resolve(properties.get("Bucket"))
            if bucket is None:
                self.unresolved.append("an S3 event's bucket")
                continue
            rules = ((properties.get("Filter") or {}).get("S3Key") or {}).get("Rules") or []
            named = {str(rule.get("Name", "")).lower(): str(self.resolve(rule.get("Value")) or "") for rule in rules}
            triggers.append(S3Trigger(bucket, named.get("prefix", ""), named.get("suffix", "")))
        return triggers

    # --- intrinsics ---------------------------------------------------------------------------

    def resolve(self, value: Any) -> str | None:
        """A plain string for ``value``, or None when it needs more than a local stack knows."""
        if value is None:
            return None
        if isinstance(value, (str, int, float)):
            return str(value)
        if not isinstance(value, dict) or len(value) != 1:
            return None
        ((function, argument),) = value.items()
        if function == "Ref":
            return None if argument == "AWS::NoValue" else self._ref(argument)
        if function == "Fn::If":
            return self.resolve(self._chosen(argument))
        if function == "Fn::FindInMap":
            return self.resolve(self._find_in_map(argument))
        if function == "Fn::GetAtt":
            return self._get_att(*argument) if isinstance(argument, list) and len(argument) == 2 else None
        if function == "Fn::Sub":
            return self._sub(argument)
        if function == "Fn::Join" and isinstance(argument, list) and len(argument) == 2:
            parts = [self.resolve(part) for part in argument[1]]
            return None if None in parts else str(argument[0]).join(parts)  # type: ignore[arg-type]
        return None

    def evaluate(self, value: Any) -> Any:
        """``value`` (a property, a resource) as deployed: ``!If`` branches chosen, ``!FindInMap``
        looked up, ``AWS::NoValue`` items and keys left out, and every other intrinsic resolved
        where a local stack can (a resource's own ``!Ref`` or attribute stays as it is written)."""
        if isinstance(value, list):
            return [item for item in (self.evaluate(v) for v in value) if item is not NO_VALUE]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((function, argument),) = value.items()
            if function == "Ref" and argument == "AWS::NoValue":
                return NO_VALUE
            if function == "Fn::If":
                return self.evaluate(self._chosen(argument))
            if function == "Fn::FindInMap":
                return self.evaluate(self._find_in_map(argument))
            if function == "Ref" or function.startswith("Fn::"):
                resolved = self.resolve(value)
                return value if resolved is None else resolved
        return {key: item for key, item in ((k, self.evaluate(v)) for k, v in value.items()) if item is not NO_VALUE}

    def condition(self, name: str) -> bool:
        """Whether the template's condition ``name`` holds with the parameters' values."""
        if name not in self._truths:
            if name not in self.conditions:
                raise TemplateError(f"no condition {name!r} in the template's Conditions; it has: {', '.join(self.conditions)}")
            self._truths[name] = self._truth(self.conditions[name])
        return self._truths[name]

    def refusals(self) -> list[str]:
        """What CloudFormation would refuse these parameters with: the ``AssertDescription`` of each
        ``Rules`` assertion that fails where its rule's ``RuleCondition`` holds (none: it deploys)."""
        refused = []
        for rule in self.rules.values():
            if "RuleCondition" in rule and not self._truth(rule["RuleCondition"]):
                continue
            refused += [" ".join(a.get("AssertDescription", "").split()) for a in rule["Assertions"] if not self._truth(a["Assert"])]
        return refused

    def _truth(self, expression: Any) -> bool:
        if not isinstance(expression, dict) or len(expression) != 1:
            raise TemplateError(f"a condition must be one condition function, not {expression!r}")
        ((function, argument),) = expression.items()
        if function == "Fn::Equals":
            # CloudFormation compares the two values as strings (a Number parameter is a string too).
            left, right = (self.resolve(side) for side in argument)
            return left == right
        if function == "Fn::Not":
            return not self._truth(argument[0])
        if function == "Fn::And":
            return all(self._truth(a) for a in argument)
        if function == "Fn::Or":
            return any(self._truth(a) for a in argument)
        if function in ("Condition", "Fn::Condition"):
            return self.condition(argument)
        raise TemplateError(f"a condition function this reader does not know: {function}")

    def _chosen(self, argument: Any) -> Any:
        """The branch ``!If [condition, if_true, if_false]`` takes."""
        name, if_true, if_false = argument
        return if_true if self.condition(name) else if_false

    def _find_in_map(self, argument: Any) -> Any:
        name, top, second = (self.resolve(key) for key in argument)
        # Mapping keys are strings to CloudFormation; YAML may have read an unquoted 5 as a number.
        rows = {str(key): row for key, row in (self.mappings.get(str(name)) or {}).items()}
        columns = {str(key): value for key, value in (rows.get(str(top)) or {}).items()}
        if second not in columns:
            raise TemplateError(
                f"no {name}.{top}.{second} in the template's Mappings: give the parameter that chose {top!r} "
                f"one of the values {name} has rows for ({', '.join(rows) or 'none'})"
            )
        return columns[str(second)]

    def _ref(self, name: str) -> str | None:
        pseudo = {
            "AWS::Region": self.region,
            "AWS::AccountId": self.account_id,
            "AWS::StackName": self.stack_name,
            "AWS::Partition": "aws",
            "AWS::URLSuffix": "amazonaws.com",
        }
        if name in pseudo:
            return pseudo[name]
        if name in self.parameters:
            return self.resolve(self.parameters[name].get("Default"))
        if (self.resources.get(name) or {}).get("Type") == BUCKET_TYPE:
            return self._bucket_name(name)
        if (self.resources.get(name) or {}).get("Type") == QUEUE_TYPE:
            return self._queue_url(name)  # a queue's Ref is its URL
        return None

    def _get_att(self, name: str, attribute: str) -> str | None:
        if (self.resources.get(name) or {}).get("Type") == QUEUE_TYPE:
            return {"Arn": self._queue_arn(name), "QueueName": self._queue_name(name), "QueueUrl": self._queue_url(name)}.get(attribute)
        if (self.resources.get(name) or {}).get("Type") != BUCKET_TYPE:
            return None
        bucket = self._bucket_name(name)
        return {"Arn": f"arn:aws:s3:::{bucket}", "DomainName": f"{bucket}.s3.amazonaws.com"}.get(attribute)

    def _sub(self, argument: Any) -> str | None:
        text, variables = (argument, {}) if isinstance(argument, str) else (argument[0], argument[1])
        missing = False

        def replace(match: re.Match[str]) -> str:
            nonlocal missing
            name = match[1]
            if name in variables:
                resolved = self.resolve(variables[name])
            elif "." in name:
                resolved = self._get_att(*name.split(".", 1))
            else:
                resolved = self._ref(name)
            if resolved is None:
                missing = True
                return ""
            return resolved

        result = _SUB_VARIABLE.sub(replace, text).replace("${!", "${")
        return None if missing else result

    def _bucket_name(self, logical_id: str) -> str:
        properties = self.resources[logical_id].get("Properties") or {}
        explicit = self.resolve(properties.get("BucketName"))
        # CloudFormation invents a name when none is given; a lower-case stack-logical id is valid.
        return explicit or f"{self.stack_name}-{logical_id}".lower()

    def _queue_name(self, logical_id: str) -> str:
        properties = self.resources[logical_id].get("Properties") or {}
        explicit = self.resolve(properties.get("QueueName"))
        fifo = str(self.resolve(properties.get("FifoQueue")) or "").lower() == "true"
        # CloudFormation invents <stack>-<logical id>-<random>; a FIFO queue's name must end in .fifo.
        return explicit or f"{self.stack_name}-{logical_id}" + (".fifo" if fifo else "")

    def _queue_arn(self, logical_id: str) -> str:
        return f"arn:aws:sqs:{self.region}:{self.account_id}:{self._queue_name(logical_id)}"

    def _queue_url(self, logical_id: str) -> str:
        return f"https://sqs.{self.region}.amazonaws.com/{self.account_id}/{self._queue_name(logical_id)}"


def _optional_int(text: str | None) -> int | None:
    return int(float(text)) if text is not None else None
