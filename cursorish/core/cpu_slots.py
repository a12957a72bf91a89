"""How many agents may run short, CPU-bound work (git, file tools, commits) at one time.

Eight agents that get their planner replies in the same instant would otherwise all start
their tool work at once and share the cores evenly, so every one of them finishes late and
they send their next planner request together again: while all of them wait for the
network the cores idle, and while they compute nobody waits. Holding the number of such
jobs to the number of cores lets the first agents finish their step and send their next
request sooner, so one agent's computing overlaps another's waiting. On a 2-core machine
this brought eight agents of `cursorish bench agents` from 1.44-1.86x the wall time of one
to 1.34-1.53x (README, Benchmarks).

Only work that is short and uses the CPU holds a slot: a checkout, a git listing or grep,
a read, a create, a checkpoint commit. Never a `run_command` (a test suite can take
minutes) nor an `edit_file` (the local apply model has its own queue, and waiting for it
while holding a slot would stall every other agent's reads). Checkouts have slots of their
own, so that the checkouts of a very big repository do not hold up the tools of agents
that are already working. Which tools hold a slot is part of each tool (`Tool.slotted`,
core/tools/base.py).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity, e.g. under `taskset` or a cgroup)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


class CpuSlots:
    """A counting limit for threads; a thread that already holds a slot does not wait again
    (a slotted job that calls another one must not deadlock against itself)."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"slots must be at least 1, got {slots}")
        self.slots = slots
        self._semaphore = threading.BoundedSemaphore(slots)
        self._holding = threading.local()

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold a slot for the duration of the block (blocks the calling thread)."""
        if getattr(self._holding, "depth", 0):
            self._holding.depth += 1
            try:
                yield
            finally:
                self._holding.depth -= 1
            return
        with self._semaphore:
            self._holding.depth = 1
            try:
                yield
            finally:
                self._holding.depth = 0

    def run(self, fn: Callable[P, T]) -> Callable[P, T]:
        """`fn`, made to hold a slot while it runs."""

        @functools.wraps(fn)
        def holding(*args: P.args, **kwargs: P.kwargs) -> T:
            with self.held():
                return fn(*args, **kwargs)

        return holding


# One limit for the whole process: the cores are shared by every orchestrator in it.
TOOL_SLOTS = CpuSlots(usable_cores())
CHECKOUT_SLOTS = CpuSlots(usable_cores())
