"""`cursorish agents [list|cancel|resume|discard]` and `cursorish gc` through the real CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.cli import main
from cursorish.replay.scripted_server import ScriptedServer
from tests.core.agent_helpers import call, finish, run_tasks, settings_for

MakeRepo = Callable[..., Path]


@pytest.fixture
def ran(tmp_path: Path, make_repo: MakeRepo) -> tuple[Path, list[str]]:
    """A repository where two agents ran: one changed a file, one ran out of steps."""
    root = make_repo(tmp_path, {"app.py": "X = 1\n"})
    script = {
        "make a file": [call("create_file", path="n.txt", content="n\n"), finish("made n.txt")],
        "loop forever": [call("read_file", path="app.py") for _ in range(5)],
    }
    with ScriptedServer(script) as server:
        reports, store = run_tasks(
            root, ["make a file", "loop forever"], settings_for(server, max_steps=2)
        )
    store.close()
    return root, [r.agent_id for r in reports]


def test_list_text_and_json(
    ran: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, (done_id, budget_id) = ran
    assert main(["agents", "--repo", str(root)]) == 0
    out = capsys.readouterr().out
    head = out.splitlines()[0].split()
    assert head[:4] == ["id", "state", "profile", "steps"]
    assert f"{done_id}  done" in out and f"{budget_id}  budget_exhausted" in out
    assert "make a file" in out and "worktrees:" in out
    assert main(["agents", "list", "--repo", str(root), "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[done_id]["state"] == "done" and rows[done_id]["task"] == "make a file"
    assert rows[budget_id]["steps"] == 2 and rows[budget_id]["tokens"] > 0
    for key in ("profile", "branch", "worktree", "cost_usd", "age_s", "tests_run"):
        assert key in rows[done_id]


def test_empty_repository_says_so(
    tmp_path: Path, make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, {"a": "a\n"})
    assert main(["agents", "--repo", str(root)]) == 0
    assert "no agents in this repository yet" in capsys.readouterr().out


def test_discard_then_gc(ran: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    root, (done_id, _) = ran
    assert main(["agents", "discard", done_id, "--repo", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"agent {done_id}: discarded" in out and f"branch cursorish/{done_id}" in out
    assert main(["agents", "--repo", str(root), "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[done_id]["discarded"] and not rows[done_id]["worktree_exists"]
    assert main(["gc", "--repo", str(root)]) == 0
    assert capsys.readouterr().out.strip() == "nothing to remove"


def test_errors_are_messages(
    ran: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, (done_id, _) = ran
    assert main(["agents", "cancel", "--repo", str(root)]) == 2
    assert "needs an agent ID" in capsys.readouterr().err
    assert main(["agents", "cancel", done_id, "--repo", str(root)]) == 2
    assert "already ended (done)" in capsys.readouterr().err
    assert main(["agents", "resume", done_id, "--repo", str(root), "--api-base", "http://x"]) == 2
    assert "only an interrupted" in capsys.readouterr().err
    assert main(["agents", "discard", "ffffff", "--repo", str(root)]) == 2
    assert "no agent 'ffffff'" in capsys.readouterr().err


def test_resume_a_budget_exhausted_agent_with_a_bigger_budget(
    ran: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, (_, budget_id) = ran
    script = {
        "loop forever": [call("read_file", path="app.py")] * 2
        + [
            call("create_file", path="late.txt", content="late\n"),
            finish("finally"),
        ]
    }
    with ScriptedServer(script) as server:
        code = main(
            [
                "agents",
                "resume",
                budget_id[:4],
                "--repo",
                str(root),
                "--api-base",
                server.base_url,
                "--max-steps",
                "10",
            ]
        )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"agent {budget_id}: done" in out
    assert main(["agents", "--repo", str(root), "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[budget_id]["state"] == "done" and rows[budget_id]["steps"] == 4


def test_a_task_with_escape_sequences_is_listed_escaped(
    tmp_path: Path, make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, {"app.py": "X = 1\n"})
    with ScriptedServer([finish("nothing")]) as server:
        _, store = run_tasks(root, ["title \x1b]0;pwned\x07 \x1b[2J"], settings_for(server))
    store.close()
    assert main(["agents", "--repo", str(root)]) == 0
    out = capsys.readouterr().out
    assert "title \\e]0;pwned\\x07 \\e[2J" in out and "\x1b" not in out and "\x07" not in out
