"""The context object a handler receives, built from one ``/next`` answer and the environment.

It has the attributes awslambdaric's ``LambdaContext`` has and this project or Powertools'
``inject_lambda_context`` read; values come from the same places (awslambdaric
lambda_context.py: the environment for the function's identity, the invocation's headers for the rest).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CognitoIdentity:
    cognito_identity_id: str | None = None
    cognito_identity_pool_id: str | None = None

    @classmethod
    def from_header(cls, identity: Mapping[str, Any] | None) -> CognitoIdentity:
        identity = identity or {}
        return cls(identity.get("cognitoIdentityId"), identity.get("cognitoIdentityPoolId"))


@dataclass(frozen=True)
class Client:
    installation_id: str | None = None
    app_title: str | None = None
    app_version_name: str | None = None
    app_version_code: str | None = None
    app_package_name: str | None = None


@dataclass(frozen=True)
class ClientContext:
    client: Client | None = None
    custom: Mapping[str, Any] | None = None
    env: Mapping[str, Any] | None = None

    @classmethod
    def from_header(cls, context: Mapping[str, Any] | None) -> ClientContext | None:
        if not context:
            return None
        client = context.get("client")
        known = Client.__dataclass_fields__
        return cls(
            client=Client(**{k: v for k, v in client.items() if k in known}) if isinstance(client, Mapping) else None,
            custom=context.get("custom"),
            env=context.get("env"),
        )


@dataclass(frozen=True)
class LambdaContext:
    aws_request_id: str
    deadline_ms: int
    invoked_function_arn: str | None = None
    identity: CognitoIdentity = field(default_factory=CognitoIdentity)
    client_context: ClientContext | None = None
    tenant_id: str | None = None
    # As in awslambdaric, these are the environment's strings (memory included), read once per invocation.
    function_name: str | None = field(default_factory=lambda: os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))
    function_version: str | None = field(default_factory=lambda: os.environ.get("AWS_LAMBDA_FUNCTION_VERSION"))
    memory_limit_in_mb: str | None = field(default_factory=lambda: os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE"))
    log_group_name: str | None = field(default_factory=lambda: os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME"))
    log_stream_name: str | None = field(default_factory=lambda: os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME"))

    def get_remaining_time_in_millis(self) -> int:
        """Milliseconds until the invocation's deadline (``Lambda-Runtime-Deadline-Ms``), never negative."""
        return max(0, self.deadline_ms - int(time.time() * 1000))
