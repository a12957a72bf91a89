"""Watching for cancels from outside a run while its agents work.

Three ways in: SIGINT/SIGTERM (Ctrl-C: cancel every agent), `CANCEL_SIGNAL` sent by
`cursorish agents cancel` from another process, and the store's `cancel_requested` flag,
polled (the signal only wakes the owner sooner; the flag is what counts). The orchestrator
says what each means; this module installs the handlers and the poller around the run and
removes them after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from typing import TypeVar

from cursorish.core.lifecycle import CANCEL_SIGNAL

T = TypeVar("T")
CANCEL_POLL_S = 0.5


async def watched(
    tasks: list[asyncio.Task[T]],
    *,
    on_interrupt: Callable[[], None],
    check_requests: Callable[[], None],
    handle_signals: bool = True,
) -> list[T]:
    """Wait for `tasks`, with the signal handlers (`handle_signals`) and the cancel-request
    poller in place meanwhile."""
    loop = asyncio.get_running_loop()
    installed = _install_signals(loop, on_interrupt, check_requests) if handle_signals else []
    poller = asyncio.create_task(_poll(check_requests))
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        poller.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await poller
        for sig in installed:
            loop.remove_signal_handler(sig)
        if installed:
            # A late `agents cancel` must not kill this process by SIGUSR1's default action.
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signal.SIGUSR1, signal.SIG_IGN)


def _install_signals(
    loop: asyncio.AbstractEventLoop,
    on_interrupt: Callable[[], None],
    check_requests: Callable[[], None],
) -> list[int]:
    installed: list[int] = []
    handlers = {
        signal.SIGINT: on_interrupt,
        signal.SIGTERM: on_interrupt,
        CANCEL_SIGNAL: check_requests,
    }
    for sig, handler in handlers.items():
        try:
            loop.add_signal_handler(sig, handler)
            installed.append(sig)
        except (ValueError, RuntimeError, NotImplementedError):
            break  # not the main thread: the caller handles signals itself
    return installed


async def _poll(check_requests: Callable[[], None]) -> None:
    while True:
        await asyncio.sleep(CANCEL_POLL_S)
        with contextlib.suppress(Exception):
            check_requests()
