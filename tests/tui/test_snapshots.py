"""Snapshots of the main screen at two terminal sizes (pytest-textual-snapshot).

The agents come from the store with fixed ids, counts and timings, and no column shows a
path or a time, so the picture depends on nothing but the code. After a deliberate change,
look at the new pictures and accept them with `pytest tests/tui --snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cursorish.tui.app import CursorishApp
from cursorish.tui.bridge import EngineSetup
from tests.tui.conftest import seed_agent, tool_call_message

SetupFactory = Callable[..., EngineSetup]


def seeded_app(make_setup: SetupFactory) -> CursorishApp:
    setup = make_setup(planner="openai/never-called")
    task_id = seed_agent(
        setup,
        "a1b2c3",
        "add a --verbose flag to the CLI",
        state="failed",
        error="planner request failed: 500 after 4 retries",
        tokens=(5_200, 300),
        cost_usd=0.0123,
    )
    seed_agent(
        setup,
        "d4e5f6",
        "add a --verbose flag to the CLI",
        task_id=task_id,
        state="cancelled",
        error="cancelled",
        tokens=(900, 40),
        cost_usd=0.002,
    )
    seed_agent(
        setup,
        "0a1b2c",
        "say hello instead of hi",
        state="done",
        summary="greet now says hello",
        tokens=(12_400, 800),
        cost_usd=0.0456,
        messages=[
            {"role": "system", "content": "You are an agent."},
            {"role": "user", "content": "Task: say hello instead of hi\n\nRepository files (1):"},
            {
                **tool_call_message("c1", "read_file", path="app.py"),
                "content": "I'll read app.py first.",
            },
            {"role": "tool", "tool_call_id": "c1", "content": "app.py (lines 1-2 of 2)"},
            tool_call_message("c2", "edit_file", path="app.py", sketch="return 'hello'"),
            {"role": "tool", "tool_call_id": "c2", "content": "applied to app.py (+1 -1)"},
            tool_call_message("c3", "finish", summary="greet now says hello"),
            {"role": "tool", "tool_call_id": "c3", "content": "finished"},
        ],
        tool_rows=[
            {"step": 1, "call_id": "c1", "name": "read_file", "ok": True, "elapsed_ms": 2.0},
            {"step": 2, "call_id": "c2", "name": "edit_file", "ok": True, "elapsed_ms": 31.0},
            {"step": 3, "call_id": "c3", "name": "finish", "ok": True, "elapsed_ms": 0.0},
        ],
    )
    return CursorishApp(setup)


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
def test_main_screen(snap_compare: Any, make_setup: SetupFactory, size: tuple[int, int]) -> None:
    assert snap_compare(seeded_app(make_setup), terminal_size=size)


def test_main_screen_light_theme(snap_compare: Any, make_setup: SetupFactory) -> None:
    assert snap_compare(seeded_app(make_setup), terminal_size=(100, 30), press=["t"])
