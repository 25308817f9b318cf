"""The Lambda edge of Supertonic text-to-speech: function URL, S3 trigger and direct invoke.

The entry point is ``supertonic_function.app.lambda_handler``.
"""

__version__ = "0.1.0"  # kept equal to pyproject.toml's version by tests/test_handler_config.py
