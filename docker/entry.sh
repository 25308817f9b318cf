#!/bin/sh
# The image's entry point. On Lambda, AWS_LAMBDA_RUNTIME_API is set and the runtime client talks
# to it directly. Anywhere else (docker run, sam local without its own emulator, CI) the Runtime
# Interface Emulator provides that API and an invoke endpoint on :8080:
#   curl -d '{"text": "Hello."}' http://localhost:9000/2015-03-31/functions/function/invocations
# "$@" is the handler (the image's CMD).
set -eu
if [ -z "${AWS_LAMBDA_RUNTIME_API:-}" ]; then
    exec /usr/local/bin/aws-lambda-rie /usr/local/bin/python -m awslambdaric "$@"
fi
exec /usr/local/bin/python -m awslambdaric "$@"
