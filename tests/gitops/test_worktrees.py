"""Agent worktrees in real repositories; the user's checkout must stay byte-for-byte intact."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from cursorish.errors import CursorishError
from cursorish.gitops.agent_commits import commit_all
from cursorish.gitops.repo import open_repo
from cursorish.gitops.worktrees import (
    BranchExistsError,
    branch_name,
    create_worktree,
    list_worktrees,
    new_agent_id,
    prune_worktrees,
    remove_worktree,
    tracked_files,
    unused_agent_id,
)
from tests.conftest import git, snapshot
from tests.gitops.conftest import MakeRepo


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


def test_tracked_files_without_a_scan_reads_the_index_alone(repo: Path, tmp_path: Path) -> None:
    info = open_repo(repo)
    dest = tmp_path / "wt"
    create_worktree(info, agent_id="f2f2f2", base_commit=info.head_commit, dest=dest)
    assert tracked_files(dest, scan=False) == tracked_files(dest)  # just checked out: the same
    (dest / "new one.py").write_text("x\n")
    assert "new one.py" not in tracked_files(dest, scan=False)
    assert "new one.py" in tracked_files(dest)


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
