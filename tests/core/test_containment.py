"""Containment: every escape route out of a worktree is refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cursorish.core.containment import resolve_in_worktree
from cursorish.errors import PathEscapeError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    wt = tmp_path / "wt"
    (wt / "src").mkdir(parents=True)
    (wt / "src" / "a.py").write_text("x = 1\n")
    (wt / ".git").write_text("gitdir: elsewhere\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    return wt


def test_plain_relative_path_resolves_inside(root: Path) -> None:
    assert resolve_in_worktree(root, "src/a.py") == (root / "src" / "a.py").resolve()


def test_inner_dotdot_that_stays_inside_is_allowed(root: Path) -> None:
    assert resolve_in_worktree(root, "src/../src/a.py") == (root / "src" / "a.py").resolve()


@pytest.mark.parametrize("name", ["/etc/passwd", "\\etc\\passwd", "C:/x", "~/.ssh/id_rsa"])
def test_absolute_and_home_paths_are_refused(root: Path, name: str) -> None:
    with pytest.raises(PathEscapeError):
        resolve_in_worktree(root, name)


@pytest.mark.parametrize("name", ["../secret.txt", "src/../../secret.txt", "..", "../wt2/x"])
def test_dotdot_escape_is_refused(root: Path, name: str) -> None:
    with pytest.raises(PathEscapeError, match="outside the worktree"):
        resolve_in_worktree(root, name)


@pytest.mark.parametrize("name", [".git", ".git/config", "src/.git/hooks/pre-commit", "./.git"])
def test_git_dir_is_refused(root: Path, name: str) -> None:
    with pytest.raises(PathEscapeError, match=r"\.git"):
        resolve_in_worktree(root, name)


def test_symlinked_file_pointing_out_is_refused(root: Path, tmp_path: Path) -> None:
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    with pytest.raises(PathEscapeError, match="symlink"):
        resolve_in_worktree(root, "link.txt")


def test_symlinked_directory_pointing_out_is_refused_for_new_files(
    root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / "out")
    with pytest.raises(PathEscapeError, match="symlink"):
        resolve_in_worktree(root, "out/new_file.py")


def test_symlink_into_dot_git_is_refused(root: Path) -> None:
    os.symlink(root / ".git", root / "innocent")
    with pytest.raises(PathEscapeError, match=r"\.git"):
        resolve_in_worktree(root, "innocent")


@pytest.mark.parametrize("name", ["", "   ", "a\x00b", "."])
def test_empty_nul_and_root_are_refused(root: Path, name: str) -> None:
    with pytest.raises(PathEscapeError):
        resolve_in_worktree(root, name)


@pytest.mark.parametrize(
    "name",
    [
        ".GIT/x",
        "src/.Git/config",
        "git~1/x",
        "GIT~1/hooks/post-commit",
        ".git./x",
        ".git /x",
        ".git. . /x",
        ".git:stream/x",
        "src/\u200c.git/x",
        ".g\u200dit/x",
        ".GI\ufeffT",
    ],
)
def test_paths_git_refuses_are_refused_with_the_reason(root: Path, name: str) -> None:
    with pytest.raises(PathEscapeError, match="git refuses this path"):
        resolve_in_worktree(root, name)


@pytest.mark.parametrize(
    "name", [".gitignore", ".github/workflows/ci.yml", "git~2/x", "a.git/x", "git/x", ".gitx/y"]
)
def test_names_that_only_look_like_git_are_allowed(root: Path, name: str) -> None:
    assert resolve_in_worktree(root, name) == root.resolve() / name
