"""Agent worktrees in real repositories; the user's checkout must stay byte-for-byte intact."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.errors import CursorishError
from cursorish.gitops.repo import open_repo
from cursorish.gitops.worktrees import (
    AGENT_INDEX,
    BranchExistsError,
    branch_name,
    commit_all,
    commit_paths,
    commit_staged,
    create_worktree,
    list_worktrees,
    new_agent_id,
    prune_worktrees,
    remove_worktree,
    tracked_files,
    unused_agent_id,
)
from tests.conftest import git, snapshot
from tests.gitops.racy import same_size_edit_in_the_index_second

MakeRepo = Callable[..., Path]


@pytest.fixture
def repo(tmp_path: Path, make_repo: MakeRepo) -> Path:
    root = make_repo(
        tmp_path,
        {
            "src/app.py": "def main():\n    return 1\n",
            "my file.txt": "spaces\n",
            "ünïcödé/名前.md": "unicode\n",
            ".gitignore": "*.log\n",
        },
    )
    # A dirty, realistic checkout: a modified tracked file, an untracked and an ignored one.
    (root / "src" / "app.py").write_text("def main():\n    return 2  # wip\n")
    (root / "notes.txt").write_text("untracked\n")
    (root / "debug.log").write_text("ignored\n")
    return root


def test_ids_and_branch_names() -> None:
    ids = {new_agent_id() for _ in range(50)}
    assert all(len(i) == 6 and int(i, 16) >= 0 for i in ids)
    assert len(ids) > 45
    assert branch_name("a3f9c2") == "cursorish/a3f9c2"


def test_create_commit_leaves_user_checkout_untouched(repo: Path, tmp_path: Path) -> None:
    before = snapshot(repo)
    info = open_repo(repo)
    dest = tmp_path / "state" / "worktrees" / "a3f9c2"
    wt = create_worktree(info, agent_id="a3f9c2", base_commit=info.head_commit, dest=dest)
    assert (wt.path, wt.branch, wt.base_commit) == (dest, "cursorish/a3f9c2", info.head_commit)
    # The worktree starts from the commit, not from the user's uncommitted edits.
    assert (dest / "src" / "app.py").read_text() == "def main():\n    return 1\n"
    assert not (dest / "notes.txt").exists()

    (dest / "src" / "app.py").write_text("def main():\n    return 3\n")
    (dest / "new module.py").write_text("x = 'ü'\n")
    (dest / "trace.log").write_text("ignored in the worktree too\n")
    sha = commit_all(dest, "agent change")
    assert sha is not None

    assert snapshot(repo) == before
    assert git(repo, "rev-parse", "cursorish/a3f9c2").strip() == sha
    assert git(repo, "rev-parse", f"{sha}^").strip() == info.head_commit
    committed = git(repo, "show", "--name-only", "--format=", "-z", sha).split("\0")
    assert sorted(f for f in committed if f) == ["new module.py", "src/app.py"]
    assert git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s", sha).strip() == (
        "cursorish <cursorish@localhost>|cursorish <cursorish@localhost>|agent change"
    )


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


def test_existing_branch_is_an_error(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    git(repo, "branch", "cursorish/dddddd")
    with pytest.raises(BranchExistsError, match="branch 'cursorish/dddddd' already exists"):
        create_worktree(info, agent_id="dddddd", base_commit=info.head_commit, dest=tmp_path / "w")
    assert not (tmp_path / "w").exists()
    assert unused_agent_id(repo) != "dddddd"


def test_existing_destination_is_an_error(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "taken"
    dest.mkdir()
    with pytest.raises(CursorishError, match="already exists"):
        create_worktree(info, agent_id="eeeeee", base_commit=info.head_commit, dest=dest)
    assert "cursorish/eeeeee" not in git(repo, "branch", "--list")


def test_a_destination_that_cannot_be_made_is_an_error(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    (tmp_path / "a-file").write_text("in the way\n")
    with pytest.raises(CursorishError, match=r"cannot create .*a-file: File exists"):
        create_worktree(
            info, agent_id="eeeee1", base_commit=info.head_commit, dest=tmp_path / "a-file" / "w"
        )
    assert "cursorish/eeeee1" not in git(repo, "branch", "--list")


def test_unknown_base_commit_is_an_error(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    with pytest.raises(CursorishError, match="'nosuchref' is not a commit"):
        create_worktree(info, agent_id="ffffff", base_commit="nosuchref", dest=tmp_path / "w")


def test_worktree_from_detached_head(repo: Path, tmp_path: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "--detach")
    info = open_repo(repo)
    assert info.head_branch is None
    wt = create_worktree(info, agent_id="a1a1a1", base_commit=info.head_commit, dest=tmp_path / "w")
    assert wt.base_commit == first


def test_remove_worktree_and_branch(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    wt = create_worktree(info, agent_id="abcdef", base_commit=info.head_commit, dest=dest)
    (dest / "dirty.py").write_text("uncommitted\n")
    remove_worktree(repo, dest, delete_branch=wt.branch)
    assert not dest.exists()
    assert "abcdef" not in git(repo, "worktree", "list")
    assert git(repo, "branch", "--list", wt.branch) == ""


def test_remove_without_force_keeps_a_dirty_worktree(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="abcde0", base_commit=info.head_commit, dest=dest)
    (dest / "dirty.py").write_text("uncommitted\n")
    with pytest.raises(CursorishError):
        remove_worktree(repo, dest, force=False)
    assert (dest / "dirty.py").exists()


def _delete_dir(path: Path) -> None:
    for p in sorted(path.rglob("*"), reverse=True):
        p.unlink() if p.is_file() or p.is_symlink() else p.rmdir()
    path.rmdir()


def test_remove_when_directory_is_gone(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    wt = create_worktree(info, agent_id="111111", base_commit=info.head_commit, dest=tmp_path / "1")
    _delete_dir(wt.path)
    remove_worktree(repo, wt.path, delete_branch=wt.branch)
    assert "111111" not in git(repo, "worktree", "list")
    assert git(repo, "branch", "--list", wt.branch) == ""


def test_prune_reports_forgotten_worktrees(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    gone = create_worktree(
        info, agent_id="222222", base_commit=info.head_commit, dest=tmp_path / "2"
    )
    keep = create_worktree(
        info, agent_id="333333", base_commit=info.head_commit, dest=tmp_path / "3"
    )
    _delete_dir(gone.path)
    assert prune_worktrees(repo) == [str(gone.path)]
    assert prune_worktrees(repo) == []
    listing = git(repo, "worktree", "list")
    assert str(keep.path) in listing and str(gone.path) not in listing


def test_parallel_worktree_creation(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    errors: list[BaseException] = []

    def make(i: int) -> None:
        try:
            create_worktree(
                info, agent_id=f"00000{i}", base_commit=info.head_commit, dest=tmp_path / f"p{i}"
            )
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=make, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert all((tmp_path / f"p{i}" / "src" / "app.py").exists() for i in range(4))


def test_tracked_files(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="f1f1f1", base_commit=info.head_commit, dest=dest)
    (dest / "new one.py").write_text("x\n")
    (dest / "skip.log").write_text("ignored\n")
    (dest / "my file.txt").unlink()
    assert tracked_files(dest) == [".gitignore", "new one.py", "src/app.py", "ünïcödé/名前.md"]


def test_submodule_is_listed_as_no_file_and_worktree_works(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    sub = make_repo(tmp_path, {"lib.py": "x\n"}, name="sub")
    root = make_repo(tmp_path, {"a.py": "1\n"})
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor")
    git(root, "commit", "-qm", "add submodule")
    info = open_repo(root)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="5ab5ab", base_commit=info.head_commit, dest=dest)
    # Submodules are not checked out in agent worktrees: the directory exists but is empty.
    assert (dest / "vendor").is_dir() and list((dest / "vendor").iterdir()) == []
    assert tracked_files(dest) == [".gitmodules", "a.py"]
    (dest / "a.py").write_text("2\n")
    assert commit_all(dest, "edit next to a submodule") is not None
    assert git(dest, "show", "--name-only", "--format=", "HEAD").split() == ["a.py"]


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
    from cursorish.gitops import worktrees

    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="e2e2e2", base_commit=info.head_commit, dest=dest)
    (dest / "agent.py").write_text("agent\n")
    (dest / "review.py").write_text("review\n")
    real_commit = worktrees._commit_index
    calls = 0

    def review_commit_first(*args: object, **kwargs: object) -> str | None:
        nonlocal calls
        calls += 1
        if calls == 1:  # the user commits in review just now
            git(dest, "add", "review.py")
            git(dest, "commit", "-q", "-m", "review")
        return real_commit(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(worktrees, "_commit_index", review_commit_first)
    sha = commit_paths(dest, ["agent.py"], "checkpoint", private_index=True)
    review = git(dest, "rev-parse", "HEAD~1").strip()
    assert calls == 2  # the first try saw the branch move and started again from its tip
    assert sha == git(dest, "rev-parse", "HEAD").strip()
    assert git(dest, "log", "-1", "--format=%s", review).strip() == "review"
    assert git(dest, "ls-tree", "--name-only", sha, "--", "agent.py", "review.py").split() == [
        "agent.py",
        "review.py",
    ]


def test_tracked_files_without_a_scan_reads_the_index_alone(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="f2f2f2", base_commit=info.head_commit, dest=dest)
    assert tracked_files(dest, scan=False) == tracked_files(dest)  # just checked out: the same
    (dest / "new one.py").write_text("x\n")
    assert "new one.py" not in tracked_files(dest, scan=False)
    assert "new one.py" in tracked_files(dest)


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


def test_list_worktrees_reads_branch_detached_and_prunable(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    on_branch = create_worktree(
        info, agent_id="444444", base_commit=info.head_commit, dest=tmp_path / "a b"
    )
    detached = tmp_path / "detached"
    git(repo, "worktree", "add", "--detach", str(detached), info.head_commit)
    gone = create_worktree(
        info, agent_id="555555", base_commit=info.head_commit, dest=tmp_path / "5"
    )
    _delete_dir(gone.path)

    listed = {w.real_path: w for w in list_worktrees(repo)}
    assert list_worktrees(repo)[0].real_path == repo.resolve()  # the main checkout first
    assert listed[on_branch.path.resolve()].branch == on_branch.branch
    assert listed[on_branch.path.resolve()].ref == f"refs/heads/{on_branch.branch}"
    assert listed[detached.resolve()].branch is None
    assert listed[detached.resolve()].prunable is False
    assert listed[gone.path.resolve()].prunable is True
