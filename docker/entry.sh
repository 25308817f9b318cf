#!/bin/sh
# The image's entry point. On Lambda, AWS_LAMBDA_RUNTIME_API is set and the runtime client talks
# to it directly. Anywhere else (docker run, sam local without its own emulator, CI) the Runtime
# Interface Emulator provides that API and an invoke endpoint on :8080:
#   curl -d '{"text": "Hello."}' http://localhost:9000/2015-03-31/functions/function/invocations
# "$@" is the handler (the image's CMD).
# The runtime client: awslambdaric is AWS's own client and serves every mode it supports; it cannot
# post a streamed response (4.2.2, the newest), so a function URL in RESPONSE_STREAM mode is served
# by the function's own Runtime API loop, supertonic_function.runtime. Both answer SnapStart's
# restore (GET /runtime/restore/next, then the hooks registered with snapshot_restore_py: awslambdaric
# 4.2.2 bootstrap.py on_init_complete), so either may run a version published with SnapStart.
set -eu
runtime=awslambdaric
if [ "${SUPERTONIC_FUNCTION_URL_INVOKE_MODE:-BUFFERED}" = "RESPONSE_STREAM" ]; then
    runtime=supertonic_function.runtime
fi
if [ -z "${AWS_LAMBDA_RUNTIME_API:-}" ]; then
    exec /usr/local/bin/aws-lambda-rie /usr/local/bin/python -m "$runtime" "$@"
fi
exec /usr/local/bin/python -m "$runtime" "$@"
