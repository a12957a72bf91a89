"""Where the per-repository state lives."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from cursorish.store.db import Store
from cursorish.store.paths import cursorish_home, repo_key, repo_state_dir


def test_home_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSORISH_HOME", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert cursorish_home() == tmp_path / "explicit"
    monkeypatch.delenv("CURSORISH_HOME")
    assert cursorish_home() == tmp_path / "xdg" / "cursorish"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cursorish_home() == tmp_path / "home" / ".local" / "share" / "cursorish"


def test_state_dir_is_keyed_by_realpath_of_common_dir(tmp_path: Path) -> None:
    common = tmp_path / "my proj" / ".git"
    common.mkdir(parents=True)
    link = tmp_path / "alias"
    link.symlink_to(tmp_path / "my proj")
    digest = hashlib.sha1(os.fsencode(os.path.realpath(common))).hexdigest()[:10]
    state = repo_state_dir(common)
    assert state == cursorish_home() / "repos" / f"my_proj-{digest}"
    assert state.is_dir()
    assert repo_state_dir(link / ".git") == state
    assert repo_key(tmp_path / "bare.git").startswith("bare-")


def test_for_repo_opens_store_in_state_dir(tmp_path: Path) -> None:
    common = tmp_path / "r" / ".git"
    common.mkdir(parents=True)
    with Store.for_repo(common) as s:
        assert s.path == repo_state_dir(common) / "store.db"
        assert s.path.exists()
