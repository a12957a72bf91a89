"""Open what a command works on: the repository a path names, its configuration and its store.

Every front end that reads or changes agents of a repository (tasks, `chat`, the app, the
demo, `log`, `agents`, `gc`, `branches`, `review`, `merge`, `compare`) and the benchmarks open
the three through `open_repo_store`. The repository is opened at once; the configuration and
the store when first used, so a command that checks its settings before it needs the store
reports a configuration error before the store (and its state folder) is created, and a
command that needs no configuration never reads it. The store is closed when the block ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cursorish.gitops.repo import RepoInfo, open_repo
from cursorish.store.db import Store

if TYPE_CHECKING:
    from cursorish.config.layers import Config


class OpenedRepo:
    """A repository, with its configuration and its store each opened on first use."""

    def __init__(self, repo: RepoInfo, flags: Mapping[str, Any]) -> None:
        self.repo = repo
        self._flags = dict(flags)
        self._cfg: Config | None = None
        self._store: Store | None = None

    @property
    def cfg(self) -> Config:
        """The layered configuration with the opener's flags on top (ConfigError, exit 8,
        when a file is malformed); read once, later changes (`override`) are kept."""
        if self._cfg is None:
            from cursorish.config.layers import load_config

            self._cfg = load_config(self.repo.root, self._flags)
        return self._cfg

    @property
    def store(self) -> Store:
        """The repository's store, created on first use."""
        if self._store is None:
            self._store = Store.for_repo(self.repo.git_common_dir)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


@contextmanager
def open_repo_store(
    repo: str | Path, flags: Mapping[str, Any] | None = None
) -> Iterator[OpenedRepo]:
    """The repository `repo` names (`~` expanded; NotARepoError, exit 4, when it is not one),
    its configuration with `flags` on top and its store; the store is closed when the block
    ends, whether it ends normally or by an exception."""
    opened = OpenedRepo(open_repo(Path(repo).expanduser()), flags or {})
    try:
        yield opened
    finally:
        opened.close()
