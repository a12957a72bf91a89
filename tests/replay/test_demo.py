"""`cursorish demo`: the whole pipeline on a sample repo with a replayed planner, no key needed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cursorish.cli import main
from cursorish.replay.demo import REPLAY_NOTICE
from tests.conftest import git


def test_demo_produces_branches_with_real_commits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "sample"
    assert main(["demo", "--dir", str(target), "--latency", "0"]) == 0
    out = capsys.readouterr().out
    assert REPLAY_NOTICE in out and "How to review" in out
    branches = git(target, "branch", "--list", "cursorish/*", "--format=%(refname:short)").split()
    assert len(branches) == 2
    changed = {b: git(target, "diff", "--name-only", f"main..{b}").split() for b in branches}
    assert sorted(map(tuple, changed.values())) == [
        ("app/cli.py", "tests/test_cli.py"),
        ("web/format.js",),
    ]
    cli = next(b for b, files in changed.items() if "app/cli.py" in files)
    merged = git(target, "show", f"{cli}:app/cli.py")
    assert '"""Command-line entry point of the sample app."""' in merged
    assert "--verbose" in merged and "import sys" in merged
    js = next(b for b, files in changed.items() if "web/format.js" in files)
    assert "function shout(text)" in git(target, "show", f"{js}:web/format.js")
    assert git(target, "status", "--porcelain") == ""


def test_demo_json_mode_ends_with_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--dir", str(tmp_path / "s"), "--latency", "0", "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert summary["event"] == "summary"
    assert [a["status"] for a in summary["agents"]] == ["done", "done"]
    assert "REPLAY" in captured.err


def test_demo_refuses_a_non_empty_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x.txt").write_text("mine\n")
    assert main(["demo", "--dir", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "x.txt").read_text() == "mine\n"


def test_demo_format_js_change_is_two_chunks_decided_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The edit of formatName and the new shout() at the end are five lines apart: one git
    # hunk, two review chunks. Accepting one and rejecting the other keeps exactly the first.
    target = tmp_path / "sample"
    assert main(["demo", "--dir", str(target), "--latency", "0"]) == 0
    branches = git(target, "branch", "--list", "cursorish/*", "--format=%(refname:short)").split()
    js = next(b for b in branches if "web/format.js" in git(target, "diff", "--name-only", b))
    capsys.readouterr()

    def review(*argv: str) -> dict[str, Any]:
        assert main(["review", js, *argv, "--repo", str(target), "--json"]) == 0
        data: dict[str, Any] = json.loads(capsys.readouterr().out)
        return data

    (f,) = review("--list")["files"]
    first, second = f["hunks"]
    assert [ln for ln in first["lines"] if ln[0] != " "] == [
        "-  return `${first} ${last}`;",
        "+  return `${first.trim()} ${last.trim()}`;",
    ]
    assert "+function shout(text) {" in second["lines"]
    review("--accept", first["id"])
    review("--reject", second["id"])
    done = review("--commit")
    assert done["counts"] == {"pending": 0, "accepted": 1, "rejected": 1}
    kept = git(target, "show", f"{js}:web/format.js")
    assert "${first.trim()} ${last.trim()}" in kept
    assert "shout" not in kept
