"""Frames of the Textual app, timed for `cursorish bench tui`.

A frame counts where Textual hands a rendered update to the driver (`App._display`): in headless
mode nothing is written to a terminal, but the update has been composed and rendered.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import RenderableType
from textual.app import App
from textual.screen import Screen

from cursorish.errors import CursorishError
from cursorish.tui.app import CursorishApp

SIZE = (120, 40)  # the terminal every figure of the bench is measured in
FRAME_TIMEOUT_S = 10.0  # a press not drawn by then counts as this long, and as a miss


@dataclass
class FrameClock:
    """Timestamps of rendered frames, and a way to wait for the first frame in which a
    condition holds (checked when the frame is handed over, so the frame shows it)."""

    frames: int = 0
    _waiters: list[tuple[Callable[[], bool], asyncio.Future[float]]] = field(default_factory=list)

    def frame(self) -> None:
        self.frames += 1
        if not self._waiters:
            return
        now = time.perf_counter()
        still = []
        for condition, future in self._waiters:
            if future.done():
                continue
            if condition():
                future.set_result(now)
            else:
                still.append((condition, future))
        self._waiters = still

    async def wait(self, condition: Callable[[], bool], timeout: float | None = None) -> float:
        """perf_counter() of the first frame from now on in which `condition()` holds;
        TimeoutError after `timeout` (default FRAME_TIMEOUT_S) seconds."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiters.append((condition, future))
        return await asyncio.wait_for(future, FRAME_TIMEOUT_S if timeout is None else timeout)


class TimedApp(CursorishApp):
    """The real app, with a FrameClock told about every frame it renders."""

    # Textual resolves a relative CSS_PATH beside the subclass's module: point at the app's.
    CSS_PATH = str(Path(inspect.getfile(CursorishApp)).with_name("app.tcss"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.clock = FrameClock()

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        super()._display(screen, renderable)
        if renderable is not None and not self._batch_count:
            self.clock.frame()


class TimedHost(App[None]):
    """An empty app to push review screens on, with a FrameClock."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = FrameClock()

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        super()._display(screen, renderable)
        if renderable is not None and not self._batch_count:
            self.clock.frame()


async def until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise CursorishError(f"bench tui: timed out waiting for {what}")
        await asyncio.sleep(0.05)
