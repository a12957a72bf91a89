"""Fixtures of the gitops tests: a repository whose checkout is as dirty as a user's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

MakeRepo = Callable[..., Path]


@pytest.fixture
def repo(tmp_path: Path, make_repo: MakeRepo) -> Path:
    root = make_repo(
        tmp_path,
        {
            "src/app.py": "def main():\n    return 1\n",
            "my file.txt": "spaces\n",
            "ünïcödé/名前.md": "unicode\n",
            ".gitignore": "*.log\n",
        },
    )
    # A dirty, realistic checkout: a modified tracked file, an untracked and an ignored one.
    (root / "src" / "app.py").write_text("def main():\n    return 2  # wip\n")
    (root / "notes.txt").write_text("untracked\n")
    (root / "debug.log").write_text("ignored\n")
    return root
