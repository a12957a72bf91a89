"""The engine bridge on its own: batching, live state and sequence numbers, the ask round trip
(a tool thread waits for the dialog's answer), and what cancel and quit do to a waiting ask."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from textual.message import Message

from cursorish.core import events as ev
from cursorish.core.events import Event
from cursorish.tui.app import CursorishApp
from cursorish.tui.bridge import EngineBridge, EngineEvents, EngineSetup
from cursorish.tui.dialogs import AskScreen
from tests.tui.conftest import screen_text, wait_for

pytestmark = pytest.mark.anyio

SetupFactory = Callable[..., EngineSetup]


def text(agent: str, piece: str) -> Event:
    return ev.PlannerText(agent, piece)


def _reply(agent: str) -> Event:
    return ev.PlannerReply(agent, 1, "", [], 0, 0, 0.0)


async def test_a_flood_of_events_reaches_the_app_in_few_messages(
    make_setup: SetupFactory,
) -> None:
    batches: list[EngineEvents] = []

    def hook(message: Message) -> None:
        if isinstance(message, EngineEvents):
            batches.append(message)

    app = CursorishApp(make_setup(planner="openai/never-called"))
    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:

        def stream(agent: str) -> None:
            for i in range(250):
                app.bridge.sink(text(agent, f"{agent}{i} "))

        threads = [threading.Thread(target=stream, args=(f"a{n}",)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        await wait_for(pilot, lambda: sum(len(b.events) for b in batches) == 2000, what="all")
    seqs = [seq for batch in batches for seq, _ in batch.events]
    assert seqs == sorted(seqs) and len(set(seqs)) == 2000
    assert len(batches) <= 5  # 2,000 events from 8 threads: a handful of messages
    for n in range(8):  # each agent's pieces arrive in order
        mine = [e.data["text"] for b in batches for _, e in b.events if e.agent_id == f"a{n}"]
        assert mine == [f"a{n}{i} " for i in range(250)]


async def test_snapshot_holds_what_the_store_does_not_yet(make_setup: SetupFactory) -> None:
    app = CursorishApp(make_setup(planner="openai/never-called"))
    async with app.run_test(size=(80, 24)):
        bridge = app.bridge
        for piece in ("Let me ", "look."):
            bridge.sink(text("a1", piece))
        bridge.sink(ev.Applying("a1", path="app.py"))
        bridge.sink(ev.ApplyProgress("a1", path="app.py", text="def f():\n", chars=9))
        bridge.sink(ev.Asking("a1", command="make test"))
        seq, live = bridge.snapshot("a1")
        assert seq == 5
        assert (live.text, live.apply_path, live.apply_text, live.asking) == (
            "Let me look.",
            "app.py",
            "def f():\n",
            "make test",
        )
        bridge.sink(ev.ApplyDone("a1", path="app.py", outcome="merged", engine="", ms=0))
        bridge.sink(ev.Answered("a1", command="make test", allowed=True, network=False))
        bridge.sink(_reply("a1"))
        seq, live = bridge.snapshot("a1")
        assert seq == 8 and live.text == live.apply_path == live.asking == ""
        assert bridge.snapshot("other")[1].text == ""


def ask_in_thread(
    bridge: EngineBridge, agent: str, command: str
) -> tuple[threading.Thread, list[Any]]:
    answers: list[Any] = []
    thread = threading.Thread(target=lambda: answers.append(bridge.ask(agent, command)))
    thread.start()
    return thread, answers


async def test_ask_waits_for_the_dialog_and_remembers_allow_always(
    make_setup: SetupFactory,
) -> None:
    app = CursorishApp(make_setup(planner="openai/never-called"))
    async with app.run_test(size=(80, 24)) as pilot:
        thread, answers = ask_in_thread(app.bridge, "a1", "make check")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="dialog")
        # The screen is pushed before it is drawn: wait for its text, do not read it once.
        await wait_for(
            pilot,
            lambda: (
                "Agent a1 asks to run a command" in screen_text(app)
                and "make check" in screen_text(app)
            ),
            what="the dialog's text",
        )
        assert answers == []  # the tool thread is still waiting
        await pilot.press("a")
        await asyncio.to_thread(thread.join, 30)
        assert answers == [True] and not isinstance(app.screen, AskScreen)
        assert app.bridge.ask("a2", "make check") is True  # remembered: no dialog
        thread, answers = ask_in_thread(app.bridge, "a1", "rm -rf build")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="dialog")
        await pilot.press("escape")
        await asyncio.to_thread(thread.join, 30)
        assert answers == [False]


async def test_asks_of_several_agents_are_answered_one_by_one(
    make_setup: SetupFactory,
) -> None:
    app = CursorishApp(make_setup(planner="openai/never-called"))
    async with app.run_test(size=(80, 24)) as pilot:
        first, first_answer = ask_in_thread(app.bridge, "a1", "make one")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="first dialog")
        second, second_answer = ask_in_thread(app.bridge, "a2", "make two")
        await pilot.pause(0.2)
        assert isinstance(app.screen, AskScreen) and app.screen.command == "make one"
        await pilot.press("o")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, AskScreen) and app.screen.command == "make two",
            what="second dialog",
        )
        await pilot.press("d")
        await asyncio.to_thread(first.join, 30)
        await asyncio.to_thread(second.join, 30)
        assert first_answer == [True] and second_answer == [False]
        assert len(app.screen_stack) == 1


async def test_quitting_answers_a_waiting_ask_with_deny(make_setup: SetupFactory) -> None:
    app = CursorishApp(make_setup(planner="openai/never-called"))
    async with app.run_test(size=(80, 24)) as pilot:
        thread, answers = ask_in_thread(app.bridge, "a1", "make check")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="dialog")
        await app.bridge.shutdown(timeout_s=1)
        await asyncio.to_thread(thread.join, 30)
        assert answers == [False]
        await wait_for(pilot, lambda: not isinstance(app.screen, AskScreen), what="closed")
        assert app.bridge.ask("a1", "make check") is False  # closed: nobody asks any more


async def test_without_anyone_to_answer_asks_are_denied(make_setup: SetupFactory) -> None:
    app = CursorishApp(make_setup(planner="openai/never-called"))
    async with app.run_test(size=(80, 24)):
        bridge = EngineBridge(app.setup, app, answers_asks=False)
        assert await asyncio.to_thread(bridge.ask, "a1", "make check") is False


async def test_starting_without_a_planner_raises_a_clear_error(make_setup: SetupFactory) -> None:
    from cursorish.errors import CursorishError, ExitCode

    app = CursorishApp(make_setup())
    async with app.run_test(size=(80, 24)):
        with pytest.raises(CursorishError) as caught:
            app.bridge.start_agents("say hello")
        assert caught.value.exit_code == ExitCode.CONFIG
        with pytest.raises(CursorishError, match="empty"):
            app.bridge.start_agents("  ")
        with pytest.raises(CursorishError, match="1 to 8"):
            app.bridge.start_agents("x", count=9)
