"""An agent's branch in real repositories: checkpoints, the squash into one final commit, the
final message, and re-attaching a worktree whose directory is gone."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.agent_branch import (
    CHECKPOINT_PREFIX,
    commit_checkpoint,
    file_stats,
    final_message,
    finalize_branch,
    reattach_worktree,
)
from cursorish.gitops.agent_commits import commit_all
from cursorish.gitops.repo import open_repo
from cursorish.gitops.worktrees import create_worktree
from tests.conftest import git

MakeRepo = Callable[..., Path]


@pytest.fixture
def repo(tmp_path: Path, make_repo: MakeRepo) -> Path:
    return make_repo(tmp_path, {"app.py": "x = 1\n", "README.md": "hello\n"})


@pytest.fixture
def worktree(repo: Path, tmp_path: Path) -> Path:
    info = open_repo(repo)
    dest = tmp_path / "wt" / "a1b2c3"
    create_worktree(info, agent_id="a1b2c3", base_commit=info.head_commit, dest=dest)
    return dest


def _base(repo: Path) -> str:
    return git(repo, "rev-parse", "main").strip()


def _subjects(wt: Path, base: str) -> list[str]:
    return git(wt, "log", "--format=%s", f"{base}..HEAD").splitlines()


def test_checkpoint_commits_the_path_through_the_private_index(repo: Path, worktree: Path) -> None:
    (worktree / "app.py").write_text("x = 2\n")
    sha = commit_checkpoint(worktree, "edit_file", "app.py")
    assert sha is not None and git(worktree, "rev-parse", "HEAD").strip() == sha
    assert _subjects(worktree, _base(repo)) == [f"{CHECKPOINT_PREFIX} edit_file app.py"]
    # The worktree's real index is the review's: it still holds the base.
    assert git(worktree, "diff", "--cached", "--name-only", "HEAD") == "app.py\n"
    assert commit_checkpoint(worktree, "edit_file", "app.py") is None  # nothing new


def test_finalize_squashes_trailing_checkpoints_into_one_commit(repo: Path, worktree: Path) -> None:
    base = _base(repo)
    for n in (2, 3):
        (worktree / "app.py").write_text(f"x = {n}\n")
        commit_checkpoint(worktree, "edit_file", "app.py")
    (worktree / "new.txt").write_text("left uncommitted\n")
    held: list[str] = []

    @contextlib.contextmanager
    def hold() -> Iterator[None]:
        held.append("slot")
        yield

    message = final_message("Fix x", "a1b2c3", "done", "set x to 3", "")
    head = finalize_branch(worktree, base, message, hold=hold)
    assert held == ["slot"]
    assert head == git(worktree, "rev-parse", "HEAD").strip()
    assert _subjects(worktree, base) == ["Fix x"]
    assert git(worktree, "log", "-1", "--format=%B", "HEAD").strip() == message.strip()
    assert git(worktree, "show", "HEAD:app.py") == "x = 3\n"
    assert git(worktree, "show", "HEAD:new.txt") == "left uncommitted\n"
    stats = {s["path"]: s for s in file_stats(worktree, base)}
    assert stats["app.py"]["added"] == 1 and stats["app.py"]["deleted"] == 1
    assert stats["new.txt"]["status"] == "A"


def test_finalize_keeps_a_commit_made_on_the_branch_in_review(repo: Path, worktree: Path) -> None:
    base = _base(repo)
    (worktree / "app.py").write_text("x = 2\n")
    commit_checkpoint(worktree, "edit_file", "app.py")
    (worktree / "README.md").write_text("reviewed\n")
    commit_all(worktree, "review: accept README", private_index=True)
    (worktree / "app.py").write_text("x = 3\n")
    commit_checkpoint(worktree, "edit_file", "app.py")
    finalize_branch(worktree, base, "Second run\n\ndone")
    assert _subjects(worktree, base) == [
        "Second run",
        "review: accept README",
        f"{CHECKPOINT_PREFIX} edit_file app.py",
    ]


def test_finalize_without_changes_leaves_the_branch_at_its_base(repo: Path, worktree: Path) -> None:
    base = _base(repo)
    assert finalize_branch(worktree, base, "Nothing") is None
    assert git(worktree, "rev-parse", "HEAD").strip() == base
    assert file_stats(worktree, base) == []


def test_final_message_title_body_and_trailers() -> None:
    long = "\n\n  " + "word " * 30
    message = final_message(long, "abc123", "failed", "  ", "planner failed")
    title, body = message.split("\n\n", 1)
    assert len(title) == 72 and title.endswith("...") and title.startswith("word word")
    assert body == "planner failed\n\nCursorish-Agent: abc123\nCursorish-Status: failed"
    assert final_message("", "abc123", "done", "", "") == (
        "cursorish agent\n\nCursorish-Agent: abc123\nCursorish-Status: done"
    )


def test_reattach_recreates_a_deleted_worktree_on_its_branch(repo: Path, worktree: Path) -> None:
    (worktree / "app.py").write_text("x = 9\n")
    commit_checkpoint(worktree, "edit_file", "app.py")
    shutil.rmtree(worktree)
    reattach_worktree(repo, worktree, "cursorish/a1b2c3", "a1b2c3")
    assert (worktree / "app.py").read_text() == "x = 9\n"
    assert git(worktree, "symbolic-ref", "HEAD").strip() == "refs/heads/cursorish/a1b2c3"
    reattach_worktree(repo, worktree, "cursorish/a1b2c3", "a1b2c3")  # there already: no-op
    assert (worktree / "app.py").read_text() == "x = 9\n"


def test_reattach_refuses_a_worktree_on_another_branch(repo: Path, worktree: Path) -> None:
    git(worktree, "switch", "-q", "-c", "elsewhere")
    with pytest.raises(CursorishError) as info:
        reattach_worktree(repo, worktree, "cursorish/a1b2c3", "a1b2c3")
    assert info.value.exit_code == ExitCode.BAD_ARGS
    assert "is not on its branch cursorish/a1b2c3 (it is on elsewhere)" in info.value.message


def test_reattach_refuses_when_branch_and_worktree_are_gone(repo: Path, worktree: Path) -> None:
    shutil.rmtree(worktree)
    git(repo, "worktree", "prune")
    git(repo, "branch", "-D", "cursorish/a1b2c3")
    with pytest.raises(CursorishError) as info:
        reattach_worktree(repo, worktree, "cursorish/a1b2c3", "a1b2c3")
    assert info.value.exit_code == ExitCode.BAD_ARGS
    assert "its worktree" in info.value.message and "are both gone" in info.value.message


def test_reattach_refuses_a_branch_checked_out_elsewhere(
    repo: Path, worktree: Path, tmp_path: Path
) -> None:
    shutil.rmtree(worktree)
    git(repo, "worktree", "prune")
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", str(other), "cursorish/a1b2c3")
    with pytest.raises(CursorishError) as info:
        reattach_worktree(repo, worktree, "cursorish/a1b2c3", "a1b2c3")
    assert info.value.exit_code == ExitCode.BAD_ARGS
    assert "is checked out in" in info.value.message
    assert not worktree.exists()
