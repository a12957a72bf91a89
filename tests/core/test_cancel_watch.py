"""Cancels from outside a run: the real signal handlers while the run lasts, the poller of
cancel requests, and what is left once it ends (a late SIGUSR1 must not kill the process)."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest

from cursorish.core import cancel_watch
from cursorish.core.cancel_watch import watched
from cursorish.core.lifecycle import CANCEL_SIGNAL


@pytest.fixture(autouse=True)
def restore_signals() -> Iterator[None]:
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, CANCEL_SIGNAL)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


async def _until(flag: asyncio.Event) -> str:
    await asyncio.wait_for(flag.wait(), timeout=10)
    return "ended"


def test_the_cancel_signal_checks_requests_at_once_and_is_ignored_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cancel_watch, "CANCEL_POLL_S", 60.0)  # only the signal can check
    interrupts: list[str] = []

    async def main() -> list[str]:
        checked = asyncio.Event()
        task = asyncio.create_task(_until(checked))
        asyncio.get_running_loop().call_later(0.05, os.kill, os.getpid(), CANCEL_SIGNAL)
        return await watched(
            [task], on_interrupt=lambda: interrupts.append("int"), check_requests=checked.set
        )

    assert asyncio.run(main()) == ["ended"]
    assert interrupts == []
    assert signal.getsignal(CANCEL_SIGNAL) == signal.SIG_IGN
    os.kill(os.getpid(), CANCEL_SIGNAL)  # a late `agents cancel`: ignored, we live on


def test_sigterm_interrupts_and_the_poller_checks_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cancel_watch, "CANCEL_POLL_S", 0.01)
    polls: list[int] = []

    async def main() -> list[str]:
        interrupted = asyncio.Event()
        task = asyncio.create_task(_until(interrupted))
        loop = asyncio.get_running_loop()
        loop.call_later(0.2, os.kill, os.getpid(), signal.SIGTERM)
        return await watched(
            [task], on_interrupt=interrupted.set, check_requests=lambda: polls.append(1)
        )

    assert asyncio.run(main()) == ["ended"]
    assert len(polls) >= 3
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # handler removed with the run


def test_without_signal_handling_nothing_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cancel_watch, "CANCEL_POLL_S", 0.01)
    before = signal.getsignal(CANCEL_SIGNAL)
    seen: list[object] = []

    async def main() -> list[str]:
        checked = asyncio.Event()

        def check() -> None:
            seen.append(signal.getsignal(CANCEL_SIGNAL))
            checked.set()

        return await watched(
            [asyncio.create_task(_until(checked))],
            on_interrupt=lambda: None,
            check_requests=check,
            handle_signals=False,
        )

    assert asyncio.run(main()) == ["ended"]
    assert seen[0] == before and signal.getsignal(CANCEL_SIGNAL) == before
