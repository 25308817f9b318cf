"""What the SAM template says the function needs locally: buckets, environment, memory, timeout, S3 trigger.

Only the intrinsics that name things are resolved (``!Ref``, ``!Sub``, ``!GetAtt ...Arn``,
``!Join``), with the pseudo parameters a local stack would have; anything else is left out and
listed in ``unresolved`` so the caller can say so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .rie import REPO_ROOT

DEFAULT_TEMPLATE = REPO_ROOT / "template.yaml"
FUNCTION_TYPES = ("AWS::Serverless::Function", "AWS::Lambda::Function")
BUCKET_TYPE = "AWS::S3::Bucket"


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


@dataclass
class FunctionConfig:
    logical_id: str
    memory_mb: int | None
    timeout_s: int | None
    environment: dict[str, str]
    s3_triggers: list[S3Trigger]


@dataclass
class Template:
    """A SAM template read for local use, resolved against a local account and region."""

    resources: dict[str, Any]
    parameters: dict[str, Any] = field(default_factory=dict)
    globals: dict[str, Any] = field(default_factory=dict)
    region: str = "us-east-1"
    account_id: str = "123456789012"
    stack_name: str = "supertonic-local"
    unresolved: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path = DEFAULT_TEMPLATE, *, region: str = "us-east-1") -> Template:
        document = yaml.load(Path(path).read_text(), Loader=_CfnLoader) or {}  # a SafeLoader with CloudFormation's tags  # nosec B506
        return cls(
            resources=document.get("Resources") or {},
            parameters=document.get("Parameters") or {},
            globals=(document.get("Globals") or {}).get("Function") or {},
            region=region,
        )

    def buckets(self) -> dict[str, str]:
        """Logical id -> bucket name of every bucket the template creates."""
        return {
            logical_id: self._bucket_name(logical_id)
            for logical_id, resource in self.resources.items()
            if resource.get("Type") == BUCKET_TYPE
        }

    def function(self, logical_id: str | None = None) -> FunctionConfig:
        """The function's configuration (the only function, or ``logical_id``), Globals merged in."""
        functions = {k: v for k, v in self.resources.items() if v.get("Type") in FUNCTION_TYPES}
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
        )

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
        (function, argument), = value.items()
        if function == "Ref":
            return self._ref(argument)
        if function == "Fn::GetAtt":
            return self._get_att(*argument) if isinstance(argument, list) and len(argument) == 2 else None
        if function == "Fn::Sub":
            return self._sub(argument)
        if function == "Fn::Join" and isinstance(argument, list) and len(argument) == 2:
            parts = [self.resolve(part) for part in argument[1]]
            return None if None in parts else str(argument[0]).join(parts)  # type: ignore[arg-type]
        return None

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
        return None

    def _get_att(self, name: str, attribute: str) -> str | None:
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


def _optional_int(text: str | None) -> int | None:
    return int(float(text)) if text is not None else None
