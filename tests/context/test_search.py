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


def test_a_catastrophic_pattern_ends_and_still_finds_the_rest(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    # `(a+)+$` on "aaa...b" backtracks exponentially: git's PCRE gives up on that file (match
    # limit), and the search must go on in linear time, never in Python's backtracking `re`.
    # A child process with a deadline: a hang here must fail the test, not the whole run.
    import subprocess
    import sys

    root = make_repo(tmp_path, {"evil.txt": "a" * 5000 + "b\n", "ok.txt": "aaa\n"})
    code = (
        "import sys; from pathlib import Path\n"
        "from cursorish.context.search import search_worktree\n"
        "from cursorish.gitops.worktrees import tracked_files\n"
        "for lister in (None, tracked_files):\n"
        "    found, _ = search_worktree(Path(sys.argv[1]), '(a+)+$', list_files=lister)\n"
        "    print(sorted((m.path, m.line) for m in found))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[('ok.txt', 1)]"] * 2


def test_a_pattern_only_a_backtracking_engine_runs_is_refused_with_the_reason(
    repo: Path,
) -> None:
    from cursorish.context.search import PatternError

    with pytest.raises(PatternError, match="backreferences or lookaround"):
        search_worktree(repo, r"(N)EEDLE\1", list_files=tracked_files)
