"""Waiting for work that cannot be stopped half-way (a thread, a worktree being prepared).

A thread cannot be cancelled: returning as soon as a cancel arrives would let a commit or a
worktree creation race whatever comes next. These helpers wait for the work to end and
re-raise the cancel afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from cursorish.core.agent import in_thread

T = TypeVar("T")


async def finish(task: asyncio.Future[Any]) -> asyncio.CancelledError | None:
    """Wait for `task` to end even if cancelled meanwhile; return that cancel, if any."""
    interrupted: asyncio.CancelledError | None = None
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError as exc:
            interrupted = exc
    return interrupted


async def settled(fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args)` in a thread and wait for it to finish even if cancelled meanwhile; a
    cancel that arrives meanwhile is re-raised afterwards."""
    future: asyncio.Future[T] = in_thread(fn, *args)
    interrupted = await finish(future)
    result = future.result()  # the thread's own error, if any, comes first
    if interrupted is not None:
        raise interrupted
    return result
