"""CORS, as the function answers it where nothing in front of it does (the local emulator).

A deployed function URL answers CORS itself from template.yaml's Cors block, which lists these
same values (tests/test_template.py holds the two together).
"""

from __future__ import annotations

from collections.abc import Collection

CORS_ALLOW_METHODS = ("GET", "POST")
# What a browser may send: JSON bodies, and the SigV4 headers an AWS_IAM function URL needs.
CORS_ALLOW_HEADERS = (
    "content-type",
    "accept",
    "authorization",
    "x-amz-date",
    "x-amz-security-token",
    "x-amz-content-sha256",
)
# Custom headers a browser page may read from a cross-origin response.
CORS_EXPOSE_HEADERS = (
    "x-supertonic-duration-s",
    "x-supertonic-sample-rate",
    "x-supertonic-rtf",
    "x-supertonic-synth-ms",
    "x-supertonic-chunks",
    "x-supertonic-model",
    "x-supertonic-precision",
    "x-supertonic-voice",
    "x-supertonic-ssml-ignored",
    "x-supertonic-error",
    "x-supertonic-audio-type",
    "location",
)
CORS_MAX_AGE_S = 3600


def cors_headers(allowed_origins: Collection[str], origin: str, method: str) -> dict[str, str]:
    """The CORS headers of an answer to ``origin`` (the request's ``Origin``, may be empty); none
    where the origin is not allowed. A preflight (``OPTIONS``) also gets what it may send."""
    origin = origin.rstrip("/")
    if not allowed_origins or not origin or ("*" not in allowed_origins and origin not in allowed_origins):
        return {}
    headers = {
        "access-control-allow-origin": "*" if "*" in allowed_origins else origin,
        "access-control-expose-headers": ", ".join(CORS_EXPOSE_HEADERS),
        "vary": "origin",
    }
    if method == "OPTIONS":
        headers |= {
            "access-control-allow-methods": ", ".join(CORS_ALLOW_METHODS),
            "access-control-allow-headers": ", ".join(CORS_ALLOW_HEADERS),
            "access-control-max-age": str(CORS_MAX_AGE_S),
        }
    return headers
