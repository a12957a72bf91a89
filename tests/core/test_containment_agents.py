"""A scripted planner attacks the worktree boundary; nothing outside may change.

Absolute paths, `..`, symlinks committed in the repository that point out (to a file and to a
directory), and writes into `.git`, through every write tool and read_file.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from cursorish.replay.scripted_server import ScriptedServer
from tests.conftest import git
from tests.core.agent_helpers import call, finish, run_tasks, settings_for

MakeRepo = Callable[..., Path]


def _snapshot(*roots: Path) -> dict[str, str]:
    """Every file under the roots (not following symlinks) with a hash of its bytes.

    In a `.git` only config and hooks count: the worktree record and the agent branch are
    supposed to appear there.
    """
    out: dict[str, str] = {}
    for root in roots:
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                path = Path(dirpath) / name
                rel = path.relative_to(root).as_posix()
                if rel.startswith(".git/") and not (
                    rel == ".git/config" or rel.startswith(".git/hooks/")
                ):
                    continue
                if path.is_symlink():
                    out[str(path)] = "link:" + os.readlink(path)
                else:
                    out[str(path)] = hashlib.sha1(path.read_bytes()).hexdigest()
    return out


def test_attacks_change_nothing_outside_and_say_why(tmp_path: Path, make_repo: MakeRepo) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("do not touch\n")
    root = make_repo(tmp_path, {"app.py": "def main():\n    return 0\n"})
    (root / "escape.txt").symlink_to(victim)
    (root / "escape_dir").symlink_to(outside)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "symlinks pointing out")
    before = _snapshot(outside, root)
    user_config = (root / ".git" / "config").read_bytes()

    attacks = [
        call("read_file", path=str(victim)),
        call("create_file", path=str(outside / "new.txt"), content="x"),
        call("create_file", path="../outside/new.txt", content="x"),
        call("delete_file", path="../repo/app.py"),
        call("edit_file", path="escape.txt", sketch="pwned\n"),
        call("read_file", path="escape.txt"),
        call("create_file", path="escape_dir/new.txt", content="x"),
        call("delete_file", path="escape_dir/victim.txt"),
        call("edit_file", path=".git/config", sketch="[core]\n\thooksPath = /tmp\n"),
        call("create_file", path=".git/hooks/post-commit", content="#!/bin/sh\n"),
        call("delete_file", path=".git"),
        call("create_file", path="sub/../../outside/new.txt", content="x"),
        call("create_file", path="~/new.txt", content="x"),
        finish("tried"),
    ]
    with ScriptedServer(attacks) as server:
        (report,), store = run_tasks(root, ["attack"], settings_for(server))

    assert report.status == "gave_up"  # finished without changing any file
    assert _snapshot(outside, root) == before
    assert (root / ".git" / "config").read_bytes() == user_config
    assert victim.read_text() == "do not touch\n"
    assert not (outside / "new.txt").exists()
    wt = Path(report.worktree)
    assert (wt / ".git").is_file()  # the worktree's link to the repository is intact
    assert git(wt, "status", "--porcelain") == ""

    results = [t for t in store.tool_calls(report.agent_id) if t["name"] != "finish"]
    assert len(results) == len(attacks) - 1
    assert not any(t["ok"] for t in results)
    reasons = [t["result"] for t in results]
    assert "absolute paths are not allowed" in reasons[0]
    assert "absolute paths are not allowed" in reasons[1]
    assert "climbs outside the worktree" in reasons[2]
    assert "climbs outside the worktree" in reasons[3]
    assert "symlink that points outside the worktree" in reasons[4]
    assert "symlink that points outside the worktree" in reasons[5]
    assert "symlink that points outside the worktree" in reasons[6]
    assert "symlink that points outside the worktree" in reasons[7]
    assert "inside .git are not allowed" in reasons[8]
    assert "inside .git are not allowed" in reasons[9]
    assert "inside .git are not allowed" in reasons[10]
    assert "outside the worktree" in reasons[11]
    assert "home-relative paths are not allowed" in reasons[12]


def test_symlink_inside_the_worktree_still_works(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"real.txt": "one\n"})
    (root / "alias.txt").symlink_to("real.txt")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "inner symlink")
    with ScriptedServer([call("read_file", path="alias.txt"), finish()]) as server:
        (report,), store = run_tasks(root, ["t"], settings_for(server))
    (read,) = [t for t in store.tool_calls(report.agent_id) if t["name"] == "read_file"]
    assert read["ok"] and "one" in read["result"]
