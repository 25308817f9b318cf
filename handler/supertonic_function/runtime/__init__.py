"""The function's own Lambda runtime client: the one ``/next`` loop that can stream a response.

awslambdaric (4.2.2, the newest) cannot post a streamed response, so a function URL in
``RESPONSE_STREAM`` mode is served by this loop (``python -m supertonic_function.runtime``); the
``BUFFERED`` mode keeps AWS's client. Either way every event source goes through the same
handler: only a function URL answer in streaming mode is a ``StreamedAnswer``.

SnapStart: when ``AWS_LAMBDA_INITIALIZATION_TYPE`` is ``snap-start``, the loop calls
``GET /2018-06-01/runtime/restore/next`` after init and before its first ``/next``, then runs the
hooks registered with ``after_restore(hook)``: a restored sandbox shares the snapshot's random
streams, CPU count and network clients, so those are reseeded, re-read and reopened there (AWS,
"Implementing SnapStart hooks for container images", lambda/latest/dg/snapstart-runtime-hooks-custom).
awslambdaric (3.0 and later) makes the same calls and runs the same hooks: ``after_restore`` registers
them with AWS's ``snapshot_restore_py``, which both clients read, so SnapStart works in either mode.
"""

from .answer import StreamedAnswer
from .hooks import after_restore

__all__ = ["StreamedAnswer", "after_restore"]
