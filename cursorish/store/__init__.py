"""Per-repository SQLite store (tasks, agents, transcripts, usage) and its location."""

from __future__ import annotations

from cursorish.store.db import Store
from cursorish.store.paths import cursorish_home, repo_state_dir, store_path, worktrees_dir

__all__ = ["Store", "cursorish_home", "repo_state_dir", "store_path", "worktrees_dir"]
