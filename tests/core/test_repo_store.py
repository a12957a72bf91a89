"""open_repo_store: the one opener of a repository and its store that front ends share."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.core.repo_store import open_repo_store
from cursorish.errors import ExitCode, NotARepoError


def test_opens_the_repository_and_its_store_and_closes_the_store(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    root = make_repo(tmp_path / "proj", {"a.txt": "a\n"})
    with open_repo_store(root / ".") as (repo, store):
        assert repo.root == root.resolve()
        assert store.agents() == []
    with pytest.raises(RuntimeError, match="closed"):
        store.agents()


def test_the_store_is_closed_when_the_block_raises(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    root = make_repo(tmp_path / "proj", {"a.txt": "a\n"})
    with pytest.raises(KeyError), open_repo_store(str(root)) as (_repo, store):
        raise KeyError("boom")
    with pytest.raises(RuntimeError, match="closed"):
        store.agents()


def test_not_a_repository_is_exit_4(tmp_path: Path) -> None:
    with pytest.raises(NotARepoError) as info, open_repo_store(tmp_path):
        pass
    assert info.value.exit_code == ExitCode.NOT_A_REPO
