"""open_repo against real repositories: refusals with precise messages, HEAD, dirtiness."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.errors import ExitCode, NotARepoError
from cursorish.gitops.repo import open_repo
from tests.conftest import git

MakeRepo = Callable[..., Path]


def test_clean_repo(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"a.py": "x = 1\n"})
    info = open_repo(root)
    assert info.root == root
    assert info.git_common_dir == Path(os.path.realpath(root / ".git"))
    assert info.head_commit == git(root, "rev-parse", "HEAD").strip()
    assert info.head_branch == "main"
    assert (info.dirty, info.dirty_summary) == (False, "clean")


def test_opened_from_a_subdirectory(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"pkg/mod.py": "x = 1\n"})
    assert open_repo(root / "pkg").root == root


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(NotARepoError, match="does not exist") as info:
        open_repo(tmp_path / "nope")
    assert info.value.exit_code == ExitCode.NOT_A_REPO


def test_not_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    # Stop the search at tmp_path, in case the tmp dir itself lives inside a repository.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(NotARepoError) as info:
        open_repo(plain)
    assert info.value.message == (f"not a git repository: {plain} (run `git init` or pass --repo)")


def test_no_commits_yet(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"a.py": "x\n"}, commit=False)
    with pytest.raises(NotARepoError, match="has no commits yet: make a first commit"):
        open_repo(root)


def test_bare_repository(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    with pytest.raises(NotARepoError, match="bare repository"):
        open_repo(bare)


def test_dirty_detection(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(
        tmp_path, {"a.py": "a\n", "b.py": "b\n", "c.py": "c\n", ".gitignore": "*.log\n"}
    )
    (root / "a.py").write_text("changed\n")
    (root / "b.py").write_text("staged\n")
    git(root, "add", "b.py")
    (root / "c.py").unlink()
    (root / "new file.txt").write_text("n\n")
    (root / "ignored.log").write_text("i\n")
    info = open_repo(root)
    assert info.dirty
    assert info.dirty_summary == "2 modified, 1 deleted, 1 untracked"


def test_only_ignored_files_is_clean(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {".gitignore": "build/\n"})
    (root / "build").mkdir()
    (root / "build" / "out.o").write_text("x")
    assert open_repo(root).dirty is False


def test_staged_new_file_and_rename(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"old.py": "content that is long enough\n"})
    git(root, "mv", "old.py", "new.py")
    (root / "added.py").write_text("x\n")
    git(root, "add", "added.py")
    assert open_repo(root).dirty_summary == "1 added, 1 renamed"


def test_detached_head(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"a.py": "1\n"})
    first = git(root, "rev-parse", "HEAD").strip()
    (root / "a.py").write_text("2\n")
    git(root, "commit", "-qam", "second")
    git(root, "checkout", "-q", "--detach", first)
    info = open_repo(root)
    assert info.head_branch is None
    assert info.head_commit == first


def test_repo_with_a_submodule(tmp_path: Path, make_repo: MakeRepo) -> None:
    sub = make_repo(tmp_path, {"lib.py": "x\n"}, name="sub")
    root = make_repo(tmp_path, {"a.py": "1\n"})
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    git(root, "commit", "-qm", "add submodule")
    info = open_repo(root)
    assert (info.dirty, info.root) == (False, root)
    (root / "vendor" / "sub" / "lib.py").write_text("changed\n")
    assert open_repo(root).dirty_summary == "1 modified"
