"""The app as a person uses it, driven by Textual's Pilot against a scripted planner server:
real litellm over HTTP, real worktrees, the real store."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette

from cursorish.tui.app import CursorishApp
from cursorish.tui.bridge import EngineSetup
from cursorish.tui.dialogs import AskScreen, ConfirmScreen, NewAgentScreen
from cursorish.tui.transcript import ToolBlock
from tests.conftest import ServerFactory, git
from tests.scripted_turns import APP, call, finish
from tests.tui.conftest import (
    EDIT_TURNS,
    screen_text,
    wait_for,
    widget_text,
)

pytestmark = pytest.mark.anyio

SetupFactory = Callable[..., EngineSetup]


async def start_agent(pilot: Any, task: str, *, best_of: int = 1) -> None:
    """Open the new-agent dialog with `n`, type the task, start."""
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, NewAgentScreen), what="dialog")
    if best_of > 1:
        pilot.app.screen.query_one("#count").value = best_of
    await pilot.press(*task)
    await pilot.press("enter")


def stored(app: CursorishApp, agent_id: str) -> dict[str, Any]:
    row = app.setup.store.agent(agent_id)
    assert row is not None
    return row


def only_row(app: CursorishApp) -> Any:
    rows = list(app.panel.rows.values())
    assert len(rows) == 1, rows
    return rows[0]


async def started_row(pilot: Any, task: str) -> Any:
    """Start one agent on `task` and return its row in the agents panel once it shows."""
    app = pilot.app
    await start_agent(pilot, task)
    await wait_for(pilot, lambda: bool(app.panel.rows), what="the agent's row")
    return only_row(app)


async def test_new_agent_runs_to_done_with_its_transcript(
    repo: Path, scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server(EDIT_TURNS)))
    async with app.run_test(size=(100, 30)) as pilot:
        assert "No agent selected" in screen_text(app)
        row = await started_row(pilot, "say hello")
        await wait_for(pilot, lambda: row.state == "done", what="done")
        await wait_for(pilot, lambda: "✓ done: changed greet" in screen_text(app), what="end")
        text = screen_text(app)
        assert "Agents" in text and "done" in text and row.id in text
        assert row.tokens > 0 and "changed greet" in row.activity
        # The transcript: the task, the streamed planner text, folded tool calls, the end.
        assert app.transcript.agent_id == row.id
        for needle in ("Task: say hello", "Reading app.py first.", "read_file app.py"):
            assert needle in text
        assert "edit_file app.py" in text and "✓ done: changed greet" in text
        blocks = list(app.transcript.query(ToolBlock))
        assert [b.tool for b in blocks] == ["read_file", "edit_file", "finish"]
        assert all(b.collapsed and b.ok for b in blocks)
    assert git(repo, "show", f"{row.branch}:app.py") == APP.replace('"hi "', '"hello "')


async def test_tool_calls_expand_on_click(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server(EDIT_TURNS)))
    async with app.run_test(size=(100, 40)) as pilot:
        await start_agent(pilot, "say hello")
        await wait_for(pilot, lambda: any(r.ended for r in app.panel.rows.values()), what="end")
        await pilot.pause(0.2)
        edit = next(b for b in app.transcript.query(ToolBlock) if b.tool == "edit_file")
        assert 'return "hello " + name' not in screen_text(app)
        await pilot.click(edit)
        await wait_for(pilot, lambda: "applied to app.py (+1 -1" in screen_text(app), what="open")
        assert not edit.collapsed
        text = screen_text(app)
        assert 'return "hello " + name' in text  # the sketch, in the arguments
        assert "applied to app.py (+1 -1" in text  # the result


async def test_best_of_n_starts_siblings_from_head(
    repo: Path, scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server(EDIT_TURNS)))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        # Committed after the app opened, plus uncommitted work: agents start from the new
        # HEAD and are told nothing of the rest, which the user is told.
        (repo / "README.md").write_text("# demo, later\n")
        git(repo, "commit", "-qam", "later")
        (repo / "app.py").write_text(APP + "# not committed\n")
        await start_agent(pilot, "say hello", best_of=2)
        # Checked while it shows: a notification expires after a few seconds.
        await wait_for(
            pilot,
            lambda: any("uncommitted changes" in n.message for n in app._notifications),
            what="the uncommitted-changes notice",
        )
        await wait_for(pilot, lambda: len(app.panel.rows) == 2, what="two rows")
        await wait_for(pilot, lambda: all(r.ended for r in app.panel.rows.values()), what="end")
        a, b = app.panel.rows.values()
        assert a.task_id == b.task_id and a.branch != b.branch
        assert [s.id for s in app.panel.siblings_of(a.id)] == [b.id]
    head = git(repo, "rev-parse", "HEAD").strip()
    for row in (a, b):
        assert stored(app, row.id)["base_commit"] == head
        assert "# not committed" not in git(repo, "show", f"{row.branch}:app.py")


async def test_cancel_stops_a_running_agent(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    slow = [{"delay_s": 30, "content": "thinking"}, *EDIT_TURNS]
    app = CursorishApp(make_setup(scripted_server(slow)))
    async with app.run_test(size=(100, 30)) as pilot:
        row = await started_row(pilot, "say hello")
        await wait_for(pilot, lambda: row.state == "planning", what="planning")
        await pilot.press("x")
        await wait_for(pilot, lambda: row.state == "cancelled", timeout=10, what="cancelled")
        await wait_for(pilot, lambda: not app.bridge.busy, timeout=10, what="committed")
        assert stored(app, row.id)["state"] == "cancelled"
        assert "cancelled" in screen_text(app)


async def test_discard_asks_then_removes_worktree_and_branch(
    repo: Path, scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server(EDIT_TURNS)))
    async with app.run_test(size=(100, 30)) as pilot:
        row = await started_row(pilot, "say hello")
        await wait_for(pilot, lambda: row.ended and not app.bridge.busy, what="end")
        await pilot.press("delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("n")  # keep it
        await pilot.pause(0.1)
        assert row.id in app.panel.rows and Path(row.worktree).is_dir()
        await pilot.press("delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.panel.rows, what="row removed")
        assert not Path(row.worktree).exists()
        assert git(repo, "branch", "--list", row.branch) == ""
        assert stored(app, row.id)["discarded_at"]
        assert "No agent selected" in screen_text(app)


RUN_ECHO = {"tool_calls": [call("run_command", command="echo from-the-agent")]}


async def test_ask_allow_once_runs_the_command(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server([RUN_ECHO, finish()])))
    async with app.run_test(size=(100, 30)) as pilot:
        await start_agent(pilot, "run it")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the ask dialog")
        assert "echo from-the-agent" in screen_text(app)
        await pilot.press("o")
        await wait_for(pilot, lambda: any(r.ended for r in app.panel.rows.values()), what="end")
        row = only_row(app)
        (tool,) = app.setup.store.tool_calls(row.id)[:1]
        assert tool["name"] == "run_command" and "from-the-agent" in tool["result"]
        assert tool["ok"]


async def test_ask_deny_refuses_the_command(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server([RUN_ECHO, finish()])))
    async with app.run_test(size=(100, 30)) as pilot:
        await start_agent(pilot, "run it")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the ask dialog")
        await pilot.click("#deny")
        await wait_for(pilot, lambda: any(r.ended for r in app.panel.rows.values()), what="end")
        row = only_row(app)
        tool = app.setup.store.tool_calls(row.id)[0]
        assert tool["result"] == "the user did not allow this command" and not tool["ok"]
        assert "denied: echo from-the-agent" in screen_text(app)


async def test_ask_allow_always_is_remembered_for_the_session(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server([RUN_ECHO, RUN_ECHO, finish()])))
    asked = 0
    async with app.run_test(size=(100, 30)) as pilot:
        await start_agent(pilot, "run it twice")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the ask dialog")
        asked += 1
        await pilot.press("a")
        while not any(r.ended for r in app.panel.rows.values()):
            await pilot.pause(0.05)
            asked += isinstance(app.screen, AskScreen)
        row = only_row(app)
        results = [t["ok"] for t in app.setup.store.tool_calls(row.id)[:2]]
    assert asked == 1 and results == [True, True]
    assert app.bridge.always_allowed == {"echo from-the-agent"}


async def test_cancel_while_asking_closes_the_dialog(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server([RUN_ECHO, finish()])))
    async with app.run_test(size=(100, 30)) as pilot:
        await start_agent(pilot, "run it")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the ask dialog")
        row = only_row(app)
        app.action_cancel_agent()  # the dialog holds the keys; the palette or code cancels
        await wait_for(pilot, lambda: not isinstance(app.screen, AskScreen), what="closed")
        await wait_for(pilot, lambda: row.state == "cancelled", what="cancelled")


async def test_no_ask_when_a_flag_sets_the_policy(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    setup = make_setup(scripted_server([RUN_ECHO, finish()]), command_policy="deny")
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_agent(pilot, "run it")
        await wait_for(pilot, lambda: any(r.ended for r in app.panel.rows.values()), what="end")
        assert not isinstance(app.screen, AskScreen)
        row = only_row(app)
        assert "disabled by policy" in app.setup.store.tool_calls(row.id)[0]["result"]


async def test_empty_task_is_refused_in_the_dialog(make_setup: SetupFactory) -> None:
    app = CursorishApp(make_setup(planner="openai/never-called"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewAgentScreen), what="dialog")
        await pilot.press("enter")
        assert isinstance(app.screen, NewAgentScreen)
        assert "Describe the task first." in screen_text(app)
        await pilot.press("escape")
        assert not isinstance(app.screen, NewAgentScreen) and not app.panel.rows


async def test_without_a_planner_the_app_opens_and_says_why_agents_cannot_start(
    make_setup: SetupFactory,
) -> None:
    setup = make_setup()
    assert "No planner model is configured" in setup.notice
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await start_agent(pilot, "say hello")
        await pilot.pause(0.1)
        assert not app.panel.rows
        messages = [n.message for n in app._notifications]
        assert any("no planner model is configured" in m for m in messages)


async def test_theme_toggles_between_dark_and_light(make_setup: SetupFactory) -> None:
    app = CursorishApp(make_setup(planner="openai/never-called"))
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.current_theme.dark
        await pilot.press("t")
        assert app.theme == "textual-light" and not app.current_theme.dark
        await pilot.press("t")
        assert app.current_theme.dark


async def test_palette_lists_every_action(make_setup: SetupFactory) -> None:
    app = CursorishApp(make_setup(planner="openai/never-called"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
        titles = {a.title for a in app.palette_actions()}  # while the palette is open
        assert {"New agent", "Review agent branch", "Discard agent", "Quit"} <= titles
        await pilot.press(*"new agent")
        await wait_for(pilot, lambda: "Start agents on a task" in screen_text(app), what="hit")
        await pilot.press(*(["backspace"] * 9), *"toggle light")
        await wait_for(pilot, lambda: "Toggle light/dark theme" in screen_text(app), what="hit")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.current_theme.dark, what="theme toggled")
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
        await pilot.press(*"new agent", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, NewAgentScreen), what="dialog")


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_layout_fits_the_terminal(
    size: tuple[int, int], scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server(EDIT_TURNS)))
    async with app.run_test(size=size) as pilot:
        await start_agent(pilot, "say hello")
        await wait_for(pilot, lambda: any(r.ended for r in app.panel.rows.values()), what="end")
        await pilot.pause(0.2)
        width, height = size
        panel, transcript = app.panel.region, app.transcript.region
        assert panel.right <= width and transcript.right <= width
        assert panel.y >= 1 and transcript.y >= panel.bottom
        assert transcript.bottom <= height - 1  # the footer keeps the last row
        assert transcript.height >= 8
        lines = screen_text(app).splitlines()
        assert len(lines) == height and all(len(line) == width for line in lines)
        assert "n New" in lines[-1]
        header = widget_text(app, app.panel).splitlines()[1]
        assert ("branch" in header and "task" in header) == (width >= 120)


async def test_review_without_the_diff_viewer_says_so(
    scripted_server: ServerFactory,
    make_setup: SetupFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    real = importlib.import_module

    def missing(name: str, package: str | None = None) -> Any:
        if name == "cursorish.tui.review_screen":
            raise ImportError(name)
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", missing)
    app = CursorishApp(make_setup(scripted_server(EDIT_TURNS)))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await start_agent(pilot, "say hello")
        await wait_for(pilot, lambda: any(r.ended for r in app.panel.rows.values()), what="end")
        await pilot.press("d")
        await wait_for(
            pilot,
            lambda: any("diff viewer" in n.message for n in app._notifications),
            what="the notification",
        )


async def test_quit_with_running_agents_asks_and_cancels_them(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    slow = [{"delay_s": 30, "content": "thinking"}, *EDIT_TURNS]
    app = CursorishApp(make_setup(scripted_server(slow)))
    async with app.run_test(size=(100, 30)) as pilot:
        row = await started_row(pilot, "say hello")
        await wait_for(pilot, lambda: row.state == "planning", what="planning")
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.return_code is not None, timeout=15, what="exit")
    assert stored(app, row.id)["state"] == "cancelled"


REVISE_SKETCH = 'def greet(name):\n    return "hey " + name\n\n\n# ... existing code ...\n'
REVISE_TURNS = [
    *EDIT_TURNS,
    {"tool_calls": [call("edit_file", path="app.py", sketch=REVISE_SKETCH)]},
    finish("greet says hey now"),
]


async def test_review_opens_the_branch_and_a_reason_revises_the_agent(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    from cursorish.tui.review_screen import ReviewScreen

    app = CursorishApp(make_setup(scripted_server(REVISE_TURNS)))
    async with app.run_test(size=(120, 40)) as pilot:
        row = await started_row(pilot, "say hello")
        await wait_for(pilot, lambda: row.ended and not app.bridge.busy, what="end")
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), what="review")
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session.agent_id == row.id
        assert '"hello "' in screen_text(app)
        await pilot.press("n")  # the review's keys are not the agents' keys
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("r")  # reject with a reason
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ReasonScreen", what="reason")
        await pilot.press(*"say hey, not hello")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "revised its work" in screen_text(app), what="revision")
        assert '"hey "' in screen_text(app)  # the revision's hunk, pending
        feedback = [m for m in app.setup.store.messages(row.id) if m["role"] == "user"][-1][
            "content"
        ]
        assert "say hey, not hello" in feedback
        await pilot.press("q")
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewScreen), what="back")
        assert row.state == "done" and "greet says hey now" in row.activity
        assert "say hey, not hello" in screen_text(app)  # the feedback, in the transcript


async def test_compare_opens_two_siblings_side_by_side(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    from cursorish.tui.review_screen import CompareScreen

    app = CursorishApp(make_setup(scripted_server(EDIT_TURNS)))
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("c")  # nothing selected: nothing happens
        assert len(app.screen_stack) == 1
        await start_agent(pilot, "say hello", best_of=2)
        await wait_for(pilot, lambda: len(app.panel.rows) == 2, what="two rows")
        await wait_for(
            pilot,
            lambda: all(r.ended for r in app.panel.rows.values()) and not app.bridge.busy,
            what="both ended",
        )
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="compare")


async def test_compare_without_siblings_says_how_to_get_some(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server(EDIT_TURNS)))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await start_agent(pilot, "say hello")
        await wait_for(pilot, lambda: any(r.ended for r in app.panel.rows.values()), what="end")
        await pilot.press("c")
        await wait_for(
            pilot,
            lambda: any("best-of-N" in n.message for n in app._notifications),
            what="the notification",
        )
        assert len(app.screen_stack) == 1


async def test_resume_continues_a_failed_agent(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    failing = [
        {**EDIT_TURNS[0], "error": {"status": 500, "times": 2, "message": "overloaded"}},
        *EDIT_TURNS[1:],
    ]
    app = CursorishApp(make_setup(scripted_server(failing)))
    async with app.run_test(size=(100, 30)) as pilot:
        row = await started_row(pilot, "say hello")
        await wait_for(pilot, lambda: row.state == "failed" and not app.bridge.busy, what="fail")
        await pilot.press("r")
        await wait_for(pilot, lambda: row.state == "done", timeout=20, what="done after resume")
        assert "resumed from its transcript" in screen_text(app)
        assert "✓ done: changed greet" in screen_text(app)


async def test_the_ask_dialog_shows_a_command_s_escape_sequences_escaped(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    # ESC [2K and CR would erase "rm -rf ~" on the terminal and leave only the harmless part.
    hidden = "rm -rf ~ \x1b[2K\r echo harmless"
    turns = [{"tool_calls": [call("run_command", command=hidden)]}, finish()]
    app = CursorishApp(make_setup(scripted_server(turns)))
    async with app.run_test(size=(120, 30)) as pilot:
        await start_agent(pilot, "run it")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the ask dialog")
        shown = "rm -rf ~ \\e[2K\\r echo harmless"
        await wait_for(pilot, lambda: shown in screen_text(app), what="the command, escaped")
        assert "\x1b" not in screen_text(app)
        await pilot.click("#deny")


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener on the host's 127.0.0.1 (a sandbox without network has its own loopback)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(30)
    accepted: list[socket.socket] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = server.accept()
                accepted.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield int(server.getsockname()[1])
    server.close()
    for conn in accepted:
        conn.close()


def _connect(port: int) -> dict[str, Any]:
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), 5); print('connected')"
    return {"tool_calls": [call("run_command", command=f'python3 -c "{code}"')]}


@pytest.mark.parametrize(("key", "connected"), [("o", False), ("n", True)])
async def test_ask_with_network_opens_the_sandbox_network_for_that_command(
    scripted_server: ServerFactory,
    make_setup: SetupFactory,
    listener: int,
    key: str,
    connected: bool,
) -> None:
    app = CursorishApp(make_setup(scripted_server([_connect(listener), finish()])))
    async with app.run_test(size=(120, 30)) as pilot:
        await start_agent(pilot, "reach the host")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the ask dialog")
        assert "With network (n)" in screen_text(app)
        await pilot.press(key)
        await wait_for(pilot, lambda: any(r.ended for r in app.panel.rows.values()), what="end")
        tool = app.setup.store.tool_calls(only_row(app).id)[0]
        assert ("connected" in tool["result"]) is connected, tool["result"]
