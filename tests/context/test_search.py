"""Worktree search: git grep and the Python fallback agree and respect .gitignore and symlinks."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.context.search import search_worktree
from cursorish.gitops.worktrees import tracked_files


@pytest.fixture
def repo(tmp_path: Path, make_repo: Callable[..., Path]) -> Path:
    root = make_repo(
        tmp_path,
        {
            "src/app.py": "def main():\n    return NEEDLE\n",
            "src/deep/util.py": "x = 1  # needle lower\n",
            "README.md": "no match here\n",
            ".gitignore": "build/\n",
        },
    )
    (root / "new_untracked.py").write_text("NEEDLE = 2\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("NEEDLE ignored\n")
    (root / "blob.bin").write_bytes(b"NEEDLE\x00\x01")
    outside = root.parent / "outside.txt"
    outside.write_text("NEEDLE outside\n")
    os.symlink(outside, root / "link.txt")
    return root


def _found(root: Path, **kwargs: object) -> set[tuple[str, int]]:
    matches, _cut = search_worktree(root, **kwargs)  # type: ignore[arg-type]
    return {(m.path, m.line) for m in matches}


@pytest.mark.parametrize("engine", ["git", "python"])
def test_tracked_and_untracked_but_not_ignored_binary_or_symlinked(repo: Path, engine: str) -> None:
    lister = tracked_files if engine == "python" else None
    assert _found(repo, pattern="NEEDLE", list_files=lister) == {
        ("src/app.py", 2),
        ("new_untracked.py", 1),
    }


@pytest.mark.parametrize("engine", ["git", "python"])
def test_ignore_case_fixed_string_and_glob(repo: Path, engine: str) -> None:
    lister = tracked_files if engine == "python" else None
    assert _found(repo, pattern="needle", ignore_case=True, glob="util.py", list_files=lister) == {
        ("src/deep/util.py", 1)
    }
    assert _found(repo, pattern="x = 1  #", regex=False, list_files=lister) == {
        ("src/deep/util.py", 1)
    }


def test_match_cap_reports_the_cut(repo: Path) -> None:
    matches, cut = search_worktree(repo, "e", max_matches=2)
    assert len(matches) == 2 and cut


def test_invalid_regex_raises_re_error(repo: Path) -> None:
    with pytest.raises(re.error):
        search_worktree(repo, "(unclosed")
