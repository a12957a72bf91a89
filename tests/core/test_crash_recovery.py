"""A real `cursorish` process killed with SIGKILL mid-run, interrupted by SIGINT, or cancelled
from another process; then `cursorish agents`, `resume` and `gc` on what it left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cursorish.cli import main
from cursorish.gitops.repo import open_repo
from cursorish.replay.scripted_server import ScriptedServer
from cursorish.store.db import Store
from cursorish.store.paths import worktrees_dir
from tests.conftest import git
from tests.core.agent_helpers import call, finish, wait_until

MakeRepo = Callable[..., Path]
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def _start(root: Path, server: ScriptedServer, task: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    argv = [sys.executable, "-m", "cursorish", "--task", task, "--repo", str(root)]
    argv += ["--planner", "scripted", "--api-base", server.base_url, "--quiet"]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_agent(
    root: Path, proc: subprocess.Popen[bytes], ready: Callable[[Store, Any], bool]
) -> str:
    store = Store.for_repo(open_repo(root).git_common_dir)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            row = store.last_agent()
            if row is not None and ready(store, row):
                return str(row["id"])
            if proc.poll() is not None:
                _out, err = proc.communicate()
                raise AssertionError(f"cursorish exited early ({proc.returncode}): {err!r}")
            time.sleep(0.05)
        raise AssertionError("the agent never got there")
    finally:
        store.close()


def _planning_after_edit(store: Store, row: Any) -> bool:
    made = any(t["name"] == "create_file" for t in store.tool_calls(row["id"]))
    return made and row["state"] == "planning"


def _agents_json(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["agents", "--repo", str(root), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    return {row["id"]: row for row in rows}


def test_kill_9_then_agents_shows_interrupted_and_resume_finishes(
    tmp_path: Path, make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, {"app.py": "X = 1\n"})
    head = git(root, "rev-parse", "HEAD").strip()
    first = [call("create_file", path="a.txt", content="before the crash\n")]
    with ScriptedServer([*first, {**finish(), "delay_s": 60}]) as slow:
        proc = _start(root, slow, "crash me")
        try:
            agent_id = _wait_agent(root, proc, _planning_after_edit)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
    assert proc.returncode == -signal.SIGKILL

    rows = _agents_json(root, capsys)
    row = rows[agent_id]
    assert row["state"] == "interrupted"
    worktree = Path(row["worktree"])
    assert worktree.is_dir() and (worktree / "a.txt").read_text() == "before the crash\n"
    # The edit was checkpointed on the branch before the kill.
    assert git(root, "show", f"cursorish/{agent_id}:a.txt") == "before the crash\n"

    # gc keeps an interrupted agent's worktree and branch.
    capsys.readouterr()
    assert main(["gc", "--repo", str(root)]) == 0
    assert worktree.is_dir()

    second = [call("create_file", path="b.txt", content="after the resume\n"), finish("both")]
    with ScriptedServer([*first, *second]) as fast:
        code = main(
            ["agents", "resume", agent_id, "--repo", str(root), "--api-base", fast.base_url]
        )
        resumed_request = fast.requests[0]
    assert code == 0
    # The transcript was replayed: the first edit and its result are in the resumed request.
    roles = [m["role"] for m in resumed_request["messages"]]
    assert roles == ["system", "user", "assistant", "tool"]
    assert _agents_json(root, capsys)[agent_id]["state"] == "done"
    branch = f"cursorish/{agent_id}"
    assert git(root, "show", f"{branch}:a.txt") == "before the crash\n"
    assert git(root, "show", f"{branch}:b.txt") == "after the resume\n"
    assert git(root, "rev-list", "--count", f"{head}..{branch}").strip() == "1"
    assert git(root, "rev-parse", "HEAD").strip() == head


def test_sigint_cancels_commits_and_exits_130(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"app.py": "X = 1\n"})
    script = [call("create_file", path="a.txt", content="kept\n"), {**finish(), "delay_s": 60}]
    with ScriptedServer(script) as server:
        proc = _start(root, server, "interrupt me")
        agent_id = _wait_agent(root, proc, _planning_after_edit)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        finally:
            proc.kill()
    assert proc.returncode == 130
    with Store.for_repo(open_repo(root).git_common_dir) as store:
        row = store.agent(agent_id)
    assert row is not None and row["state"] == "cancelled"
    assert git(root, "show", f"cursorish/{agent_id}:a.txt") == "kept\n"
    assert "Cursorish-Status: cancelled" in git(
        root, "log", "-1", "--format=%B", f"cursorish/{agent_id}"
    )


def test_agents_cancel_from_another_process(
    tmp_path: Path, make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, {"app.py": "X = 1\n"})
    with ScriptedServer([{**finish(), "delay_s": 60}]) as server:
        proc = _start(root, server, "cancel me")
        agent_id = _wait_agent(root, proc, lambda _s, row: row["state"] == "planning")
        assert main(["agents", "cancel", agent_id, "--repo", str(root)]) == 0
        assert "cancel requested" in capsys.readouterr().out
        try:
            # The planner's answer would take 60 s: ending well within that is the cancel (the
            # margin is wide for a loaded machine; a wait that runs out fails the test).
            proc.wait(40)
        finally:
            proc.kill()
    assert _agents_json(root, capsys)[agent_id]["state"] == "cancelled"


def test_gc_after_a_crash_during_worktree_creation(
    tmp_path: Path, make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, {"app.py": "X = 1\n"})
    repo = open_repo(root)
    parent = worktrees_dir(repo.git_common_dir)
    half = parent / "abc123"  # a directory git never registered
    (half / "pkg").mkdir(parents=True)
    (half / "pkg" / "f.py").write_text("x\n")
    capsys.readouterr()
    assert main(["gc", "--repo", str(root), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"would remove {half}" in out and half.exists()
    assert main(["gc", "--repo", str(root)]) == 0
    assert f"removed {half}" in capsys.readouterr().out
    assert not half.exists()
    assert main(["gc", "--repo", str(root)]) == 0
    assert capsys.readouterr().out.strip() == "nothing to remove"


def _processes_running(marker: str) -> list[int]:
    """Pids whose command line contains `marker` (a unique sleep duration)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z" and "pytest" not in cmdline:
            found.append(int(entry.name))
    return found


def _start_with(root: Path, server: ScriptedServer, *extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    argv = [sys.executable, "-m", "cursorish", "--task", "wait", "--repo", str(root)]
    argv += ["--planner", "scripted", "--api-base", server.base_url, "--quiet", *extra]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "cancel"])
def test_sigterm_sigint_and_cancel_stop_an_agent_inside_a_long_command(
    tmp_path: Path, make_repo: MakeRepo, how: str
) -> None:
    root = make_repo(tmp_path, {"app.py": "X = 1\n"})
    marker = f"{47 + len(how)}.{os.getpid() % 1000:03d}"  # a sleep no one else runs
    script = [call("run_command", command=f"sleep {marker}", timeout_s=600), finish()]
    with ScriptedServer(script) as server:
        proc = _start_with(root, server, "--commands", "allow")
        try:
            agent_id = _wait_agent(root, proc, lambda _s, row: row["state"] == "running_command")
            assert wait_until(lambda: bool(_processes_running(f"sleep {marker}")), 20)
            started = time.monotonic()
            if how == "cancel":  # `cursorish agents cancel` from another terminal
                assert main(["agents", "cancel", agent_id, "--repo", str(root)]) == 0
            else:
                proc.send_signal(getattr(signal, how))
            proc.wait(40)
        finally:
            proc.kill()
    assert proc.returncode == 130, proc.stderr.read() if proc.stderr else b""
    assert time.monotonic() - started < 30  # not the command's own 600 s, nor sleep's 47
    assert wait_until(lambda: not _processes_running(f"sleep {marker}"), 10)
