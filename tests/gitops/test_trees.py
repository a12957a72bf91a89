"""Reading a commit's files without a checkout: what a fresh worktree of it will hold."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from cursorish.gitops.repo import open_repo
from cursorish.gitops.trees import files_at, regular_files_at
from cursorish.gitops.worktrees import create_worktree, tracked_files
from tests.conftest import git

MakeRepo = Callable[..., Path]


def test_files_at_a_commit_are_what_its_checkout_lists(tmp_path: Path, make_repo: MakeRepo) -> None:
    sub = make_repo(tmp_path, {"lib.py": "x\n"}, name="sub")
    root = make_repo(
        tmp_path,
        {"src/app.py": "1\n", "my file.txt": "s\n", "ünïcödé/名前.md": "u\n", "a\nb.txt": "n\n"},
    )
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor")
    git(root, "commit", "-qm", "add submodule")
    base = git(root, "rev-parse", "HEAD").strip()
    # The user's checkout moves on; the base commit's files are what counts.
    (root / "src" / "app.py").unlink()
    (root / "untracked.txt").write_text("u\n")

    listed = files_at(root, base)
    assert listed == sorted(
        [".gitmodules", "a\nb.txt", "my file.txt", "src/app.py", "ünïcödé/名前.md"]
    )
    dest = tmp_path / "wt"
    create_worktree(open_repo(root), agent_id="7ee7ee", base_commit=base, dest=dest)
    assert listed == tracked_files(dest, scan=False)


def test_regular_files_at_skips_symlinks_directories_and_absent_names(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    root = make_repo(tmp_path, {"AGENTS.md": "Use tabs.\n", "CLAUDE.md/notes.txt": "dir\n"})
    os.symlink("/etc/passwd", root / ".cursorrules")
    git(root, "add", ".cursorrules")
    git(root, "commit", "-qm", "a symlink")
    (root / "AGENTS.md").write_text("changed in the checkout, not committed\n")
    base = git(root, "rev-parse", "HEAD").strip()

    found = regular_files_at(root, base, ("AGENTS.md", "CLAUDE.md", ".cursorrules", "NONE.md"))
    assert found == {"AGENTS.md": b"Use tabs.\n"}
    assert regular_files_at(root, base, ()) == {}
