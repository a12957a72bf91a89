"""Keeps the context index of the user's checkout current while the app runs.

The first sync runs in a background thread (the app never waits for an index), then every
debounced burst of file changes re-syncs the checkout's view: only files whose content is new
get parsed. Index trouble is logged and dropped; the app and the agents go on without it.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from cursorish.tui.watch import WorktreeWatcher

log = logging.getLogger(__name__)


class CheckoutIndexer:
    """`start()` / `stop()`; `syncs` counts completed syncs (for tests and the curious)."""

    def __init__(self, root: Path, *, debounce_s: float = 0.2) -> None:
        self.root = root
        self.syncs = 0
        self._lock = threading.Lock()
        self._watcher = WorktreeWatcher(root, self.sync, debounce_s=debounce_s)
        self._stopped = False

    def start(self) -> None:
        self._watcher.start()
        threading.Thread(target=self._first_sync, name="context-index", daemon=True).start()

    def _first_sync(self) -> None:
        self.sync()
        from cursorish.context.agent_context import engine_for

        try:  # what removed agents' worktrees and old versions left behind
            engine_for(self.root).prune()
        except Exception as exc:
            log.warning("context index of %s not pruned: %s", self.root, exc)

    def stop(self) -> None:
        self._stopped = True
        self._watcher.stop()

    def sync(self) -> None:
        if self._stopped:
            return
        from cursorish.context.agent_context import engine_for

        with self._lock:
            try:
                engine_for(self.root).sync_worktree(self.root)
            except Exception as exc:  # never the app's problem
                log.warning("context index of %s not updated: %s", self.root, exc)
                return
            self.syncs += 1
