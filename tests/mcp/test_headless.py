"""`cursorish --task` with MCP servers in the user's config: the real CLI end to end."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.cli import main
from cursorish.config import user_config_path
from cursorish.store.db import Store
from tests.conftest import ServerFactory, git, snapshot
from tests.scripted_turns import call, finish

from .conftest import TIME_SERVER

pytestmark = pytest.mark.usefixtures("one_retry")


def write_user_config(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def run(repo: Path, base_url: str) -> int:
    return main(
        [
            "--task",
            "what time is it",
            "--repo",
            str(repo),
            "--planner",
            "openai/scripted",
            "--api-base",
            base_url,
            "--json",
        ]
    )


def test_task_uses_a_configured_server(
    tmp_path: Path,
    make_repo: Callable[..., Path],
    scripted_server: ServerFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = make_repo(tmp_path, {"app.py": "x = 1\n"})
    write_user_config(
        f'[mcp_servers.time]\ncommand = "{TIME_SERVER}"\nauto_approve = ["get_current_time"]\n'
    )
    turns = [
        {"tool_calls": [call("time__get_current_time", timezone="Asia/Tokyo")]},
        {"tool_calls": [call("create_file", path="time.txt", content="asked\n")]},
        finish("wrote the time"),
    ]
    server = scripted_server(turns)
    code = run(repo, server.base_url)
    out = capsys.readouterr().out
    assert code == 0, out
    summary = [json.loads(line) for line in out.splitlines() if line.strip()][-1]
    common = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    store = Store.for_repo(common)
    [mcp] = [c for c in store.tool_calls(summary["agent"]) if c["name"] == "time__get_current_time"]
    assert mcp["ok"] and json.loads(mcp["result"])["timezone"] == "Asia/Tokyo"
    store.close()


def test_a_malformed_server_entry_exits_8_before_any_worktree(
    tmp_path: Path,
    make_repo: Callable[..., Path],
    scripted_server: ServerFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = make_repo(tmp_path, {"app.py": "x = 1\n"})
    write_user_config('[mcp_servers.broken]\ntype = "sse"\nurl = "http://x"\n')
    before = snapshot(repo)
    server = scripted_server([finish()])
    assert run(repo, server.base_url) == 8
    err = capsys.readouterr().err
    assert "SSE transport is not supported" in err and "Traceback" not in err
    assert server.requests == [] and snapshot(repo) == before
    assert "cursorish/" not in git(repo, "branch", "--list")
