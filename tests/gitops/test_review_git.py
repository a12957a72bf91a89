"""The git steps of review (gitops/review_git.py) in real repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.errors import CursorishError
from cursorish.gitops import review_git as rg
from cursorish.gitops.repo import open_repo
from tests.conftest import git

MakeRepo = Callable[..., Path]


@pytest.fixture
def repo_root(tmp_path: Path, make_repo: MakeRepo) -> Path:
    root = make_repo(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"})
    git(root, "branch", "feature")
    return root


def _worktree(root: Path, tmp_path: Path) -> Path:
    return rg.ensure_review_worktree(open_repo(root), "feature", tmp_path / "wt" / "review-x")


def test_ensure_review_worktree_creates_then_reuses(repo_root: Path, tmp_path: Path) -> None:
    wt = _worktree(repo_root, tmp_path)
    assert (wt / "a.txt").read_text() == "a\n"
    assert rg.is_worktree_on(wt, "feature") and not rg.is_worktree_on(wt, "main")
    assert _worktree(repo_root, tmp_path) == wt
    assert rg.branch_worktrees(repo_root)["feature"] == wt.resolve()


def test_ensure_review_worktree_refuses_a_taken_branch_or_path(
    repo_root: Path, tmp_path: Path
) -> None:
    with pytest.raises(CursorishError, match="checked out in"):
        rg.ensure_review_worktree(open_repo(repo_root), "main", tmp_path / "x")
    (tmp_path / "busy").mkdir()
    with pytest.raises(CursorishError, match="already exists"):
        rg.ensure_review_worktree(open_repo(repo_root), "feature", tmp_path / "busy")
    assert "feature" not in rg.branch_worktrees(repo_root)


def test_review_worktree_path_is_unique_per_branch(tmp_path: Path) -> None:
    assert rg.review_worktree_path(tmp_path, "feature").name == "review-feature"
    assert rg.review_worktree_path(tmp_path, "cursorish/abc").name.startswith(
        "review-cursorish-abc-"
    )
    a = rg.review_worktree_path(tmp_path, "a/b")
    b = rg.review_worktree_path(tmp_path, "a-b")
    weird = rg.review_worktree_path(tmp_path, "x y")
    assert a != b and weird.name.startswith("review-x-y-") and weird.parent == tmp_path


def test_snapshot_trees_sees_untracked_files_and_leaves_the_index_alone(
    repo_root: Path, tmp_path: Path
) -> None:
    wt = _worktree(repo_root, tmp_path)
    index = rg.git_dir(wt) / "index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    (wt / "a.txt").write_text("changed\n")
    (wt / "new.txt").write_text("new\n")
    (wt / "b.txt").unlink()
    index_tree, files_tree = rg.snapshot_trees(wt)
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert index_tree == rg.tree_of(wt, "HEAD") == rg.index_tree(wt)
    diff = rg.tree_diff(wt, index_tree, files_tree)
    assert [(f.path, f.status) for f in diff] == [("a.txt", "M"), ("b.txt", "D"), ("new.txt", "A")]


def test_apply_patch_is_all_or_nothing(repo_root: Path, tmp_path: Path) -> None:
    wt = _worktree(repo_root, tmp_path)
    (wt / "a.txt").write_text("A\n")
    (wt / "b.txt").write_text("B\n")
    index_tree, files_tree = rg.snapshot_trees(wt)
    good, bad = rg.tree_diff(wt, index_tree, files_tree)
    (wt / "b.txt").write_text("something else\n")
    with pytest.raises(CursorishError):
        rg.apply_patch(wt, good.patch() + bad.patch(), cached=False, reverse=True)
    assert (wt / "a.txt").read_text() == "A\n"  # the good half was not applied either
    rg.apply_patch(wt, good.patch(), cached=True, reverse=False)
    assert git(wt, "diff", "--cached", "--name-only") == "a.txt\n"


def test_set_index_and_last_review_commit(repo_root: Path, tmp_path: Path) -> None:
    wt = _worktree(repo_root, tmp_path)
    base = rg.tree_of(wt, "HEAD")
    base_sha = git(wt, "rev-parse", "HEAD").strip()
    (wt / "a.txt").write_text("agent\n")
    git(wt, "commit", "-q", "-am", "agent work")
    assert rg.marker(wt) is None
    rg.set_index(wt, base_sha, base=base_sha)
    assert rg.marker(wt) == base_sha and rg.index_tree(wt) == base
    assert (wt / "a.txt").read_text() == "agent\n"  # files untouched
    assert rg.last_review_commit(wt, base_sha, "feature") is None
    message = "review\n\nCursorish-Review: 0 accepted, 1 rejected\n"
    sha = rg.commit_index(wt, message, author=("U", "u@x"))
    assert rg.last_review_commit(wt, base_sha, "feature") == sha
    assert git(wt, "log", "-1", "--format=%an <%ae>").strip() == "U <u@x>"
    assert rg.tree_of(wt, sha) == base


def test_set_index_keeps_files_the_user_changed(repo_root: Path, tmp_path: Path) -> None:
    wt = _worktree(repo_root, tmp_path)
    base_sha = git(wt, "rev-parse", "HEAD").strip()
    (wt / "a.txt").write_text("agent\n")
    git(wt, "commit", "-q", "-am", "agent work")  # an older run: its index = the branch tip
    (wt / "a.txt").write_text("the user edited it too\n")
    rg.set_index(wt, base_sha, base=base_sha)
    assert rg.index_tree(wt) == rg.tree_of(wt, base_sha)
    assert (wt / "a.txt").read_text() == "the user edited it too\n"
