"""Commits in agent worktrees (real repositories): through the private index or the real one,
without identity or hooks, never overwriting a branch that moved, the user's checkout intact."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursorish.errors import CursorishError
from cursorish.gitops.agent_commits import AGENT_INDEX, commit_all, commit_paths, commit_staged
from cursorish.gitops.repo import open_repo
from cursorish.gitops.worktrees import create_worktree
from tests.conftest import git, snapshot
from tests.gitops.racy import same_size_edit_in_the_index_second


def test_commit_all_with_nothing_to_commit(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="aaaaaa", base_commit="HEAD", dest=dest)
    (dest / "only.log").write_text("ignored\n")
    assert commit_all(dest, "nothing") is None
    assert git(dest, "rev-parse", "HEAD").strip() == info.head_commit


def test_commit_works_without_identity_and_skips_hooks(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key)
    monkeypatch.setenv("EMAIL", "")
    git(repo, "config", "user.useConfigOnly", "true")
    git(repo, "config", "commit.gpgsign", "true")
    marker = tmp_path / "hook-ran"
    for hook in ("pre-commit", "commit-msg", "prepare-commit-msg", "post-commit", "post-checkout"):
        path = repo / ".git" / "hooks" / hook
        path.write_text(f"#!/bin/sh\necho {hook} >> '{marker}'\nexit 1\n")
        path.chmod(0o755)
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="bbbbbb", base_commit=info.head_commit, dest=dest)
    (dest / "x.py").write_text("x\n")
    assert commit_all(dest, "agent", author="Bot <bot@example.com>") is not None
    assert not marker.exists()
    assert git(dest, "log", "-1", "--format=%an|%ce").strip() == "Bot|bot@example.com"


def test_commit_staged_commits_only_the_index(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="cccccc", base_commit=info.head_commit, dest=dest)
    (dest / "accepted.py").write_text("a\n")
    (dest / "pending.py").write_text("p\n")
    git(dest, "add", "accepted.py")
    sha = commit_staged(dest, "accepted only")
    assert sha is not None
    assert git(dest, "show", "--name-only", "--format=", sha).split() == ["accepted.py"]
    assert git(dest, "status", "--porcelain").strip() == "?? pending.py"
    assert commit_staged(dest, "again") is None


def test_commit_paths_commits_only_the_named_paths(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="c0ffee", base_commit=info.head_commit, dest=dest)
    (dest / "src" / "app.py").write_text("def main():\n    return 2\n")
    (dest / "other.py").write_text("untouched by this checkpoint\n")
    sha = commit_paths(dest, ["src/app.py"], "checkpoint")
    assert sha is not None
    assert git(dest, "show", "--name-only", "--format=", sha).split() == ["src/app.py"]
    assert git(dest, "status", "--porcelain").strip() == "?? other.py"
    (dest / "src" / "app.py").unlink()
    deleted = commit_paths(dest, ["src/app.py"], "delete")
    assert deleted is not None
    assert git(dest, "show", "--name-status", "--format=", deleted).split() == ["D", "src/app.py"]


def test_commit_paths_on_an_ignored_path_commits_nothing_and_does_not_fail(
    repo: Path, tmp_path: Path
) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="c0ffe2", base_commit=info.head_commit, dest=dest)
    (dest / ".gitignore").write_text("*.trace\n")
    git(dest, "add", ".gitignore")
    git(dest, "commit", "-q", "-m", "ignore traces")
    (dest / "debug.trace").write_text("ignored\n")
    assert commit_paths(dest, ["debug.trace"], "checkpoint") is None
    assert commit_all(dest, "everything") is None  # the same rule as a full commit


def _index(dest: Path) -> tuple[bytes, int]:
    path = Path(git(dest, "rev-parse", "--path-format=absolute", "--git-path", "index").strip())
    return path.read_bytes(), path.stat().st_mtime_ns


def test_private_index_commits_leave_the_real_index_alone(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="d0d0d0", base_commit=info.head_commit, dest=dest)
    real = _index(dest)
    (dest / "src" / "app.py").write_text("def main():\n    return 3\n")
    first = commit_paths(dest, ["src/app.py"], "checkpoint", private_index=True)
    (dest / "new.py").write_text("n\n")
    second = commit_all(dest, "final", private_index=True)
    assert first is not None and second is not None
    assert git(dest, "show", "--name-only", "--format=", second).split() == ["new.py"]
    assert _index(dest) == real  # still the base: review sees every change as pending
    assert git(dest, "diff", "--cached", info.head_commit) == ""
    assert commit_all(dest, "nothing new", private_index=True) is None


def test_private_index_starts_from_a_commit_made_meanwhile(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="d1d1d1", base_commit=info.head_commit, dest=dest)
    (dest / "a.py").write_text("a\n")
    (dest / "b.py").write_text("b\n")
    assert commit_all(dest, "agent", private_index=True) is not None
    # A review commit through the real index: only a.py accepted.
    git(dest, "add", "a.py")
    git(dest, "commit", "-q", "-m", "review")
    (dest / "c.py").write_text("c\n")
    sha = commit_paths(dest, ["c.py"], "checkpoint", private_index=True)
    assert sha is not None
    # b.py is not on the branch any more (the review commit left it out), c.py is new.
    assert git(dest, "ls-tree", "--name-only", sha, "--", "a.py", "b.py", "c.py").split() == [
        "a.py",
        "c.py",
    ]


def test_a_same_size_edit_in_the_index_second_is_committed(repo: Path, tmp_path: Path) -> None:
    """The private index is a copy of the real one that keeps its mtime: a copy dated now made
    git trust the stat info and commit the base content, once in ~40 runs (when a second
    ended between the checkout and the copy)."""
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="d2d2d2", base_commit=info.head_commit, dest=dest)
    same_size_edit_in_the_index_second(dest, "src/app.py", "def main():\n    return 7\n")
    sha = commit_all(dest, "agent", private_index=True)
    assert sha is not None
    assert git(dest, "show", f"{sha}:src/app.py") == "def main():\n    return 7\n"


def test_private_index_seeded_from_a_real_index_behind_the_files(
    repo: Path, tmp_path: Path
) -> None:
    """A re-added worktree in review: real index at the base, files and HEAD ahead of it."""
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="d3d3d3", base_commit=info.head_commit, dest=dest)
    (dest / "src" / "app.py").write_text("def main():\n    return 4\n")
    assert commit_all(dest, "agent", private_index=True) is not None
    private = Path(
        git(dest, "rev-parse", "--path-format=absolute", "--git-path", AGENT_INDEX).strip()
    )
    private.unlink()  # as in a worktree added again for the branch
    (dest / "more.py").write_text("m\n")
    sha = commit_paths(dest, ["more.py"], "checkpoint", private_index=True)
    assert sha is not None
    assert git(dest, "show", "--name-only", "--format=", sha).split() == ["more.py"]
    assert git(dest, "diff", "--cached", "--name-only", info.head_commit) == ""


def test_commit_staged_with_the_private_index_commits_what_it_holds(
    repo: Path, tmp_path: Path
) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="d2d2d2", base_commit=info.head_commit, dest=dest)
    (dest / "a.py").write_text("a\n")
    tip = commit_all(dest, "checkpoint", private_index=True)
    git(dest, "reset", "--soft", "--quiet", info.head_commit)  # what finalize_branch does
    squashed = commit_staged(dest, "squashed", private_index=True)
    assert squashed is not None and squashed != tip
    assert git(dest, "rev-parse", f"{squashed}^{{tree}}") == git(
        dest, "rev-parse", f"{tip}^{{tree}}"
    )


def test_commit_refuses_the_main_checkout(repo: Path) -> None:
    before = snapshot(repo)
    with pytest.raises(CursorishError, match="main checkout"):
        commit_all(repo, "oops")
    assert snapshot(repo) == before


def test_a_commit_keeps_the_message_as_given_and_logs_it(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="e1e1e1", base_commit=info.head_commit, dest=dest)
    (dest / "a.py").write_text("a\n")
    message = "# Heading from a markdown task\n\nbody line\n\nCursorish-Agent: e1e1e1"
    sha = commit_all(dest, message, private_index=True)
    assert sha is not None
    assert git(dest, "log", "-1", "--format=%B", sha).strip() == message  # no '#' stripping
    assert "commit: # Heading from a markdown task" in git(dest, "reflog", "-1", "HEAD")


def test_a_branch_moved_meanwhile_is_never_overwritten(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review commit lands between the agent reading the tip and moving the branch."""
    from cursorish.gitops import agent_commits

    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="e2e2e2", base_commit=info.head_commit, dest=dest)
    (dest / "agent.py").write_text("agent\n")
    (dest / "review.py").write_text("review\n")
    real_commit = agent_commits._commit_index
    calls = 0

    def review_commit_first(*args: object, **kwargs: object) -> str | None:
        nonlocal calls
        calls += 1
        if calls == 1:  # the user commits in review just now
            git(dest, "add", "review.py")
            git(dest, "commit", "-q", "-m", "review")
        return real_commit(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(agent_commits, "_commit_index", review_commit_first)
    sha = commit_paths(dest, ["agent.py"], "checkpoint", private_index=True)
    review = git(dest, "rev-parse", "HEAD~1").strip()
    assert calls == 2  # the first try saw the branch move and started again from its tip
    assert sha == git(dest, "rev-parse", "HEAD").strip()
    assert git(dest, "log", "-1", "--format=%s", review).strip() == "review"
    assert git(dest, "ls-tree", "--name-only", sha, "--", "agent.py", "review.py").split() == [
        "agent.py",
        "review.py",
    ]


def test_commits_leave_out_files_git_refuses_and_keep_the_rest(repo: Path, tmp_path: Path) -> None:
    # A command run in the worktree may write names git refuses (".GIT/x"): they must not stop
    # the agent's other files from being committed.
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="c0ffe3", base_commit=info.head_commit, dest=dest)
    for name in (".GIT/config", "git~1/x"):
        (dest / name).parent.mkdir()
        (dest / name).write_text("planted\n")
    (dest / "src" / "app.py").write_text("def main():\n    return 3\n")
    sha = commit_all(dest, "everything git accepts", private_index=True)
    assert sha is not None
    assert git(dest, "show", "--name-only", "--format=", sha).split() == ["src/app.py"]
    (dest / "new.py").write_text("x = 1\n")
    again = commit_paths(dest, ["new.py", ".GIT/config"], "checkpoint", private_index=True)
    assert again is not None
    assert git(dest, "show", "--name-only", "--format=", again).split() == ["new.py"]
