"""Watch a worktree for edits made outside cursorish (the user's editor) and say so, debounced.

A burst of file events (an editor writes a temp file, renames it, touches the directory) becomes
one call of `on_change`, made once the tree has been quiet for `debounce_s`, and never later than
`max_delay_s` after the first event of the burst, so a diff shown on screen is at most about a
second stale. Anything under `.git` is ignored, and so are reads (open / close without write):
`git diff` reading the files to refresh the view must not trigger another refresh.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path, PurePath

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

_IGNORED_TYPES = frozenset({"opened", "closed_no_write"})


def _not_stop_race(record: logging.LogRecord) -> bool:
    # watchdog logs this as an error when an event arrives while the observer is stopping
    # (a benign race in its inotify emitter); on a terminal it would print over the app.
    return "called when the thread is inactive" not in record.getMessage()


logging.getLogger("watchdog.observers.inotify").addFilter(_not_stop_race)


def _is_ignored(root: Path, raw: bytes | str) -> bool:
    if not raw:
        return True
    path = PurePath(raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw)
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return True
    return ".git" in parts


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: WorktreeWatcher) -> None:
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in _IGNORED_TYPES:
            return
        # A directory's own "modified" only echoes a change to a file in it.
        if event.is_directory and event.event_type == "modified":
            return
        root = self._watcher.root
        if _is_ignored(root, event.src_path) and _is_ignored(root, event.dest_path):
            return
        self._watcher.poke()


class WorktreeWatcher:
    """Calls `on_change()` from a timer thread after changes under `root` (see the module
    docstring). `start()` / `stop()`, or use it as a context manager."""

    def __init__(
        self,
        root: Path,
        on_change: Callable[[], None],
        *,
        debounce_s: float = 0.2,
        max_delay_s: float = 0.6,
    ) -> None:
        self.root = Path(root).resolve()
        self._on_change = on_change
        self._debounce_s = debounce_s
        self._max_delay_s = max_delay_s
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._first_event = 0.0
        self._last_event = 0.0
        self._observer: Observer | None = None  # type: ignore[valid-type]
        self._stopped = False
        self.changes = 0  # how many times on_change was called

    def start(self) -> None:
        observer = Observer()
        observer.daemon = True
        observer.schedule(_Handler(self), str(self.root), recursive=True)
        observer.start()
        self._observer = observer

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        observer = self._observer
        self._observer = None
        if observer is not None:
            observer.stop()
            observer.join(timeout=2)

    def __enter__(self) -> WorktreeWatcher:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def poke(self) -> None:
        """Note a change now (the observer calls this for every event that counts)."""
        now = time.monotonic()
        with self._lock:
            if self._stopped:
                return
            self._last_event = now
            if self._timer is None:
                self._first_event = now
                self._arm(self._debounce_s)

    def _arm(self, delay: float) -> None:
        timer = threading.Timer(max(0.0, delay), self._fire)
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _fire(self) -> None:
        with self._lock:
            if self._stopped:
                return
            now = time.monotonic()
            quiet_at = self._last_event + self._debounce_s
            deadline = self._first_event + self._max_delay_s
            if now < quiet_at and now < deadline:
                self._arm(min(quiet_at, deadline) - now)
                return
            self._timer = None
            self.changes += 1
        self._on_change()
