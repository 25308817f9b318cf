"""Work to redo after a SnapStart restore: every sandbox resumed from one snapshot shares its state.

Random streams, the CPU count read at init and open network clients belong to the sandbox that was
snapshotted; a module that holds one registers a hook here to reseed, re-read or reopen it (AWS,
"Implementing SnapStart hooks for container images", lambda/latest/dg/snapstart-runtime-hooks-custom).
The runtime loop runs the hooks once, after ``GET /runtime/restore/next`` and before the first
invocation.
"""

from __future__ import annotations

from collections.abc import Callable

RestoreHook = Callable[[], None]

_hooks: list[RestoreHook] = []


def after_restore(hook: RestoreHook) -> RestoreHook:
    """Registers ``hook`` to run after a SnapStart restore, in registration order; usable as a decorator."""
    _hooks.append(hook)
    return hook


def run_after_restore_hooks() -> None:
    """Runs every registered hook; the first that raises stops the rest (the restore has failed)."""
    for hook in list(_hooks):
        hook()
