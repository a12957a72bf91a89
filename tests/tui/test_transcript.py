"""The transcript view: history from the store, live events on top (streamed text, tool calls,
the apply step with the model route's output as it is decoded), and no text shown twice when
the user switches agents in the middle of a stream."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cursorish.core import events as ev
from cursorish.core.lifecycle import owner_token
from cursorish.tui.app import CursorishApp
from cursorish.tui.bridge import EngineSetup
from cursorish.tui.transcript import MAX_SHOWN, EarlierBlocks, ToolBlock
from tests.tui.conftest import (
    screen_text,
    seed_agent,
    tool_call_message,
    wait_for,
    widget_text,
)

pytestmark = pytest.mark.anyio

SetupFactory = Callable[..., EngineSetup]


def running_agent(setup: EngineSetup, agent_id: str, task: str) -> None:
    """An agent this process 'runs' (so it is not seen as interrupted)."""
    seed_agent(
        setup,
        agent_id,
        task,
        state="planning",
        messages=[
            {"role": "system", "content": "You are an agent."},
            {"role": "user", "content": f"Task: {task}\n\nRepository files (2):\napp.py"},
        ],
    )
    pid, start = owner_token()
    setup.store.update_agent(agent_id, pid=pid, owner_start=start)


def shown(app: CursorishApp) -> str:
    return widget_text(app, app.transcript)


def count(app: CursorishApp, needle: str) -> int:
    """How often the transcript shows `needle`."""
    return shown(app).count(needle)


async def test_history_from_the_store_folds_tool_calls(make_setup: SetupFactory) -> None:
    setup = make_setup(planner="openai/never-called")
    seed_agent(
        setup,
        "aaaa01",
        "rename greet",
        summary="renamed greet",
        messages=[
            {"role": "system", "content": "You are an agent."},
            {"role": "user", "content": "Task: rename greet\n\nRepository files (1):\napp.py"},
            {"role": "assistant", "content": "I will read it.", "tool_calls": []},
            tool_call_message("c1", "read_file", path="app.py"),
            {"role": "tool", "tool_call_id": "c1", "content": "app.py (lines 1-2 of 2)\nx = 1"},
            tool_call_message("c2", "grep", pattern="greet("),
            {"role": "tool", "tool_call_id": "c2", "content": "error: nothing"},
        ],
        tool_rows=[
            {
                "step": 1,
                "call_id": "c1",
                "name": "read_file",
                "arguments": "{}",
                "result": "",
                "ok": True,
                "elapsed_ms": 3.0,
            },
            {
                "step": 2,
                "call_id": "c2",
                "name": "grep",
                "arguments": "{}",
                "result": "",
                "ok": False,
                "elapsed_ms": 12.0,
            },
        ],
    )
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "✓ done: renamed greet" in screen_text(app), what="shown")
        text = screen_text(app)
        assert "Task: rename greet" in text and "Repository files" not in text
        assert "I will read it." in text
        assert "✓ read_file app.py · 3 ms" in text and "✗ grep greet( · 12 ms" in text
        assert "✓ done: renamed greet" in text
        assert "x = 1" not in text  # folded
        blocks = list(app.transcript.query(ToolBlock))
        assert [b.tool for b in blocks] == ["read_file", "grep"] and blocks[1].has_class("failed")
        blocks[0].collapsed = False
        await wait_for(pilot, lambda: "x = 1" in screen_text(app), what="unfolded")
        assert "path: app.py" in screen_text(app)


async def test_planner_text_streams_into_one_block(make_setup: SetupFactory) -> None:
    setup = make_setup(planner="openai/never-called")
    running_agent(setup, "bbbb01", "stream")
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30)) as pilot:
        for piece in ("Looking ", "at the ", "code now."):
            app.bridge.sink(ev.PlannerText("bbbb01", piece))
        await wait_for(pilot, lambda: "Looking at the code now." in shown(app), what="text")
        assert len(app.transcript.query(".streaming")) == 1
        app.bridge.sink(ev.PlannerReply("bbbb01", 1, "x", [], 0, 0, 0.0))
        await wait_for(pilot, lambda: not app.transcript.query(".streaming"), what="reply")
        assert count(app, "Looking at the code now.") == 1
        assert "planning" in screen_text(app)


async def test_switching_agents_mid_stream_shows_the_text_once(make_setup: SetupFactory) -> None:
    setup = make_setup(planner="openai/never-called")
    running_agent(setup, "cccc01", "first")
    running_agent(setup, "cccc02", "second")
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30)) as pilot:
        app.panel.select("cccc01")
        await wait_for(pilot, lambda: app.transcript.agent_id == "cccc01", what="first")
        app.bridge.sink(ev.PlannerText("cccc01", "alpha "))
        app.panel.select("cccc02")  # before the batch with "alpha" is delivered
        await wait_for(pilot, lambda: app.transcript.agent_id == "cccc02", what="second")
        app.bridge.sink(ev.PlannerText("cccc01", "beta "))
        app.panel.select("cccc01")
        app.bridge.sink(ev.PlannerText("cccc01", "gamma"))
        await wait_for(pilot, lambda: "alpha beta gamma" in shown(app), what="all text")
        await pilot.pause(0.2)
        assert count(app, "alpha") == 1


async def test_the_apply_step_shows_while_it_runs(make_setup: SetupFactory) -> None:
    setup = make_setup(planner="openai/never-called")
    running_agent(setup, "dddd01", "apply")
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30)) as pilot:
        sink = app.bridge.sink
        sink(
            ev.ToolCalled(
                "dddd01",
                tool="edit_file",
                call_id="e1",
                arguments='{"path": "app.py", "sketch": "x"}',
                target="app.py",
            )
        )
        sink(ev.Applying("dddd01", path="app.py"))
        # Both lines come from one batch of events, but a frame may show one before the other.
        await wait_for(
            pilot,
            lambda: (
                "applying app.py…" in (text := screen_text(app)) and "⋯ edit_file app.py" in text
            ),
            what="apply step and its tool call",
        )
        assert "applying app.py" in app.panel.rows["dddd01"].activity
        sink(
            ev.ApplyProgress("dddd01", path="app.py", text="def greet(name):\n    return", chars=27)
        )
        sink(ev.ApplyProgress("dddd01", path="app.py", text=' "hello " + name\n', chars=45))
        await wait_for(
            pilot,
            lambda: (
                "45 characters so far" in (text := shown(app)) and 'return "hello " + name' in text
            ),
            what="progress and the decoded text",
        )
        assert "model: 45 chars" in app.panel.rows["dddd01"].activity
        sink(ev.ApplyDone("dddd01", path="app.py", outcome="merged", engine="", ms=0))
        sink(
            ev.ToolReturned(
                "dddd01",
                tool="edit_file",
                call_id="e1",
                ok=True,
                result="applied to app.py (+1 -1)",
                ms=40,
            )
        )
        await wait_for(
            pilot,
            lambda: (
                "✓ edit_file app.py · 40 ms" in (text := shown(app)) and "model route" not in text
            ),
            what="the result, and the apply step gone",
        )


async def test_a_rebuilt_view_shows_an_apply_in_progress(make_setup: SetupFactory) -> None:
    setup = make_setup(planner="openai/never-called")
    running_agent(setup, "eeee01", "one")
    running_agent(setup, "eeee02", "two")
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30)) as pilot:
        app.panel.select("eeee02")
        await wait_for(pilot, lambda: app.transcript.agent_id == "eeee02", what="second")
        app.bridge.sink(ev.Applying("eeee01", path="lib.py"))
        app.bridge.sink(ev.ApplyProgress("eeee01", path="lib.py", text="import os\n", chars=0))
        await pilot.pause(0.2)
        app.panel.select("eeee01")
        await wait_for(pilot, lambda: "applying lib.py" in shown(app), what="apply")
        assert count(app, "import os") == 1


async def test_a_long_history_shows_its_latest_part_first(make_setup: SetupFactory) -> None:
    setup = make_setup(planner="openai/never-called")
    messages = [{"role": "user", "content": "Task: long"}]
    for i in range(50):
        messages.append(tool_call_message(f"c{i}", "read_file", path=f"f{i}.py"))
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"file {i}"})
    seed_agent(setup, "ffff01", "long", summary="read fifty files", messages=messages)
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.1)
        await wait_for(pilot, lambda: "✓ done: read fifty files" in shown(app), what="the end")
        blocks = list(app.transcript.query(ToolBlock))
        assert len(blocks) == MAX_SHOWN and blocks[-1].target == "f49.py"
        (earlier,) = app.transcript.query(EarlierBlocks)
        assert len(earlier.blocks) == 51 - MAX_SHOWN  # the task and the older tool calls
        app.transcript.scroll_home(animate=False)
        await pilot.pause(0.1)
        assert "earlier entries" in shown(app)
        await pilot.click(earlier)
        await pilot.pause(0.1)
        assert len(app.transcript.query(ToolBlock)) == 50 and not app.transcript.query(
            EarlierBlocks
        )
        assert "Task: long" in shown(app)
        # Live results still reach an older block.
        app.transcript.tools["c3"].set_result("again", ok=False, ms=5)
        assert app.transcript.tools["c3"].label_text() == "✗ read_file f3.py · 5 ms"


async def test_tool_blocks_unfold_with_the_keyboard(make_setup: SetupFactory) -> None:
    setup = make_setup(planner="openai/never-called")
    seed_agent(
        setup,
        "ffff02",
        "one call",
        messages=[
            {"role": "user", "content": "Task: one call"},
            tool_call_message("k1", "grep", pattern="TODO"),
            {"role": "tool", "tool_call_id": "k1", "content": "a.py:3: # TODO tidy"},
        ],
    )
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("tab")  # from the agents table to the transcript
        await pilot.press("tab")  # to the tool call
        (block,) = app.transcript.query(ToolBlock)
        assert app.focused is block and block.collapsed
        await pilot.press("enter")
        assert not block.collapsed
        await pilot.pause(0.05)
        assert "a.py:3: # TODO tidy" in shown(app) and "pattern: TODO" in shown(app)
        await pilot.press("space")
        await pilot.pause(0.05)
        assert block.collapsed and "TODO tidy" not in shown(app)


async def test_agents_of_other_processes_show_up_from_the_store(make_setup: SetupFactory) -> None:
    setup = make_setup(planner="openai/never-called")
    app = CursorishApp(setup, store_poll_s=0.1)
    async with app.run_test(size=(100, 30)) as pilot:
        assert not app.panel.rows
        running_agent(setup, "9a9a9a", "from another terminal")  # `cursorish --task` elsewhere
        await wait_for(pilot, lambda: "9a9a9a" in app.panel.rows, what="the new agent")
        assert app.panel.rows["9a9a9a"].state == "planning"
        setup.store.add_usage("9a9a9a", 1000, 200, 0.01)
        setup.store.update_agent("9a9a9a", state="done", summary="did it elsewhere")
        await wait_for(pilot, lambda: app.panel.rows["9a9a9a"].state == "done", what="done")
        row = app.panel.rows["9a9a9a"]
        assert row.tokens == 1200 and row.activity == "did it elsewhere"
        setup.store.update_agent("9a9a9a", discarded_at="2026-01-01T00:00:00+00:00")
        await wait_for(pilot, lambda: not app.panel.rows, what="discarded elsewhere")


async def test_clicking_an_agent_row_shows_its_transcript(make_setup: SetupFactory) -> None:
    setup = make_setup(planner="openai/never-called")
    for agent_id, task in (("c1c1c1", "the older task"), ("c2c2c2", "the newer task")):
        seed_agent(setup, agent_id, task, messages=[{"role": "user", "content": f"Task: {task}"}])
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "Task: the newer task" in shown(app), what="newest first")
        await pilot.click(app.panel.table, offset=(20, 2))  # the second row (under the header)
        await wait_for(pilot, lambda: "Task: the older task" in shown(app), what="clicked row")
        assert app.transcript.agent_id == "c1c1c1" and app.panel.selected is not None
        assert app.panel.selected.id == "c1c1c1"


async def test_brackets_in_tasks_commands_and_errors_are_shown_as_typed(
    make_setup: SetupFactory,
) -> None:
    setup = make_setup(planner="openai/never-called")
    task = "handle [/] and [bold]x[/bold] in names"
    running_agent(setup, "b1b1b1", task)
    app = CursorishApp(setup)
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        app.bridge.sink(ev.RunningCommand("b1b1b1", "[ -f x ] && echo [/done]"))
        app.bridge.sink(ev.Notice(None, "odd [/] notice [red]"))
        await wait_for(
            pilot, lambda: "$ [ -f x ] && echo [/done]" in screen_text(app), what="activity"
        )
        text = screen_text(app)
        assert "handle [/] and [bold]x[/bold]" in text  # the task column and the transcript
        await wait_for(
            pilot,
            lambda: any(n.message == "odd [/] notice [red]" for n in app._notifications),
            what="the notice",
        )


async def test_escape_sequences_from_the_planner_and_files_are_shown_escaped(
    make_setup: SetupFactory,
) -> None:
    setup = make_setup(planner="openai/never-called")
    hostile = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\u202eevil"
    escaped = "\\e]52;c;cHduZWQ=\\x07\\e[2J\\x9b31m\\u202eevil"
    running_agent(setup, "e5c001", f"task {hostile}")
    app = CursorishApp(setup)
    async with app.run_test(size=(160, 40)) as pilot:
        app.bridge.sink(ev.PlannerText("e5c001", f"thinking {hostile}"))
        await wait_for(pilot, lambda: f"thinking {escaped}" in shown(app), what="streamed text")
        app.bridge.sink(ev.PlannerReply("e5c001", 1, "x", [], 0, 0, 0.0))
        block = ToolBlock("c9", "read_file", {"path": f"notes{hostile}.txt"})
        block.set_result(f"notes.txt (lines 1-1 of 1)\ntitle {hostile}", ok=True)
        block.collapsed = False
        await app.transcript.mount(block)
        await pilot.pause(0.1)
        text = shown(app) + screen_text(app)
        assert f"title {escaped}" in text and f"task {escaped}"[:30] in text
        assert not any(c in text for c in "\x1b\x07\x9b\u202e")


async def test_a_plan_that_arrives_after_a_rebuilt_view_is_shown_once(
    make_setup: SetupFactory,
) -> None:
    # The view was built from the store after the planner's reply was saved and before the
    # plan event came: the stored reply is the plan's block, marked, not shown twice.
    setup = make_setup(planner="openai/never-called")
    plan = "1. Change greet().\n2. Leave bye() alone."
    seed_agent(
        setup,
        "dddd01",
        "plan it",
        state="planning",
        messages=[
            {"role": "system", "content": "You are an agent."},
            {"role": "user", "content": "Task: plan it\n\nRepository files (1):\napp.py"},
            {"role": "assistant", "content": plan},
        ],
    )
    pid, start = owner_token()
    setup.store.update_agent("dddd01", pid=pid, owner_start=start)
    app = CursorishApp(setup)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "Leave bye() alone." in shown(app), what="the stored reply")
        app.bridge.sink(ev.Plan("dddd01", plan))
        await wait_for(pilot, lambda: "plan ready" in shown(app), what="the plan event")
        assert count(app, "Leave bye() alone.") == 1
        assert len(app.transcript.query(".plan")) == 1
