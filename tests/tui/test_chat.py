"""Talking to agents in the app (issue 15), driven by Pilot against a scripted planner:
the input line (send after done, send while running, history, @path completion), plan first
(approve, edit), attention marks, and snapshots of the transcript with the input line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cursorish.tui.app import CursorishApp
from cursorish.tui.bridge import EngineSetup
from cursorish.tui.chat_input import ChatInput
from cursorish.tui.dialogs import NewAgentScreen
from tests.conftest import ServerFactory, git
from tests.scripted_turns import APP, SKETCH, call, finish
from tests.tui.conftest import (
    EDIT_TURNS,
    screen_text,
    seed_agent,
    tool_call_message,
    wait_for,
    widget_text,
)

pytestmark = pytest.mark.anyio

SetupFactory = Callable[..., EngineSetup]
HELLO = APP.replace('"hi "', '"hello "')
SKETCH_BYE = '# ... existing code ...\n\n\ndef bye(name):\n    return "goodbye " + name\n'
BOTH = HELLO.replace('"bye "', '"goodbye "')
EDIT_BYE = {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH_BYE)]}
PLAN = "1. Change greet() in app.py to say hello.\n2. Leave bye() alone."


async def start(pilot: Any, task: str, *, plan: bool = False) -> Any:
    app = pilot.app
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, NewAgentScreen), what="dialog")
    if plan:
        app.screen.query_one("#plan").value = True  # the toggle in the dialog
    await pilot.press(*task, "enter")
    await wait_for(pilot, lambda: bool(app.panel.rows), what="the agent's row")
    return next(iter(app.panel.rows.values()))


async def send(pilot: Any, text: str) -> None:
    await pilot.press("i")
    assert isinstance(pilot.app.focused, ChatInput)
    await pilot.press(*text, "enter")


def user_texts(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "user"]


async def test_send_after_done_continues_the_agent_on_its_branch(
    repo: Path, scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    server = scripted_server([*EDIT_TURNS, EDIT_BYE, finish("bye too")])
    app = CursorishApp(make_setup(server))
    async with app.run_test(size=(100, 34)) as pilot:
        row = await start(pilot, "say hello")
        await wait_for(pilot, lambda: app.panel.rows[row.id].state == "done", what="done")
        await send(pilot, "say goodbye in bye()")
        assert app.chat_input.text == ""  # sent: the line is empty again
        await wait_for(pilot, lambda: "bye too" in screen_text(app), what="second run")
        await wait_for(pilot, lambda: app.panel.rows[row.id].state == "done", what="done again")
        assert "say goodbye in bye()" in screen_text(app)
    assert user_texts(server.requests[-2])[-1] == "say goodbye in bye()"
    assert git(repo, "show", f"{row.branch}:app.py") == BOTH


async def test_send_while_running_is_queued_until_its_next_turn(
    repo: Path, scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    slow = {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)], "delay_s": 1.5}
    server = scripted_server([slow, EDIT_BYE, finish()])
    app = CursorishApp(make_setup(server))
    async with app.run_test(size=(100, 34)) as pilot:
        row = await start(pilot, "say hello")
        await wait_for(pilot, lambda: app.panel.rows[row.id].state == "planning", what="plan")
        await send(pilot, "and goodbye")
        await wait_for(
            pilot, lambda: "queued (sent at its next turn): and goodbye" in screen_text(app)
        )
        await wait_for(pilot, lambda: app.panel.rows[row.id].state == "done", what="done")
        await wait_for(pilot, lambda: "queued (sent" not in screen_text(app), what="delivered")
        assert "and goodbye" in screen_text(app)
    assert user_texts(server.requests[1])[-1] == "and goodbye"
    assert git(repo, "show", f"{row.branch}:app.py") == BOTH


async def test_history_and_mention_completion_in_the_input_line(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    server = scripted_server([*EDIT_TURNS, finish("a"), finish("b")])
    app = CursorishApp(make_setup(server))
    async with app.run_test(size=(100, 34)) as pilot:
        row = await start(pilot, "say hello")
        await wait_for(pilot, lambda: app.panel.rows[row.id].state == "done", what="done")
        chat = app.chat_input
        await wait_for(pilot, lambda: "app.py" in chat.paths, what="paths for completion")
        await pilot.press("i", *"look at @ap", "tab")
        assert chat.text == "look at @app.py "
        await pilot.press("ctrl+j", *"thanks")
        assert chat.text == "look at @app.py \nthanks"  # a multi-line message
        await pilot.press("enter")
        await wait_for(pilot, lambda: "✓ done: a" in screen_text(app), what="first reply")
        await pilot.press(*"second", "enter")
        await wait_for(pilot, lambda: "✓ done: b" in screen_text(app), what="second reply")
        await pilot.press("up")
        assert chat.text == "second"
        await pilot.press("up")
        assert chat.text == "look at @app.py \nthanks"
        await pilot.press("down", "down")
        assert chat.text == ""
    sent = user_texts(server.requests[3])[-1]
    assert sent.startswith("look at @app.py \nthanks")
    assert "# @app.py (its current content in your worktree)" in sent


async def test_plan_first_then_approve_executes_it(
    repo: Path, scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    server = scripted_server([{"content": PLAN}, EDIT_BYE, finish("done as planned")])
    app = CursorishApp(make_setup(server))
    async with app.run_test(size=(100, 34)) as pilot:
        row = await start(pilot, "say hello", plan=True)
        await wait_for(pilot, lambda: "plan ready: a approves it" in screen_text(app))
        assert "1. Change greet() in app.py to say hello." in screen_text(app)
        # Shown once, marked as the plan: the planner's text block is the plan.
        assert screen_text(app).count("2. Leave bye() alone.") == 1
        assert len(app.transcript.query(".plan")) == 1
        assert git(repo, "show", f"{row.branch}:app.py") == APP
        await pilot.press("a")
        await wait_for(pilot, lambda: "done as planned" in screen_text(app), what="executed")
    assert PLAN in user_texts(server.requests[1])[-1]
    tools = {t["function"]["name"] for t in server.requests[1]["tools"]}
    assert "edit_file" in tools
    assert git(repo, "show", f"{row.branch}:app.py") == APP.replace('"bye "', '"goodbye "')


async def test_plan_edited_in_the_input_line_is_approved_as_edited(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    server = scripted_server([{"content": PLAN}, EDIT_BYE, finish("ok")])
    app = CursorishApp(make_setup(server))
    async with app.run_test(size=(100, 34)) as pilot:
        await start(pilot, "say hello", plan=True)
        await wait_for(pilot, lambda: "plan ready" in screen_text(app))
        await pilot.press("e")
        chat = app.chat_input
        assert chat.text == PLAN and app.focused is chat
        assert "Plan of" in str(chat.border_title)
        chat.load_text("1. Only rename greet().")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "✓ done: ok" in screen_text(app), what="executed")
        assert chat.border_title == "Message"
    assert "Plan:\n1. Only rename greet()." in user_texts(server.requests[1])[-1]


async def test_an_approval_whose_run_cannot_start_leaves_the_plan_waiting(
    repo: Path, tmp_path: Path, scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    """The approved run fails before the agent starts (its branch is checked out elsewhere,
    so its worktree cannot be re-attached): the error shows and the plan can be approved
    again once that is fixed."""
    server = scripted_server([{"content": PLAN}, EDIT_BYE, finish("done as planned")])
    app = CursorishApp(make_setup(server))
    async with app.run_test(size=(100, 34)) as pilot:
        row = await start(pilot, "say hello", plan=True)
        await wait_for(pilot, lambda: "plan ready" in screen_text(app))
        git(repo, "worktree", "remove", "--force", row.worktree)
        elsewhere = tmp_path / "elsewhere"
        git(repo, "worktree", "add", "-q", str(elsewhere), row.branch)
        await pilot.press("a")
        await wait_for(
            pilot,
            lambda: any("is checked out in" in n.message for n in app._notifications),
            what="the error",
        )
        stored = app.setup.store.agent(row.id)
        assert stored is not None and stored["plan_mode"] == 1  # still waiting for approval
        git(repo, "worktree", "remove", "--force", str(elsewhere))
        await pilot.press("a")
        await wait_for(pilot, lambda: "done as planned" in screen_text(app), what="executed")


async def test_attention_marks_bell_and_desktop_notification(
    scripted_server: ServerFactory,
    make_setup: SetupFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = scripted_server(
        {"first": [finish("one")], "second": [{**finish("two"), "delay_s": 1.0}, finish("3")]}
    )
    app = CursorishApp(make_setup(server))
    async with app.run_test(size=(100, 34)) as pilot:
        first = await start(pilot, "first")
        await wait_for(pilot, lambda: app.panel.rows[first.id].ended, what="first ended")
        assert first.id not in app.needs  # it was on screen
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewAgentScreen), what="dialog")
        await pilot.press(*"second", "enter")
        await wait_for(pilot, lambda: len(app.panel.rows) == 2, what="second row")
        second = next(r for r in app.panel.rows.values() if r.id != first.id)
        app.panel.select(first.id)  # the user looks elsewhere while the second one works
        await wait_for(pilot, lambda: second.id in app.needs, what="attention")
        assert "1 needs you" in app.sub_title
        # The mark on the agent's row.
        await wait_for(pilot, lambda: "● gave up" in widget_text(app, app.panel), what="the ●")
        osc = [s for s in app.attention_log if second.id in s]
        assert osc and osc[-1].startswith("\x1b]9;cursorish: agent ") and osc[-1].endswith("\a")
        assert "\x1b]777;notify;cursorish;" in osc[-1]
        app.panel.select(second.id)
        await wait_for(pilot, lambda: not app.needs, what="mark cleared")
        assert "needs you" not in app.sub_title
        await wait_for(pilot, lambda: "●" not in widget_text(app, app.panel), what="no ●")
        monkeypatch.setenv("CURSORISH_ATTENTION", "off")
        before = len(app.attention_log)
        await send(pilot, "again")
        await wait_for(pilot, lambda: app.panel.rows[second.id].state != "done", what="restart")
        await wait_for(pilot, lambda: app.panel.rows[second.id].ended, what="ended again")
        assert len(app.attention_log) == before  # off: nothing written


# -- snapshots --------------------------------------------------------------------------------


def seeded(make_setup: SetupFactory) -> CursorishApp:
    setup = make_setup(planner="openai/never-called")
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
            {"role": "user", "content": "Task: say hello instead of hi"},
            {**tool_call_message("c1", "read_file", path="app.py"), "content": "Reading."},
            {"role": "tool", "tool_call_id": "c1", "content": "app.py (lines 1-2 of 2)"},
            {"role": "user", "content": "also say goodbye in bye()"},
        ],
    )
    return CursorishApp(setup, store_poll_s=0)


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
def test_transcript_with_input_line_snapshot(
    snap_compare: Any, make_setup: SetupFactory, size: tuple[int, int]
) -> None:
    async def typing(pilot: Any) -> None:
        await pilot.pause(0.2)
        await pilot.press("i", *"and update the README")
        await pilot.pause(0.1)

    assert snap_compare(seeded(make_setup), terminal_size=size, run_before=typing)


async def test_keys_typed_right_after_i_land_in_the_input_line(
    scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    """Typeahead: `i` and the message arrive in one burst (a fast typist, a busy machine); the
    keys after `i` go to the input line, not to the agents table (where `n` opens a dialog)."""
    from textual import events

    server = scripted_server([*EDIT_TURNS])
    app = CursorishApp(make_setup(server))
    async with app.run_test(size=(100, 34)) as pilot:
        await start(pilot, "say hi in it")  # `i` typed in the dialog is text, not the binding
        await wait_for(pilot, lambda: "say hi in it" in screen_text(app), what="the task")
        assert app._driver is not None
        for key in "inow":  # as the terminal driver delivers them, without waiting in between
            event = events.Key(key, key)
            event.set_sender(app)
            app._driver.send_message(event)
        await pilot.pause()
        assert not isinstance(app.screen, NewAgentScreen)
        assert app.chat_input.text == "now"
