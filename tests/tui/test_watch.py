"""WorktreeWatcher: edits outside cursorish are reported once per burst; .git, reads and a
stopped watcher are silent."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from cursorish.tui.watch import WorktreeWatcher
from tests.conftest import create_repo, git

QUIET_S = 0.8  # how long a "nothing happens" check waits


class _Calls:
    def __init__(self) -> None:
        self.count = 0
        self.event = threading.Event()

    def __call__(self) -> None:
        self.count += 1
        self.event.set()


def test_an_edit_is_reported_and_a_burst_is_one_call(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.py": "x = 1\n", "sub/b.py": "y = 1\n"})
    calls = _Calls()
    with WorktreeWatcher(root, calls, debounce_s=0.2, max_delay_s=0.6):
        started = time.monotonic()
        for i in range(10):
            (root / "a.py").write_text(f"x = {i}\n")
            (root / "sub" / "b.py").write_text(f"y = {i}\n")
        assert calls.event.wait(5)
        elapsed = time.monotonic() - started
        time.sleep(QUIET_S)
    assert calls.count == 1, f"{calls.count} calls for one burst"
    print(f"reported after {elapsed:.3f} s")


def test_a_new_file_in_a_new_directory_is_reported(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    calls = _Calls()
    with WorktreeWatcher(root, calls, debounce_s=0.1):
        (root / "new" / "deep").mkdir(parents=True)
        (root / "new" / "deep" / "c.py").write_text("z = 1\n")
        assert calls.event.wait(5)


def test_git_dir_and_reads_are_ignored(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    calls = _Calls()
    with WorktreeWatcher(root, calls, debounce_s=0.1):
        (root / ".git" / "scratch").write_text("ignored\n")
        git(root, "--no-optional-locks", "diff")
        (root / "a.py").read_text()
        time.sleep(QUIET_S)
        assert calls.count == 0
        (root / "a.py").write_text("x = 2\n")  # and the watcher is alive
        assert calls.event.wait(5)


def test_a_stopped_watcher_is_silent(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    calls = _Calls()
    watcher = WorktreeWatcher(root, calls, debounce_s=0.1)
    watcher.start()
    (root / "a.py").write_text("x = 2\n")
    watcher.stop()  # a pending timer is cancelled too
    (root / "a.py").write_text("x = 3\n")
    time.sleep(QUIET_S)
    assert calls.count == 0


def test_only_the_tree_is_watched_not_git_or_ignored_output(tmp_path: Path) -> None:
    root = create_repo(
        tmp_path / "r",
        {".gitignore": "node_modules/\n", "src/a.py": "x = 1\n", "docs/x.md": "x\n"},
    )
    (root / "node_modules" / "pkg").mkdir(parents=True)
    calls = _Calls()
    with WorktreeWatcher(root, calls, debounce_s=0.1) as watcher:
        assert watcher.watched() == ["docs", "src"]
        (root / "node_modules" / "pkg" / "index.js").write_text("x\n")
        time.sleep(QUIET_S)
        assert calls.count == 0


def test_a_top_level_directory_made_later_is_watched_deep_down(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    calls = _Calls()
    with WorktreeWatcher(root, calls, debounce_s=0.1) as watcher:
        (root / "pkg").mkdir()
        deadline = time.monotonic() + 5
        while watcher.watched() != ["pkg"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert watcher.watched() == ["pkg"]
        time.sleep(QUIET_S)  # the burst of making it is over
        calls.event.clear()
        before = calls.count
        (root / "pkg" / "deep").mkdir()
        time.sleep(QUIET_S)
        calls.event.clear()
        (root / "pkg" / "deep" / "m.py").write_text("y = 1\n")
        assert calls.event.wait(5)
        assert calls.count > before
        (root / "pkg" / "deep" / "m.py").unlink()
        (root / "pkg" / "deep").rmdir()
        (root / "pkg").rmdir()
        deadline = time.monotonic() + 5
        while watcher.watched() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert watcher.watched() == []
