"""A two-message conversation with one agent in the real app, in a real terminal (tmux): start
an agent from the new-agent dialog, wait for it to finish, type a follow-up in the input line
under its transcript and send it; the same agent continues on the same branch. git checks the
branch: both changes, one commit per message."""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.store.db import Store
from tests.conftest import ServerFactory, git
from tests.tui.test_tmux import APP, BYE, GREET, Pane, call, cursorish_command, pane  # noqa: F401

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None,
    reason="tmux is not on PATH (apt-get install tmux): this test drives the app in a tmux pane",
)

CONVERSATION = [
    call("edit_file", path="app.py", sketch=GREET),
    call("finish", summary="greet changed"),
    call("edit_file", path="app.py", sketch=BYE),
    call("finish", summary="bye changed too"),
]


def test_two_message_conversation_in_a_real_terminal(
    tmp_path: Path,
    make_repo: Callable[..., Path],
    scripted_server: ServerFactory,
    monkeypatch: pytest.MonkeyPatch,
    pane: Pane,  # noqa: F811
) -> None:
    repo = make_repo(tmp_path, {"app.py": APP})
    base = git(repo, "rev-parse", "HEAD").strip()
    server = scripted_server(CONVERSATION)
    for var in ("CURSORISH_PROFILE", "TMUX"):
        pane.env.pop(var, None)
    pane.env.update(
        CURSORISH_PLANNER="openai/scripted",
        CURSORISH_API_BASE=server.base_url,
        CURSORISH_PLANNER_RETRIES="1",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    pane.start(f"{shlex.join(cursorish_command())}; echo cursorish-exited-$?; sleep 60", repo)
    pane.wait_for(lambda s: "Agents" in s and "Message" in s, "the app with its input line")

    pane.press("n")
    pane.wait_for(lambda s: "New agent" in s, "the new-agent dialog")
    pane.press("say hello")
    pane.wait_for(lambda s: "say hello" in s, "the task typed in the dialog")
    pane.run("send-keys", "-t", "app", "Enter")
    pane.wait_for(lambda s: "✓ done: greet changed" in s, "the first answer", timeout=60)

    pane.press("i")  # into the input line under the transcript
    pane.press("now say goodbye in bye()")
    pane.wait_for(lambda s: "now say goodbye in bye()" in s, "the message typed")
    pane.run("send-keys", "-t", "app", "Enter")
    pane.wait_for(lambda s: "✓ done: bye changed too" in s, "the second answer", timeout=60)

    pane.run("send-keys", "-t", "app", "Tab")  # out of the input line (tab with no @word)
    pane.press("q")
    pane.wait_for(lambda s: "cursorish-exited-0" in s, "the app to quit with status 0")

    common = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    with Store.for_repo(common) as store:
        (agent,) = store.agents()
    branch = str(agent["branch"])
    final = git(repo, "show", f"{branch}:app.py")
    assert '"hello "' in final and '"goodbye "' in final
    # One commit for the task, one for the follow-up, on the same branch.
    assert git(repo, "rev-list", "--count", f"{base}..{branch}").strip() == "2"
    first = git(repo, "show", f"{branch}~1:app.py")
    assert '"hello "' in first and '"goodbye "' not in first
    assert (repo / "app.py").read_text(encoding="utf-8") == APP  # the checkout is untouched
