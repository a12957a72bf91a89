"""gitops.merge on real repositories: every refusal leaves the checkout byte for byte as it
was, conflicts are found before anything is written, merge and squash commit shapes."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.errors import CursorishError
from cursorish.gitops.merge import (
    MergeRefused,
    execute_merge,
    merge_message,
    plan_merge,
)
from tests.conftest import git, snapshot

APP = "def greet(name):\n    return 'hi ' + name\n"
NOTES = "one\ntwo\nthree\n"


@pytest.fixture
def repo(tmp_path: Path, make_repo: Callable[..., Path]) -> Path:
    return make_repo(tmp_path, {"app.py": APP, "notes.txt": NOTES, ".gitignore": "*.log\n"})


def commit_on(repo: Path, branch: str, files: dict[str, str | None], msg: str = "work") -> str:
    """Commit `files` (None deletes) on `branch` without touching the checkout's files."""
    wt = repo.parent / f"wt-{branch.replace('/', '-')}"
    if not wt.exists():
        if git(repo, "branch", "--list", branch).strip():
            git(repo, "worktree", "add", "-q", str(wt), branch)
        else:
            git(repo, "worktree", "add", "-q", "-b", branch, str(wt))
    for rel, text in files.items():
        path = wt / rel
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    git(wt, "add", "-A", "--force")  # ignored files too: a test may need one on the branch
    git(wt, "commit", "-q", "-m", msg)
    return git(wt, "rev-parse", "HEAD").strip()


def refused(repo: Path, branch: str, **kw: bool) -> MergeRefused:
    before = snapshot(repo)
    with pytest.raises(MergeRefused) as info:
        plan_merge(repo, branch, **kw)
    assert snapshot(repo) == before
    return info.value


def test_merge_creates_two_parent_commit_and_updates_checkout(repo: Path) -> None:
    tip = commit_on(repo, "cursorish/a1", {"app.py": APP + "\n\ndef bye():\n    pass\n"})
    (repo / "scratch.txt").write_text("mine, untracked\n")
    head = git(repo, "rev-parse", "HEAD").strip()
    plan = plan_merge(repo, "cursorish/a1")
    assert (plan.added, plan.deleted, [f.path for f in plan.files]) == (4, 0, ["app.py"])
    sha = execute_merge(plan, merge_message(plan, task="add bye", trailers={"X-Test": "1"}))
    assert git(repo, "rev-parse", "HEAD").strip() == sha
    assert git(repo, "log", "-1", "--format=%P", sha).split() == [head, tip]
    assert (repo / "app.py").read_text().endswith("def bye():\n    pass\n")
    assert git(repo, "status", "--porcelain") == "?? scratch.txt\n"
    body = git(repo, "log", "-1", "--format=%B")
    assert body.startswith("Merge cursorish/a1 into main: add bye\n")
    assert "X-Test: 1" in git(repo, "log", "-1", "--format=%(trailers)")


def test_squash_has_one_parent_and_the_same_tree(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"new.py": "x = 1\n"})
    commit_on(repo, "cursorish/a1", {"new.py": "x = 2\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    plan = plan_merge(repo, "cursorish/a1", squash=True)
    sha = execute_merge(plan, merge_message(plan, title="my title", trailers={}))
    assert git(repo, "log", "-1", "--format=%P", sha).split() == [head]
    assert git(repo, "log", "-1", "--format=%B", sha).strip() == "my title"
    assert (repo / "new.py").read_text() == "x = 2\n"
    # Squashed again: the branch still has commits main lacks, but brings nothing new.
    assert "brings no change" in refused(repo, "cursorish/a1", squash=True).message


def test_merge_onto_moved_branch_keeps_both_sides(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"app.py": APP + "# agent\n"})
    (repo / "notes.txt").write_text(NOTES + "four\n")
    git(repo, "commit", "-qam", "user work")
    plan = plan_merge(repo, "cursorish/a1")
    execute_merge(plan, merge_message(plan, trailers={}))
    assert (repo / "app.py").read_text().endswith("# agent\n")
    assert (repo / "notes.txt").read_text().endswith("four\n")
    assert git(repo, "status", "--porcelain") == ""


def test_refuses_dirty_tracked_file_and_names_it(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"app.py": APP + "# agent\n"})
    (repo / "notes.txt").write_text("edited by the user\n")
    err = refused(repo, "cursorish/a1")
    assert "uncommitted changes" in err.message and "notes.txt" in err.message
    assert err.paths == ("notes.txt",)


def test_refuses_staged_change(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"app.py": APP + "# agent\n"})
    (repo / "extra.py").write_text("y = 1\n")
    git(repo, "add", "extra.py")
    assert refused(repo, "cursorish/a1").paths == ("extra.py",)


def test_refuses_detached_head(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"app.py": APP + "# agent\n"})
    git(repo, "checkout", "-q", "--detach")
    assert "detached HEAD" in refused(repo, "cursorish/a1").message


def test_refuses_branch_not_ahead(repo: Path) -> None:
    git(repo, "branch", "cursorish/a1")
    assert "not ahead" in refused(repo, "cursorish/a1").message


def test_refuses_unknown_branch_and_current_branch(repo: Path) -> None:
    assert "no branch" in refused(repo, "cursorish/nope").message
    assert "checked out" in refused(repo, "main").message


def test_conflicts_are_listed_before_anything_is_written(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"app.py": "agent version\n", "notes.txt": None})
    (repo / "app.py").write_text("user version\n")
    (repo / "notes.txt").write_text(NOTES + "user\n")
    git(repo, "commit", "-qam", "user")
    refs_before = git(repo, "for-each-ref")
    err = refused(repo, "cursorish/a1")
    assert err.paths == ("app.py", "notes.txt")
    assert "would conflict in 2 file(s)" in err.message
    assert "modify/delete" in err.message or "deleted" in err.message
    assert git(repo, "for-each-ref") == refs_before


def test_refuses_untracked_and_ignored_files_in_the_way(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"new.py": "agent\n", "debug.log": "agent log\n"})
    (repo / "new.py").write_text("the user's own file\n")
    (repo / "debug.log").write_text("precious ignored\n")
    err = refused(repo, "cursorish/a1")
    assert err.paths == ("debug.log", "new.py")
    (repo / "new.py").unlink()
    assert refused(repo, "cursorish/a1").paths == ("debug.log",)


def test_refuses_untracked_file_where_merge_needs_a_directory(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"pkg/mod.py": "agent\n"})
    (repo / "pkg").write_text("a file named pkg\n")
    assert refused(repo, "cursorish/a1").paths == ("pkg",)


def test_refuses_during_a_conflicted_git_merge(repo: Path) -> None:
    commit_on(repo, "other", {"app.py": "other\n"})
    commit_on(repo, "cursorish/a1", {"notes.txt": "agent\n"})
    (repo / "app.py").write_text("mine\n")
    git(repo, "commit", "-qam", "mine")
    done = subprocess.run(
        ["git", "merge", "-q", "other"], cwd=repo, capture_output=True, check=False
    )
    assert done.returncode != 0  # left conflicted, MERGE_HEAD in place
    assert "middle of a merge" in refused(repo, "cursorish/a1").message


def test_execute_refuses_when_branch_moved_after_planning(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"app.py": APP + "# agent\n"})
    plan = plan_merge(repo, "cursorish/a1")
    (repo / "notes.txt").write_text(NOTES + "later\n")
    git(repo, "commit", "-qam", "later")
    before = snapshot(repo)
    with pytest.raises(MergeRefused, match="moved"):
        execute_merge(plan, "msg")
    assert snapshot(repo) == before


def test_ff_step_refuses_a_change_made_after_planning(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"app.py": APP + "# agent\n"})
    plan = plan_merge(repo, "cursorish/a1")
    (repo / "app.py").write_text("edited meanwhile\n")  # git merge --ff-only must refuse
    head = git(repo, "rev-parse", "HEAD")
    with pytest.raises(CursorishError) as info:
        execute_merge(plan, "msg")
    assert "nothing was changed" in info.value.message
    assert (repo / "app.py").read_text() == "edited meanwhile\n"
    assert git(repo, "rev-parse", "HEAD") == head


def test_trailer_values_are_single_lines(repo: Path) -> None:
    commit_on(repo, "cursorish/a1", {"app.py": APP + "# agent\n"})
    plan = plan_merge(repo, "cursorish/a1", squash=True)
    msg = merge_message(
        plan, task="first line\nsecond line", trailers={"Cursorish-Task": "first\nsecond"}
    )
    assert msg.splitlines()[0] == "first line"
    assert msg.rstrip().splitlines()[-1] == "Cursorish-Task: first second"
