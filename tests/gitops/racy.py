"""Set up git's racy-clean case on purpose: a same-size edit that the stat info cannot see.

git compares an entry's stat info (mtime in whole seconds unless built with USE_NSEC, size,
inode; ctime too unless `core.trustctime` is off) and looks at the content only when the entry
is as new as the index file itself. Here the entry, the index file and the edited file all
carry one mtime in the past, so only a copy of the index dated now (wrong) trusts the stat.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import git


def same_size_edit_in_the_index_second(worktree: Path, path: str, content: str) -> None:
    """Rewrite `path` (same size as now) so that only git's racy check can see the change."""
    git(worktree, "config", "core.trustctime", "false")  # ctime cannot be set; mtime can
    file = worktree / path
    assert len(content.encode()) == file.stat().st_size, "the edit must keep the size"
    tick = file.stat().st_mtime_ns - 100 * 10**9
    os.utime(file, ns=(tick, tick))
    git(worktree, "update-index", "--refresh")  # the entry records `tick`
    index = git(worktree, "rev-parse", "--path-format=absolute", "--git-path", "index").strip()
    os.utime(index, ns=(tick, tick))  # ... and the index was written in that same second
    file.write_text(content, encoding="utf-8")
    os.utime(file, ns=(tick, tick))
