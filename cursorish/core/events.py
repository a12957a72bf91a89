"""Events the engine emits; the headless printer and the TUI are both just consumers of them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """Something that happened to an agent (or to the run, when agent_id is None)."""

    kind: str
    agent_id: str | None
    data: dict[str, Any] = field(default_factory=dict)
    ts: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return {"event": self.kind, "agent": self.agent_id, "ts": round(self.ts, 3), **self.data}


EventSink = Callable[[Event], None]


def null_sink(event: Event) -> None:
    """A sink that drops everything (library use, tests)."""
