"""Open what a command works on: the repository a path names and its store, closed on exit.

Every front end that reads or changes agents of a repository (`log`, `agents`, `gc`,
`branches`, `review`, `merge`, `compare`, `chat`) opens the two the same way through here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cursorish.gitops.repo import RepoInfo, open_repo
from cursorish.store.db import Store


@contextmanager
def open_repo_store(repo: str | Path) -> Iterator[tuple[RepoInfo, Store]]:
    """(repository, store) for `repo` as the user gave it (`~` expanded); NotARepoError
    (exit 4) when it is not a repository. The store is closed when the block ends."""
    info = open_repo(Path(repo).expanduser())
    with Store.for_repo(info.git_common_dir) as store:
        yield info, store
