"""Allocating a new agent in a real repository and store: an id is used only when its row,
its branch and its worktree directory are all free."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cursorish.core import worktree_prep
from cursorish.core.worktree_prep import allocate_agent, create_agent_worktree
from cursorish.gitops.repo import open_repo
from cursorish.store.db import Store
from cursorish.store.paths import worktrees_dir
from tests.conftest import git
from tests.store.test_db import _new_agent

MakeRepo = Callable[..., Path]


def test_allocate_skips_ids_whose_row_branch_or_directory_exists(
    tmp_path: Path, make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path, {"a.py": "x = 1\n"})
    repo = open_repo(root)
    git(root, "branch", "cursorish/aaaaaa")
    (worktrees_dir(repo.git_common_dir) / "bbbbbb").mkdir(parents=True)
    ids: Iterator[str] = iter(["aaaaaa", "bbbbbb", "cccccc", "dddddd"])
    monkeypatch.setattr(worktree_prep, "new_agent_id", lambda: next(ids))
    with Store.for_repo(repo.git_common_dir) as store:
        _new_agent(store, "cccccc")  # a row only: no branch, no directory
        agent_id, dest, branch = allocate_agent(store, repo)
    assert (agent_id, branch) == ("dddddd", "cursorish/dddddd")
    assert dest == worktrees_dir(repo.git_common_dir) / "dddddd" and not dest.exists()
    create_agent_worktree(repo, agent_id, dest, branch, repo.head_commit)
    assert (dest / "a.py").read_text() == "x = 1\n"
    assert git(dest, "symbolic-ref", "HEAD").strip() == "refs/heads/cursorish/dddddd"
