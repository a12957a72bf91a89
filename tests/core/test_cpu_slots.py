"""The limit on agents' short CPU-bound work: the counting itself, and which tools hold it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.core import cpu_slots
from cursorish.core.cpu_slots import CpuSlots, usable_cores
from cursorish.replay.scripted_server import ScriptedServer
from tests.core.agent_helpers import (
    Recorder,
    call,
    finish,
    run_tasks,
    settings_for,
    wait_until,
)


def test_no_more_jobs_than_slots_run_at_once() -> None:
    slots = CpuSlots(2)
    lock = threading.Lock()
    running, most = 0, 0

    @slots.run
    def job() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)
        with lock:
            running -= 1

    threads = [threading.Thread(target=job) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == 2


def test_a_job_holding_a_slot_may_call_another_slotted_job() -> None:
    slots = CpuSlots(1)
    inner = slots.run(lambda: "inner")
    outer = slots.run(inner)  # holds a slot, then calls inner, which wants one too
    done: list[str] = []
    thread = threading.Thread(target=lambda: done.append(outer()), daemon=True)
    thread.start()
    thread.join(5)
    assert done == ["inner"]
    # ...and the slot is free again afterwards.
    assert slots.run(lambda: "again")() == "again"


def test_slots_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        CpuSlots(0)


def test_usable_cores_is_at_least_one() -> None:
    assert usable_cores() >= 1


MakeRepo = Callable[..., Path]


def test_a_read_waits_for_a_tool_slot_but_a_command_and_the_checkout_do_not(
    tmp_path: Path, make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path, {"app.py": "x = 1\n"})
    only = CpuSlots(1)
    monkeypatch.setattr(cpu_slots, "TOOL_SLOTS", only)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with only.held():
            holding.set()
            release.wait(20)

    def seen(kind: str, tool: str) -> bool:
        return any(e.kind == kind and e.data.get("tool") == tool for e in list(sink.events))

    observed: dict[str, bool] = {}

    def watch() -> None:
        # The read has started (so the checkout and the command went on without a slot);
        # give it time to finish, which it must not while the only slot is held.
        observed["read started"] = wait_until(lambda: seen("tool_call", "read_file"), 15)
        time.sleep(0.3)
        observed["read stalled"] = not seen("tool_result", "read_file")
        release.set()

    threading.Thread(target=hold, daemon=True).start()
    assert holding.wait(5)
    script = [
        call("run_command", command="echo ran"),
        call("read_file", path="app.py"),
        call("create_file", path="new.txt", content="y\n"),
        finish(),
    ]
    sink = Recorder()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with ScriptedServer(script) as server:
        (report,), store = run_tasks(root, ["t"], settings_for(server, allow=("echo",)), sink)
    watcher.join(20)
    assert report.status == "done", report.error
    assert observed == {"read started": True, "read stalled": True}
    command, read, create, _finish = store.tool_calls(report.agent_id)
    assert command["ok"] and "ran" in command["result"]
    assert read["ok"] and "x = 1" in read["result"]
    assert create["ok"]
