"""Secrets stay local: the user's provisioned local files (.env, ...) in a real agent worktree
are usable by commands but their content never reaches the planner through the file tools,
unless the user's own `expose_local_files` allows it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.core.local_files import forget, is_secret, local_files, record_path
from cursorish.core.provision import ProvisionSpec, provision
from cursorish.core.tools import ToolBox, ToolContext
from cursorish.replay.scripted_server import ScriptedServer
from tests.core.agent_helpers import call, finish, run_tasks, settings_for

SECRET = "sk-live-DO-NOT-LEAK-0123456789"
SPEC = ProvisionSpec((".env", "config/local.yml"), "", 10)


@pytest.fixture
def checkout(tmp_path: Path, make_repo: Callable[..., Path]) -> Path:
    root = make_repo(
        tmp_path / "checkout",
        {".gitignore": ".env\nconfig/local.yml\n", "app.py": "KEY = 'not a secret'\n"},
    )
    (root / ".env").write_text(f"API_KEY={SECRET}\n")
    (root / "config").mkdir()
    (root / "config" / "local.yml").write_text(f"token: {SECRET}\n")
    return root


@pytest.fixture
def worktree(checkout: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "wt"
    subprocess.run(
        ["git", "worktree", "add", "-q", "-b", "agent", str(dest)],
        cwd=checkout,
        check=True,
        capture_output=True,
    )
    result = provision(checkout, dest, SPEC)
    assert sorted(result.copied) == [".env", "config/local.yml"]
    return dest


def tools(root: Path, expose: tuple[str, ...] = ()) -> ToolBox:
    return ToolBox(ToolContext(root=root, agent_id="a1", expose_local_files=expose))


def test_is_secret_knows_the_provisioned_files(worktree: Path) -> None:
    assert local_files(worktree) == {".env", "config/local.yml"}
    assert is_secret(worktree, ".env") and is_secret(worktree, "./config/local.yml")
    assert not is_secret(worktree, "app.py")
    assert not is_secret(worktree, ".env", expose=(".env",))
    assert not is_secret(worktree, "config/local.yml", expose=("*",))
    assert is_secret(worktree, "config/local.yml", expose=("*.yaml",))
    # The record is outside the worktree, where the agent's tools cannot reach it.
    assert worktree.resolve() not in record_path(worktree).resolve().parents


def test_read_edit_grep_and_list_keep_the_content_from_the_planner(worktree: Path) -> None:
    box = tools(worktree)
    read = box.call("read_file", json.dumps({"path": ".env"}))
    assert not read.ok and SECRET not in read.text and "kept from the planner" in read.text
    # Through a path that only resolves to it.
    read = box.call("read_file", json.dumps({"path": "config/../.env"}))
    assert not read.ok and SECRET not in read.text
    edit = box.call("edit_file", json.dumps({"path": ".env", "sketch": "API_KEY=x\n"}))
    assert (
        not edit.ok
        and SECRET not in edit.text
        and (worktree / ".env").read_text().endswith(f"{SECRET}\n")
    )
    # Even once the agent makes git see the files (no longer ignored), grep and list_files
    # do not show their content.
    (worktree / ".gitignore").write_text("")
    grep = box.call("grep", json.dumps({"pattern": "sk-live", "fixed_string": True}))
    assert SECRET not in grep.text and ".env" in grep.text and "local secret" in grep.text
    listed = box.call("list_files", "{}")
    assert ".env  (local secret: content kept from the planner)" in listed.text
    assert "app.py" in listed.text and SECRET not in listed.text


def test_the_users_expose_local_files_lets_the_planner_read(worktree: Path) -> None:
    read = tools(worktree, (".env",)).call("read_file", json.dumps({"path": ".env"}))
    assert read.ok and SECRET in read.text
    other = tools(worktree, (".env",)).call("read_file", json.dumps({"path": "config/local.yml"}))
    assert not other.ok


def test_provisioning_again_keeps_the_files_secret(checkout: Path, worktree: Path) -> None:
    forget(worktree)  # as if the record were lost; a resumed agent provisions again
    assert not is_secret(worktree, ".env")
    again = provision(checkout, worktree, SPEC)
    assert again.copied == []  # already there
    assert is_secret(worktree, ".env") and is_secret(worktree, "config/local.yml")


def test_an_agent_never_sees_the_secret_but_its_commands_use_it(
    checkout: Path, scripted_server: Callable[..., ScriptedServer]
) -> None:
    server = scripted_server(
        [
            call("read_file", path=".env"),
            call("grep", pattern="API_KEY"),
            call("run_command", command="grep -c sk-live .env"),
            call("create_file", path="notes.txt", content="done\n"),
            finish(),
        ]
    )
    settings = settings_for(server, command_policy="allow")
    (report,), store = run_tasks(checkout, ["use the key"], settings, provision=SPEC)
    try:
        assert report.status == "done", report.error
        sent = json.dumps(server.requests)
        assert SECRET not in sent
        assert "kept from the planner" in sent
        assert (Path(report.worktree) / ".env").read_text() == f"API_KEY={SECRET}\n"
        tool_texts = [
            m["content"]
            for m in server.requests[-1]["messages"]
            if m.get("role") == "tool" and isinstance(m.get("content"), str)
        ]
        # grep -c counted one line of .env: the command could read what the planner could not.
        assert any(t.startswith("exit code 0") and t.splitlines()[-1] == "1" for t in tool_texts), (
            tool_texts
        )
    finally:
        store.close()
