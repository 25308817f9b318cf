"""``supertonic-lambda``: the one console script, in front of the engine, its build tools and the harness.

``main`` holds the parser and the error handling; ``engine`` the engine's commands. The harness's
commands are loaded by module name (``main.HARNESS_COMMANDS``), so the CLI works without them.
"""
