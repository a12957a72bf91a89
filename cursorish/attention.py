"""Attention: telling the user an agent needs them (a command to approve, a plan to approve,
a finished run to review), in the app and outside it.

Inside: a mark on the agent (kept until the user selects it) and a count in the header.
Outside: the terminal bell and a desktop notification through the terminal itself (OSC 9,
understood by iTerm2, kitty, WezTerm, Windows Terminal; OSC 777 by rxvt/foot/Konsole-like
terminals; tmux passes them on with `allow-passthrough`). Nothing polls: marks follow the
engine events the app receives anyway.

`CURSORISH_ATTENTION` chooses the channels: a comma list of `bell`, `osc`, or `off`
(default: bell,osc).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from cursorish.core import events as ev
from cursorish.core.states import AgentState

ENV = "CURSORISH_ATTENTION"
DEFAULT_CHANNELS = frozenset({"bell", "osc"})
_UNSAFE = re.compile(r"[\x00-\x1f\x7f;]")  # what could end or bend an escape sequence


@dataclass(frozen=True)
class Need:
    agent_id: str
    why: str  # "command" | "plan" | "review"
    text: str


def channels(value: str | None = None) -> frozenset[str]:
    """The channels `CURSORISH_ATTENTION` (or `value`) selects; unknown words are ignored."""
    raw = os.environ.get(ENV, "") if value is None else value
    words = {w.strip().lower() for w in raw.split(",") if w.strip()}
    if not words:
        return DEFAULT_CHANNELS
    if "off" in words or "none" in words:
        return frozenset()
    return frozenset(words & {"bell", "osc"})


def need_of(event: ev.Event) -> Need | None:
    """The attention an engine event asks for, if any."""
    agent_id = event.agent_id
    if agent_id is None:
        return None
    match event:
        case ev.Asking(command=command):
            return Need(agent_id, "command", f"asks to run: {command}")
        case ev.Plan():
            return Need(agent_id, "plan", "has a plan to approve (a) or edit (e)")
        case ev.AgentFinished(status=status) if status != AgentState.CANCELLED:
            return Need(agent_id, "review", f"finished ({status}): review it (d)")
    return None


def terminal_sequence(need: Need, chosen: frozenset[str]) -> str:
    """What to write to the terminal for `need`: bell and/or OSC 9 + OSC 777 notifications."""
    out = ""
    if "osc" in chosen:
        title = "cursorish"
        body = _UNSAFE.sub(" ", f"agent {need.agent_id} {need.text}")[:200]
        out += f"\x1b]9;{title}: {body}\x07"
        out += f"\x1b]777;notify;{title};{body}\x07"
    if "bell" in chosen:
        out += "\a"
    return out


def headless_notice(need: Need) -> str:
    """The one line a headless run prints for `need`."""
    return f"attention: agent {need.agent_id} {need.text}"
