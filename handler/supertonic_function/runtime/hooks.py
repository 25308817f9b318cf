"""Work to redo after a SnapStart restore: every sandbox resumed from one snapshot shares its state.

Random streams, the CPU count read at init and open network clients belong to the sandbox that was
snapshotted; a module that holds one registers a hook here to reseed, re-read or reopen it (AWS,
"Implementing SnapStart hooks for container images", lambda/latest/dg/snapstart-runtime-hooks-custom).

The registry is AWS's own (``snapshot_restore_py``, which awslambdaric 3.0 and later runs after its
``/restore/next``), so one registration serves both runtime clients docker/entry.sh may start:
awslambdaric for a BUFFERED function URL and this package's loop for RESPONSE_STREAM. The loop runs
the hooks as awslambdaric does (lambda_runtime_hooks_runner.py): before-snapshot hooks last
registered first, after-restore hooks in registration order, the first that raises stopping the rest.
"""

from __future__ import annotations

from collections.abc import Callable

from snapshot_restore_py import get_after_restore, get_before_snapshot, register_after_restore

RestoreHook = Callable[[], object]  # what it returns is not read


def after_restore(hook: RestoreHook) -> RestoreHook:
    """Registers ``hook`` to run after a SnapStart restore, in registration order; usable as a decorator."""
    register_after_restore(hook)
    return hook


def run_before_snapshot_hooks() -> None:
    """Runs the hooks registered with ``snapshot_restore_py.register_before_snapshot``, last first."""
    pending = get_before_snapshot()
    while pending:
        hook, args, kwargs = pending.pop()
        hook(*args, **kwargs)


def run_after_restore_hooks() -> None:
    """Runs every registered hook; the first that raises stops the rest (the restore has failed)."""
    for hook, args, kwargs in list(get_after_restore()):
        hook(*args, **kwargs)
