"""Parsing `git diff` into files and hunks, hunk ids, and single-hunk patches that git applies."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cursorish.gitops.hunks import diff_files, parse_diff
from tests.conftest import create_repo, git

LINES = "".join(f"line {i}\n" for i in range(1, 41))


def _apply_cached(root: Path, patch: bytes) -> None:
    done = subprocess.run(["git", "apply", "--cached", "-"], cwd=root, input=patch, check=False)
    assert done.returncode == 0


def test_two_hunks_in_one_file_with_line_numbers(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.txt": LINES})
    (root / "a.txt").write_text(LINES.replace("line 5\n", "five\n").replace("line 30\n", ""))
    (f,) = diff_files(root)
    assert (f.path, f.status, f.binary) == ("a.txt", "M", False)
    first, second = f.hunks
    assert (first.added, first.deleted, second.added, second.deleted) == (1, 1, 0, 1)
    removed = next(line for line in first.lines if line.kind == "-")
    added = next(line for line in first.lines if line.kind == "+")
    assert (removed.text, removed.old_no, removed.new_no) == ("line 5", 5, None)
    assert (added.text, added.old_no, added.new_no) == ("five", None, 5)
    assert first.header.startswith("@@ -2,7 +2,7 @@")


def test_hunk_id_is_stable_when_another_hunk_is_staged_first(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.txt": LINES})
    (root / "a.txt").write_text(LINES.replace("line 5\n", "a\nb\nc\n").replace("line 30\n", "X\n"))
    (f,) = diff_files(root)
    first, second = f.hunks
    _apply_cached(root, f.patch(first))
    (after,) = diff_files(root)  # index vs worktree: only the second hunk is left
    assert [h.id for h in after.hunks] == [second.id]
    assert after.hunks[0].old_start != second.old_start  # its line numbers did move
    (staged,) = diff_files(root, "--cached")
    assert [h.id for h in staged.hunks] == [first.id]


def test_single_hunk_patch_reverts_only_that_hunk(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.txt": LINES})
    changed = LINES.replace("line 5\n", "five\n").replace("line 30\n", "thirty\n")
    (root / "a.txt").write_text(changed)
    (f,) = diff_files(root)
    patch = f.patch(f.hunks[1])
    done = subprocess.run(["git", "apply", "-R", "-"], cwd=root, input=patch, check=False)
    assert done.returncode == 0
    assert (root / "a.txt").read_text() == LINES.replace("line 5\n", "five\n")


def test_path_with_space_crlf_and_non_utf8_round_trip(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {})
    (root / "sp ace.txt").write_bytes(b"caf\xe9\r\nx\r\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "bytes")
    (root / "sp ace.txt").write_bytes(b"caf\xe9\r\ny\r\n")
    (f,) = diff_files(root)
    assert f.path == "sp ace.txt"
    (hunk,) = f.hunks
    assert [line.text for line in hunk.lines if line.kind == "-"] == ["x"]  # \r dropped
    assert hunk.lines[0].text.encode("utf-8", "surrogateescape") == b"caf\xe9"
    _apply_cached(root, f.patch(hunk))
    assert git(root, "diff", "--name-only") == ""  # index == worktree, bytes and all


def test_quoted_unicode_path(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"dir/naïve file.py": "x = 1\n"})
    (root / "dir" / "naïve file.py").write_text("x = 2\n")
    (f,) = diff_files(root)
    assert f.path == "dir/naïve file.py"


def test_no_newline_at_end_of_file_is_marked(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.txt": "one\ntwo"})
    (root / "a.txt").write_text("one\ntwo\nthree")
    (f,) = diff_files(root)
    (hunk,) = f.hunks
    assert [(ln.kind, ln.text, ln.no_newline) for ln in hunk.lines] == [
        (" ", "one", False),
        ("-", "two", True),
        ("+", "two", False),
        ("+", "three", True),
    ]
    _apply_cached(root, f.patch(hunk))
    assert git(root, "diff", "--name-only") == ""


def test_added_deleted_renamed_and_binary_files(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"gone.txt": "bye\n", "old.py": LINES, "img.bin": "x"})
    (root / "gone.txt").unlink()
    (root / "old.py").rename(root / "new.py")
    (root / "img.bin").write_bytes(b"\x00\x01\x02")
    (root / "fresh.txt").write_text("hello\n")
    git(root, "add", "-A")
    files = {f.path: f for f in diff_files(root, "--cached", "HEAD")}
    assert files["gone.txt"].status == "D"
    assert files["fresh.txt"].status == "A"
    assert files["fresh.txt"].hunks[0].lines[0].text == "hello"
    assert (files["new.py"].status, files["new.py"].old_path) == ("R", "old.py")
    assert files["new.py"].hunks == ()
    assert files["img.bin"].binary


def test_identical_hunks_get_distinct_ids() -> None:
    text = b"".join(
        [
            b"diff --git a/f b/f\n",
            b"--- a/f\n",
            b"+++ b/f\n",
            b"@@ -1 +1 @@\n-x\n+y\n",
            b"@@ -9 +9 @@\n-x\n+y\n",
        ]
    )
    (f,) = parse_diff(text)
    first, second = f.hunks
    assert first.id != second.id
    assert f.patch() == text
