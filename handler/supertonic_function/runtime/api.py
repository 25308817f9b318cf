"""The Lambda Runtime API (2018-06-01) over ``http.client``: the few calls a runtime makes.

Endpoints, headers and the 202 replies follow "Using the Lambda runtime API for custom runtimes"
(lambda/latest/dg/runtimes-api.html) and awslambdaric's lambda_runtime_client.py; the streamed
response follows "Implementing response streaming in a custom runtime" (runtimes-custom.html).
Every call opens its own connection: ``/next`` may block for as long as the sandbox is frozen, and a
streamed response ends by closing its connection.
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

API_PREFIX = "/2018-06-01/runtime"
ERROR_TYPE_HEADER = "Lambda-Runtime-Function-Error-Type"
ERROR_BODY_HEADER = "Lambda-Runtime-Function-Error-Body"


class RuntimeApiError(RuntimeError):
    """The Runtime API answered a call with a status it does not answer a well-formed call with."""


class StreamBroken(ConnectionError):
    """A streamed response could not be written: the connection to the Runtime API is gone."""


@dataclass(frozen=True)
class Invocation:
    """One ``/next`` answer: the event's bytes and the invocation's headers."""

    request_id: str
    deadline_ms: int
    event: bytes
    invoked_function_arn: str | None = None
    trace_id: str | None = None
    client_context: Mapping[str, Any] | None = None
    cognito_identity: Mapping[str, Any] | None = None
    tenant_id: str | None = None


def _json_header(value: str | None) -> Mapping[str, Any] | None:
    return json.loads(value) if value else None


class RuntimeApi:
    def __init__(self, address: str) -> None:
        host, _, port = address.rpartition(":")
        self.host, self.port = host, int(port)

    def _call(self, method: str, path: str, body: bytes | None = None, headers: Mapping[str, str] | None = None) -> tuple[int, bytes]:
        # No timeout: "Do not set a timeout on the GET request" (runtimes-api.html), as the sandbox may be frozen inside it.
        connection = http.client.HTTPConnection(self.host, self.port)
        try:
            connection.request(method, API_PREFIX + path, body=body, headers=dict(headers or {}))
            reply = connection.getresponse()
            return reply.status, reply.read()
        finally:
            connection.close()

    def _post(self, path: str, document: Any, headers: Mapping[str, str] | None = None) -> None:
        status, reply = self._call("POST", path, json.dumps(document).encode(), {"Content-Type": "application/json", **(headers or {})})
        if status != http.HTTPStatus.ACCEPTED:
            raise RuntimeApiError(f"POST {path} answered {status}: {reply[:200]!r}")

    def next_invocation(self) -> Invocation:
        connection = http.client.HTTPConnection(self.host, self.port)
        try:
            connection.request("GET", f"{API_PREFIX}/invocation/next")
            reply = connection.getresponse()
            event = reply.read()
            if reply.status != http.HTTPStatus.OK:
                raise RuntimeApiError(f"GET /invocation/next answered {reply.status}: {event[:200]!r}")
            header = reply.getheader
        finally:
            connection.close()
        return Invocation(
            request_id=header("Lambda-Runtime-Aws-Request-Id") or "",
            deadline_ms=int(header("Lambda-Runtime-Deadline-Ms") or 0),
            event=event,
            invoked_function_arn=header("Lambda-Runtime-Invoked-Function-Arn"),
            trace_id=header("Lambda-Runtime-Trace-Id"),
            client_context=_json_header(header("Lambda-Runtime-Client-Context")),
            cognito_identity=_json_header(header("Lambda-Runtime-Cognito-Identity")),
            tenant_id=header("Lambda-Runtime-Aws-Tenant-Id"),
        )

    def restore_next(self) -> None:
        status, reply = self._call("GET", "/restore/next")
        if status != http.HTTPStatus.OK:
            raise RuntimeApiError(f"GET /restore/next answered {status}: {reply[:200]!r}")

    def post_response(self, request_id: str, body: bytes) -> None:
        status, reply = self._call("POST", f"/invocation/{request_id}/response", body, {"Content-Type": "application/json"})
        if status != http.HTTPStatus.ACCEPTED:
            raise RuntimeApiError(f"POST /invocation/{request_id}/response answered {status}: {reply[:200]!r}")

    def post_invocation_error(self, request_id: str, error: Mapping[str, Any]) -> None:
        self._post(f"/invocation/{request_id}/error", error, {ERROR_TYPE_HEADER: str(error["errorType"])})

    def post_init_error(self, error: Mapping[str, Any]) -> None:
        self._post("/init/error", error, {ERROR_TYPE_HEADER: str(error["errorType"])})

    def post_restore_error(self, error: Mapping[str, Any]) -> None:
        self._post("/restore/error", error, {ERROR_TYPE_HEADER: str(error["errorType"])})

    def open_stream(self, request_id: str, content_type: str) -> ResponseStream:
        return ResponseStream(self.host, self.port, f"{API_PREFIX}/invocation/{request_id}/response", content_type)


class ResponseStream:
    """A streamed ``/response``: an HTTP/1.1 chunked POST whose chunks are written as they come, and two error trailers."""

    def __init__(self, host: str, port: int, path: str, content_type: str) -> None:
        self._connection = http.client.HTTPConnection(host, port)
        self._path = path
        try:
            self._connection.connect()
            # Each piece goes out when it is written: Nagle's algorithm would hold a small one back.
            self._connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._connection.putrequest("POST", path, skip_accept_encoding=True)
            self._connection.putheader("Lambda-Runtime-Function-Response-Mode", "streaming")
            self._connection.putheader("Transfer-Encoding", "chunked")
            self._connection.putheader("Trailer", f"{ERROR_TYPE_HEADER}, {ERROR_BODY_HEADER}")
            self._connection.putheader("Content-Type", content_type)
            self._connection.endheaders()
        except OSError as exc:
            self._connection.close()
            raise StreamBroken(f"cannot open the streamed response {path}: {exc}") from exc

    def _send(self, data: bytes) -> None:
        try:
            self._connection.send(data)
        except OSError as exc:
            raise StreamBroken(f"the streamed response {self._path} was cut: {exc}") from exc

    def write(self, piece: bytes) -> None:
        """Sends ``piece`` as one chunk at once; an empty piece would end the body, so it is not sent."""
        if piece:
            self._send(b"%x\r\n%b\r\n" % (len(piece), piece))

    def finish(self, trailers: Mapping[str, str] | None = None) -> None:
        """Ends the body (with ``trailers`` if any) and reads the Runtime API's reply."""
        lines = b"".join(f"{name}: {value}\r\n".encode("latin-1") for name, value in (trailers or {}).items())
        self._send(b"0\r\n" + lines + b"\r\n")
        try:
            reply = self._connection.getresponse()
            status, text = reply.status, reply.read()
        except OSError as exc:  # http.client.RemoteDisconnected is one
            raise StreamBroken(f"no reply to the streamed response {self._path}: {exc}") from exc
        finally:
            self._connection.close()
        if status != http.HTTPStatus.ACCEPTED:
            raise RuntimeApiError(f"POST {self._path} (streamed) answered {status}: {text[:200]!r}")

    def close(self) -> None:
        self._connection.close()
