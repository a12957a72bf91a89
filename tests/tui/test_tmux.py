"""The real app in a real terminal: `cursorish` runs in a tmux pane of 120x40, keys are sent
with `tmux send-keys` and the screen is read with `tmux capture-pane`, as a person would.

An agent first runs to the end against the scripted planner (two edits far apart in one
file, so its diff has two hunks); then, in the app, the person opens its review, accepts the
first hunk, commits and quits. git must show the accepted hunk, and only it, on the branch.

Skipped where tmux is not installed (it is not a Python package; `apt-get install tmux`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.binding import Binding, BindingType

from cursorish.cli import main
from cursorish.store.db import Store
from cursorish.tui.app import CursorishApp
from cursorish.tui.review_screen import ReviewScreen
from tests.conftest import ServerFactory, git

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None,
    reason="tmux is not on PATH (apt-get install tmux): this test drives the app in a tmux pane",
)

FILLER = "".join(f"\n\ndef helper_{i}(x):\n    return x + {i}\n" for i in range(8))
APP = (
    'def greet(name):\n    return "hi " + name\n'
    + FILLER
    + '\n\ndef bye(name):\n    return "bye " + name\n'
)
GREET = 'def greet(name):\n    return "hello " + name\n\n\n# ... existing code ...\n'
BYE = '# ... existing code ...\n\n\ndef bye(name):\n    return "goodbye " + name\n'


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


TWO_EDITS = [
    call("edit_file", path="app.py", sketch=GREET),
    call("edit_file", path="app.py", sketch=BYE),
    call("finish", summary="greet and bye changed"),
]


def key_for(bindings: list[BindingType], action: str) -> str:
    """The first key bound to `action` (what the footer shows)."""
    for binding in bindings:
        if isinstance(binding, Binding) and binding.action == action:
            return binding.key.split(",")[0]
    raise AssertionError(f"no key for {action!r}")


class Pane:
    """A tmux server of our own (its own socket, no user configuration) with one session."""

    def __init__(self, socket: Path, env: dict[str, str]) -> None:
        self.tmux = ["tmux", "-S", str(socket), "-f", os.devnull]
        self.env = env

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [*self.tmux, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        assert done.returncode == 0, f"tmux {' '.join(args)}: {done.stderr}"
        return done.stdout

    def start(self, command: str, cwd: Path) -> None:
        self.run("new-session", "-d", "-s", "app", "-x", "120", "-y", "40", "-c", str(cwd), command)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "app")

    def press(self, key: str) -> None:
        self.run("send-keys", "-t", "app", "-l", key)

    def wait_for(self, condition: Callable[[str], bool], what: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if condition(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{text}")
            time.sleep(0.1)

    def kill(self) -> None:
        subprocess.run(
            [*self.tmux, "kill-server"], env=self.env, capture_output=True, timeout=10, check=False
        )


@pytest.fixture
def finished_agent(
    tmp_path: Path,
    make_repo: Callable[..., Path],
    scripted_server: ServerFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[Path, dict[str, Any], str]:
    """(repo, the agent's store row, planner base URL) after `cursorish --task` ran to done."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("CURSORISH_PLANNER_RETRIES", "1")
    for var in ("CURSORISH_PLANNER", "CURSORISH_API_BASE", "CURSORISH_PROFILE", "TMUX"):
        monkeypatch.delenv(var, raising=False)
    repo = make_repo(tmp_path, {"app.py": APP})
    server = scripted_server(TWO_EDITS)
    argv = ["--task", "greet and bye", "--repo", str(repo), "--planner", "openai/scripted"]
    assert main([*argv, "--api-base", server.base_url]) == 0
    common = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    store = Store.for_repo(common)
    try:
        (agent,) = store.agents()
    finally:
        store.close()
    assert agent["state"] == "done"
    return repo, agent, server.base_url


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    made = Pane(tmp_path / "tmux.sock", env)
    try:
        yield made
    finally:
        made.kill()


def cursorish_command() -> list[str]:
    script = Path(sys.executable).with_name("cursorish")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cursorish.cli"]


def test_review_accept_commit_and_quit_in_a_real_terminal(
    finished_agent: tuple[Path, dict[str, Any], str], pane: Pane
) -> None:
    repo, agent, api_base = finished_agent
    branch, agent_id = str(agent["branch"]), str(agent["id"])
    tip = git(repo, "rev-parse", branch).strip()
    assert '"goodbye "' in git(repo, "show", f"{branch}:app.py")  # the agent committed both

    pane.env.update(CURSORISH_PLANNER="openai/scripted", CURSORISH_API_BASE=api_base)
    # Plain `cursorish` in the repository; the pane shows how it exited.
    pane.start(f"{shlex.join(cursorish_command())}; echo cursorish-exited-$?; sleep 60", repo)

    app_bindings = CursorishApp.BINDINGS
    review_bindings = ReviewScreen.BINDINGS

    pane.wait_for(lambda s: "Agents" in s and "done" in s, "the agents panel with the agent")
    # The only agent is highlighted at start; its transcript shows it is the selected one.
    pane.wait_for(lambda s: f"Transcript · {agent_id}" in s, "the agent to be selected")

    pane.press(key_for(app_bindings, "review"))
    pane.wait_for(
        lambda s: f"Review {branch}" in s and "2 pending" in s, "the review with two hunks"
    )
    pane.press(key_for(review_bindings, "accept"))
    pane.wait_for(lambda s: "1 pending · 1 accepted" in s, "the first hunk accepted")
    pane.press(key_for(review_bindings, "commit"))
    pane.wait_for(lambda s: "committed" in s, "the commit")

    pane.press(key_for(review_bindings, "close"))
    pane.wait_for(lambda s: f"Review {branch}" not in s and "Agents" in s, "back to the agents")
    pane.press(key_for(app_bindings, "quit"))
    pane.wait_for(lambda s: "cursorish-exited-0" in s, "the app to quit with status 0")

    # The branch now holds the accepted hunk and not the pending one, in a review commit on
    # top of the agent's work; the pending hunk is still in the agent's worktree.
    committed = git(repo, "show", f"{branch}:app.py")
    assert '"hello "' in committed and '"bye "' in committed and '"goodbye "' not in committed
    assert git(repo, "rev-parse", f"{branch}^").strip() == tip
    assert "Cursorish-Review: 1 accepted, 0 rejected" in git(
        repo, "log", "-1", "--format=%B", branch
    )
    worktree = Path(str(agent["worktree"]))
    assert '"goodbye "' in (worktree / "app.py").read_text(encoding="utf-8")
    # The user's checkout was not touched.
    assert (repo / "app.py").read_text(encoding="utf-8") == APP
