"""open_repo_store: the one opener of a repository, its configuration and its store that
front ends and benchmarks share."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.core.repo_store import open_repo_store
from cursorish.errors import ConfigError, ExitCode, NotARepoError
from cursorish.store.paths import cursorish_home


def _break_user_config() -> None:
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "cursorish" / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("planner = \n")  # not valid TOML


def test_opens_the_repository_and_its_store_and_closes_the_store(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    root = make_repo(tmp_path / "proj", {"a.txt": "a\n"})
    with open_repo_store(root / ".") as opened:
        repo, store = opened.repo, opened.store
        assert repo.root == root.resolve()
        assert store.agents() == []
        assert opened.store is store
    with pytest.raises(RuntimeError, match="closed"):
        store.agents()


def test_the_store_is_closed_when_the_block_raises(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    root = make_repo(tmp_path / "proj", {"a.txt": "a\n"})
    with pytest.raises(KeyError), open_repo_store(str(root)) as opened:
        store = opened.store
        raise KeyError("boom")
    with pytest.raises(RuntimeError, match="closed"):
        store.agents()


def test_not_a_repository_is_exit_4(tmp_path: Path) -> None:
    with pytest.raises(NotARepoError) as info, open_repo_store(tmp_path):
        pass
    assert info.value.exit_code == ExitCode.NOT_A_REPO


def test_the_configuration_has_the_flags_on_top_and_is_read_once(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    root = make_repo(tmp_path / "proj", {"a.txt": "a\n"})
    with open_repo_store(root, {"planner": "flag/model"}) as opened:
        cfg = opened.cfg
        assert (cfg["planner"], cfg.source("planner")) == ("flag/model", "--planner")
        cfg.override("api_key", "k", "test")
        assert opened.cfg is cfg and opened.cfg["api_key"] == "k"


def test_a_configuration_error_comes_before_the_store_exists(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    root = make_repo(tmp_path / "proj", {"a.txt": "a\n"})
    _break_user_config()
    with pytest.raises(ConfigError, match="not valid TOML") as info, open_repo_store(root) as o:
        _ = o.cfg
        _ = o.store  # never reached: the store and its state folder are not created
    assert info.value.exit_code == ExitCode.CONFIG
    assert not (cursorish_home() / "repos").exists()


def test_a_command_that_needs_no_configuration_never_reads_it(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    root = make_repo(tmp_path / "proj", {"a.txt": "a\n"})
    _break_user_config()
    with open_repo_store(root) as opened:
        assert opened.store.agents() == []
    assert (cursorish_home() / "repos").is_dir()
