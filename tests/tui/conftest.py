"""Fixtures for the app's tests: an isolated configuration, a small repository, an
`EngineSetup` pointed at a scripted planner server, and helpers to read the screen."""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from cursorish.config.settings import FLAG_KEYS
from cursorish.replay.scripted_server import ScriptedServer
from cursorish.tui.bridge import EngineSetup
from cursorish.tui.launch import app_setup
from tests.scripted_turns import APP, SKETCH, call, finish

EDIT_TURNS: list[dict[str, Any]] = [
    {"content": "Reading app.py first.", "tool_calls": [call("read_file", path="app.py")]},
    {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)]},
    finish(),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def fast_retries(one_retry: None) -> None:
    """Planner errors in the app's tests are retried once (tests/conftest.py: one_retry)."""


@pytest.fixture
def repo(tmp_path: Path, make_repo: Callable[..., Path]) -> Path:
    return make_repo(tmp_path, {"app.py": APP, "README.md": "# demo\n"})


def namespace(repo: Path, **flags: Any) -> argparse.Namespace:
    """What the `tui` subcommand's parser would produce."""
    values: dict[str, Any] = {key: None for key in FLAG_KEYS}
    values.update(flags)
    return argparse.Namespace(repo=str(repo), **values)


@pytest.fixture
def make_setup(repo: Path) -> Iterator[Callable[..., EngineSetup]]:
    """`make_setup(server=None, **flags)`: the app's setup for `repo` (store closed after)."""
    with contextlib.ExitStack() as made:

        def make(server: ScriptedServer | None = None, **flags: Any) -> EngineSetup:
            if server is not None:
                flags.setdefault("planner", "openai/scripted")
                flags.setdefault("api_base", server.base_url)
            return made.enter_context(app_setup(namespace(repo, **flags)))

        yield make


def screen_text(app: App[Any]) -> str:
    """The screen as plain text, one line per row (what a person would read)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def widget_text(app: App[Any], widget: Any) -> str:
    """The part of the screen a widget covers, as plain text."""
    region = widget.region
    lines = screen_text(app).splitlines()[region.y : region.bottom]
    return "\n".join(line[region.x : region.right] for line in lines)


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 20.0, what: str = ""
) -> None:
    """Let the app run until `condition()` holds; fail with the screen after `timeout`."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{screen_text(pilot.app)}")
        await pilot.pause(0.05)


def seed_agent(
    setup: EngineSetup,
    agent_id: str,
    task: str,
    *,
    state: str = "done",
    summary: str = "",
    error: str = "",
    tokens: tuple[int, int] = (0, 0),
    cost_usd: float = 0.0,
    task_id: int | None = None,
    messages: list[dict[str, Any]] | None = None,
    tool_rows: list[dict[str, Any]] | None = None,
) -> int:
    """Record an agent (as a finished run would have) with a fixed id; returns its task id."""
    store = setup.store
    if task_id is None:
        task_id = store.create_task(task, str(setup.repo.root))
    store.create_agent(
        agent_id=agent_id,
        task_id=task_id,
        profile="default",
        branch=f"cursorish/{agent_id}",
        worktree=str(setup.repo.root.parent / "worktrees" / agent_id),
        base_commit=setup.repo.head_commit,
        planner_model="openai/scripted",
        apply_engine="auto",
        state=state,
    )
    store.update_agent(agent_id, summary=summary, error=error)
    if tokens != (0, 0) or cost_usd:
        store.add_usage(agent_id, tokens[0], tokens[1], cost_usd)
    for message in messages or []:
        store.add_message(agent_id, message)
    for row in tool_rows or []:
        store.add_tool_call(agent_id, **row)
    return task_id


def tool_call_message(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    import json

    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }
