"""Watch a worktree for edits made outside cursorish (the user's editor) and say so, debounced.

A burst of file events (an editor writes a temp file, renames it, touches the directory) becomes
one call of `on_change`, made once the tree has been quiet for `debounce_s`, and never later than
`max_delay_s` after the first event of the burst, so a diff shown on screen is at most about a
second stale. Anything under `.git` is ignored, and so are reads (open / close without write):
`git diff` reading the files to refresh the view must not trigger another refresh.

Only what can change the view gets an inotify watch: the root itself (not recursively) and each
top-level directory except `.git` and those git ignores (`node_modules/`, `target/`, virtual
environments). A large checkout would otherwise spend tens of thousands of watches, past the
system's limit, on build output; and git's own writes under `.git` (a new worktree's logs) race
with watchdog adding watches for them. A top-level directory made later is watched from then on.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path, PurePath

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import ObservedWatch

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


def _git_ignored(root: Path, names: list[str]) -> set[str]:
    """Which of the top-level directory `names` git ignores in `root` (none if git cannot say:
    not a repository, git missing)."""
    if not names:
        return set()
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "check-ignore", "--", *(f"{name}/" for name in names)],
            capture_output=True,
            text=True,
            errors="surrogateescape",
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return set()
    if done.returncode not in (0, 1):
        return set()
    return {line.rstrip("/") for line in done.stdout.splitlines()}


def _at_top(root: Path, event: FileSystemEvent) -> bool:
    """Whether the event's path (or where it moved to) is a directory right under `root`: only
    those change which directories are watched (a burst of deep ones, `npm install` in a
    watched directory, need not re-read the root each)."""
    for raw in (event.src_path, event.dest_path):
        if raw:
            path = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw
            if PurePath(path).parent == PurePath(root):
                return True
    return False


def _is_real_dir(entry: Path) -> bool:
    # A symlink to a directory is not followed: it may point outside the tree.
    return entry.is_dir() and not entry.is_symlink()


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: WorktreeWatcher) -> None:
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in _IGNORED_TYPES:
            return
        if (
            event.is_directory
            and event.event_type in ("created", "deleted", "moved")
            and _at_top(self._watcher.root, event)
        ):
            self._watcher.top_level_changed()
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
        self._handler = _Handler(self)
        self._watches: dict[str, ObservedWatch] = {}  # top-level directory name -> its watch
        self._skipped: set[str] = set()  # top-level directories seen and left unwatched
        self._stopped = False
        self.changes = 0  # how many times on_change was called

    def start(self) -> None:
        observer = Observer()
        observer.daemon = True
        observer.schedule(self._handler, str(self.root), recursive=False)
        self._observer = observer
        self._sync_watches()
        observer.start()

    def watched(self) -> list[str]:
        """The top-level directories watched now (recursively), by name."""
        with self._lock:
            return sorted(self._watches)

    def top_level_changed(self) -> None:
        """A directory was made, removed or renamed right under the root: watch the top-level
        ones that are new, drop the watches of those that are gone."""
        try:
            self._sync_watches()
        except OSError as exc:  # the root itself went away; the view says so on refresh
            logging.getLogger(__name__).debug("watch of %s not updated: %s", self.root, exc)

    def _sync_watches(self) -> None:
        observer = self._observer
        if observer is None:
            return
        present = {entry.name for entry in self.root.iterdir() if _is_real_dir(entry)}
        with self._lock:
            if self._stopped:
                return
            gone = [name for name in self._watches if name not in present]
            fresh = [n for n in present if n not in self._watches and n not in self._skipped]
            self._skipped &= present
        ignored = _git_ignored(self.root, [name for name in fresh if name != ".git"])
        for name in gone:
            with self._lock:
                watch = self._watches.pop(name, None)
            if watch is not None:
                with contextlib.suppress(KeyError):  # its emitter already stopped
                    observer.unschedule(watch)
        for name in fresh:
            if name == ".git" or name in ignored:
                with self._lock:
                    self._skipped.add(name)
                continue
            try:
                watch = observer.schedule(self._handler, str(self.root / name), recursive=True)
            except OSError:  # removed again before the watch was added
                continue
            with self._lock:
                self._watches[name] = watch

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
