"""diff_stats and worktree_tree on real commits and worktrees."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cursorish.gitops.agent_commits import commit_all
from cursorish.gitops.diffs import FileStat, diff_stats, worktree_tree
from cursorish.gitops.repo import open_repo
from cursorish.gitops.worktrees import create_worktree
from tests.conftest import git
from tests.gitops.racy import same_size_edit_in_the_index_second

MakeRepo = Callable[..., Path]
LONG = "".join(f"line {i}\n" for i in range(20))


def test_diff_stats_between_commits(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(
        tmp_path,
        {"keep.py": "a\nb\nc\n", "gone.py": "x\n", "old name.py": LONG, "ünï.txt": "1\n"},
    )
    base = git(root, "rev-parse", "HEAD").strip()
    (root / "keep.py").write_text("a\nB\nc\nd\n")
    (root / "gone.py").unlink()
    git(root, "mv", "old name.py", "new name.py")
    (root / "ünï.txt").write_text("1\n2\n")
    (root / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "change")
    stats = {s.path: s for s in diff_stats(root, base)}
    assert stats == {
        "keep.py": FileStat("keep.py", 2, 1, "M"),
        "gone.py": FileStat("gone.py", 0, 1, "D"),
        "new name.py": FileStat("new name.py", 0, 0, "R", old_path="old name.py"),
        "ünï.txt": FileStat("ünï.txt", 1, 0, "M"),
        "blob.bin": FileStat("blob.bin", None, None, "A"),
    }


def test_no_changes(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"a.py": "1\n"})
    assert diff_stats(root, "HEAD", "HEAD") == []


def test_working_tree_stats_leave_the_index_alone(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"a.py": "1\n", ".gitignore": "*.log\n"})
    info = open_repo(root)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="d1ff00", base_commit=info.head_commit, dest=dest)
    (dest / "a.py").write_text("1\n2\n")
    (dest / "new.py").write_text("n\n")
    (dest / "x.log").write_text("ignored\n")
    index = Path(git(dest, "rev-parse", "--path-format=absolute", "--git-path", "index").strip())
    before = index.read_bytes()
    stats = diff_stats(dest, info.head_commit, None)
    assert [(s.path, s.added, s.deleted, s.status) for s in stats] == [
        ("a.py", 1, 0, "M"),
        ("new.py", 1, 0, "A"),
    ]
    assert index.read_bytes() == before
    assert git(dest, "status", "--porcelain") == " M a.py\n?? new.py\n"
    # The same tree that committing everything produces.
    tree = worktree_tree(dest)
    commit_all(dest, "all")
    assert git(dest, "rev-parse", "HEAD^{tree}").strip() == tree
    assert [s.path for s in diff_stats(dest, info.head_commit)] == ["a.py", "new.py"]


def test_worktree_tree_sees_a_same_size_edit_in_the_index_second(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    repo = make_repo(tmp_path, {"app.py": "X = 1\n"})
    dest = tmp_path / "wt"
    info = open_repo(repo)
    create_worktree(info, agent_id="racy01", base_commit=info.head_commit, dest=dest)
    same_size_edit_in_the_index_second(dest, "app.py", "X = 2\n")
    assert git(dest, "show", f"{worktree_tree(dest)}:app.py") == "X = 2\n"
