"""An agent's worktree being made ready while its planner already thinks.

Checking out a big repository and running the setup command (`npm install`, ...) take
seconds; so does the planner's first turn. The orchestrator therefore prepares the worktree
in the background, and the agent's tools wait only for the stage they need:

- reading (read_file, list_files, grep) needs the checkout and the copied local files;
- everything else (writes, commands, finish) needs the setup command to have finished too,
  so an edit never races the setup and a test never runs half-installed.

Which stage a tool needs is part of the tool (`Tool.stage`, core/tools/base.py).

When preparing fails, the agent ends at once with the reason, abandoning a planner call that
is still under way (its answer could not be acted on).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")


class Stage(Enum):
    """How far a worktree must be prepared before a tool may run in it."""

    CHECKED_OUT = "checked_out"  # the checkout and the copied local files
    PROVISIONED = "provisioned"  # and the setup command finished


class WorkspaceFailed(Exception):
    """The worktree could not be created or provisioned; `message` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class WorkspaceGate:
    """Two stages of a worktree being prepared: checked out, then provisioned."""

    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self.checked_out: asyncio.Future[None] = loop.create_future()
        self.provisioned: asyncio.Future[None] = loop.create_future()

    def mark_checked_out(self) -> None:
        if not self.checked_out.done():
            self.checked_out.set_result(None)

    def mark_provisioned(self) -> None:
        self.mark_checked_out()
        if not self.provisioned.done():
            self.provisioned.set_result(None)

    def fail(self, message: str) -> None:
        """Fail every stage not reached yet."""
        for stage in (self.checked_out, self.provisioned):
            if not stage.done():
                stage.set_exception(WorkspaceFailed(message))
                stage.exception()  # retrieved: asyncio must not log it as forgotten

    @property
    def error(self) -> str | None:
        """Why preparing failed, or None (not failed, or not finished yet)."""
        for stage in (self.checked_out, self.provisioned):
            if stage.done():
                exc = stage.exception()
                if isinstance(exc, WorkspaceFailed):
                    return exc.message
        return None

    def _stage(self, stage: Stage) -> asyncio.Future[None]:
        return self.checked_out if stage is Stage.CHECKED_OUT else self.provisioned

    def ready_for(self, stage: Stage) -> bool:
        future = self._stage(stage)
        return future.done() and future.exception() is None

    async def wait_for(self, stage: Stage) -> None:
        """Wait until `stage` is reached; WorkspaceFailed if the worktree never gets there."""
        # Shielded: a cancelled waiter must not cancel the stage the other waiters share.
        await asyncio.shield(self._stage(stage))

    async def alongside(self, work: Awaitable[T]) -> T:
        """Await `work` (a planner call); if preparing fails first, abandon it and raise."""
        task = asyncio.ensure_future(work)
        try:
            if not self.provisioned.done():
                either: set[asyncio.Future[Any]] = {task, self.provisioned}
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            error = self.error
            if error is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                raise WorkspaceFailed(error)
            return await task
        except asyncio.CancelledError:
            task.cancel()
            raise
