"""The function's own Lambda runtime client: the one ``/next`` loop that can stream a response.

awslambdaric (4.2.2, the newest) cannot post a streamed response, so a function URL in
``RESPONSE_STREAM`` mode is served by this loop (``python -m supertonic_function.runtime``); the
``BUFFERED`` mode keeps AWS's client. Either way every event source goes through the same
handler: only a function URL answer in streaming mode is a ``StreamedAnswer``.
"""

from .answer import StreamedAnswer

__all__ = ["StreamedAnswer"]
