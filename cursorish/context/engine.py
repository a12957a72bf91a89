"""The context engine's entry points: keep views current, rank, search, find symbols.

A worktree's view is named after the worktree's real path, so the user's checkout and each
agent's worktree have their own view over the same shared blobs: an agent's edits are visible
in its searches and in nobody else's.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from cursorish.context.index import CodeIndex, SyncStats
from cursorish.context.rank import Ranked, Weights, query_words, rank, view_data
from cursorish.context.sources import (
    Blob,
    blob_oid,
    change_counts,
    git_output,
    read_blobs,
    read_worktree_file,
    tree_files,
    worktree_files,
)

SNIPPET_LINES = 3
MAX_SNIPPET_CANDIDATES = 300  # matching lines looked at per file for the snippet
_MATCHES = frozenset({"bm25", "path", "ident"})


@dataclass(frozen=True)
class Hit:
    """A ranked file with the lines that matched best."""

    path: str
    score: float
    why: dict[str, float]
    lines: list[tuple[int, str]]


@dataclass(frozen=True)
class SymbolHit:
    path: str
    name: str
    kind: str
    role: str
    scope: str
    line: int
    end_line: int


def index_path_for(root: Path) -> Path:
    """Where the index of the repository containing `root` lives (beside its store.db)."""
    from cursorish.gitops.repo import open_repo
    from cursorish.store.paths import repo_state_dir

    return repo_state_dir(open_repo(root).git_common_dir) / "context.db"


def view_name(root: Path) -> str:
    return "wt:" + os.path.realpath(root)


class ContextEngine:
    """The index of one repository, and the views of its worktrees and commits."""

    def __init__(
        self,
        db_path: Path,
        *,
        hidden: Callable[[str], bool] | None = None,
    ) -> None:
        self.index = CodeIndex(db_path)
        # Agents of one process update views one at a time: the second finds the blobs the
        # first parsed instead of parsing them again in parallel.
        self._sync_lock = threading.Lock()
        # Paths never shown (secrets provisioning copied into a worktree, such as `.env`).
        self.hidden = hidden or _default_hidden

    @classmethod
    def for_repo(cls, root: Path) -> ContextEngine:
        return cls(index_path_for(root))

    # -- keeping views current -------------------------------------------------------------

    def sync_worktree(self, root: Path) -> SyncStats:
        """Bring the view of a worktree up to date with what is on disk (index + edits)."""
        with self._sync_lock:
            return self.index.guarded(lambda: self._sync_worktree(root))

    def _sync_worktree(self, root: Path) -> SyncStats:
        started = time.perf_counter()
        files, dirty = worktree_files(root)
        secret = _provisioned_secrets(root)
        files = {p: o for p, o in files.items() if not self.hidden(p) and p not in secret}
        from_disk: list[Blob] = []
        for path in dirty:
            if self.hidden(path) or path in secret:
                files.pop(path, None)
                continue
            data = read_worktree_file(root, path)
            if data is None:
                files.pop(path, None)
                continue
            oid = blob_oid(data)
            files[path] = oid
            from_disk.append(Blob(oid, path, data))
        view = view_name(root)
        current = self.index.view_files(view)
        if current == files and self.index.has_view(view):
            changed = parsed = 0  # the common case of an agent's search: nothing to write
        else:
            # Blobs the view already maps are in the index: only the others need a look-up.
            new = {p: o for p, o in files.items() if current.get(p) != o}
            parsed = self._add(root, new, [b for b in from_disk if current.get(b.path) != b.oid])
            changed = self.index.set_view(view, files)
        self._history(root, view, "HEAD")
        return SyncStats(len(files), parsed, changed, time.perf_counter() - started)

    def update_paths(self, root: Path, paths: Iterable[str]) -> SyncStats:
        """Re-read only these paths of a worktree (what a file watcher reports)."""

        def run() -> SyncStats:
            started = time.perf_counter()
            view = view_name(root)
            if not self.index.has_view(view):
                return self._sync_worktree(root)
            change: dict[str, str] = {}
            blobs: list[Blob] = []
            secret = _provisioned_secrets(root)
            for path in paths:
                hide = self.hidden(path) or path in secret
                data = None if hide else read_worktree_file(root, path)
                if data is None:
                    change[path] = ""
                    continue
                oid = blob_oid(data)
                change[path] = oid
                blobs.append(Blob(oid, path, data))
            parsed = self._add(root, {}, blobs)
            changed = self.index.set_view(view, change, partial=True)
            return SyncStats(len(change), parsed, changed, time.perf_counter() - started)

        with self._sync_lock:
            return self.index.guarded(run)

    def sync_commit(self, repo: Path, rev: str) -> tuple[str, SyncStats]:
        """A view of the tree of a commit, read straight from git's objects (no checkout)."""

        def run() -> tuple[str, SyncStats]:
            started = time.perf_counter()
            files = {p: o for p, o in tree_files(repo, rev).items() if not self.hidden(p)}
            parsed = self._add(repo, files, [])
            view = "commit:" + rev
            changed = self.index.set_view(view, files)
            self._history(repo, view, rev)
            return view, SyncStats(len(files), parsed, changed, time.perf_counter() - started)

        with self._sync_lock:
            return self.index.guarded(run)

    def prune(self) -> int:
        """Drop commit views and the views of worktrees that no longer exist, then the blobs
        nothing maps."""

        def run() -> int:
            for view in self.index.views():
                gone = view.startswith("wt:") and not os.path.isdir(view[3:])
                if gone or view.startswith("commit:"):
                    self.index.drop_view(view)
            return self.index.prune()

        with self._sync_lock:
            return self.index.guarded(run)

    def _history(self, repo: Path, view: str, rev: str) -> None:
        """Refresh the view's change counts when its commit moved (one `git log`)."""
        try:
            out = git_output(repo, "rev-parse", "--verify", "-q", rev + "^{commit}")
        except subprocess.CalledProcessError:
            return  # no commit yet
        head = out.decode().strip()
        if self.index.history(view)[0] != head:
            self.index.set_history(view, head, change_counts(repo, head))

    def _add(self, repo: Path, files: dict[str, str], blobs: list[Blob]) -> int:
        known = self.index.known([*files.values(), *(b.oid for b in blobs)])
        fresh = [b for b in blobs if b.oid not in known]
        have = {b.oid for b in fresh}
        missing: dict[str, str] = {}
        for path, oid in files.items():
            if oid not in known and oid not in have:
                missing.setdefault(oid, path)
        stored = self.index.add_blobs(fresh)
        if missing:
            stored += self.index.add_blobs(read_blobs(repo, missing))
        return stored

    # -- questions -------------------------------------------------------------------------

    def rank(self, view: str, task: str, weights: Weights | None = None) -> list[Ranked]:
        return self.index.guarded(lambda: rank(self.index, view, task, weights))

    def search(self, view: str, query: str, k: int = 10) -> list[Hit]:
        """The top `k` files for a query with their best-matching lines."""
        # Only files that match something: change history alone is a prior, not a hit.
        ranked = [r for r in self.rank(view, query) if set(r.why) & _MATCHES][:k]
        data = view_data(self.index, view, Weights()) if ranked else None
        files = data.files if data is not None else {}
        words = query_words(query)
        out: list[Hit] = []
        for r in ranked:
            text = self.index.text(files[r.path])
            lines = _best_lines(text, words) if text else []
            out.append(Hit(r.path, r.score, r.why, lines))
        return out

    def find_symbol(self, view: str, name: str, limit: int = 50) -> list[SymbolHit]:
        """Definitions (first) and references of a name, with their locations."""

        def run() -> list[SymbolHit]:
            files = self.index.view_files(view)
            paths_of: dict[str, list[str]] = {}
            for path, oid in files.items():
                paths_of.setdefault(oid, []).append(path)
            short = name.rsplit(".", 1)[-1].rsplit("::", 1)[-1]
            rows = self.index.symbols_named([short])
            out: list[SymbolHit] = []
            for oid, sname, kind, role, scope, line, end in rows:
                for path in paths_of.get(oid, ()):
                    out.append(SymbolHit(path, sname, kind, role, scope, line, end))
            out.sort(key=lambda h: (h.role != "def", h.path, h.line))
            return out[:limit]

        return self.index.guarded(run)


def _default_hidden(path: str) -> bool:
    """Secret-looking files never enter the index (`.env`, keys), whatever git says of them."""
    name = path.rsplit("/", 1)[-1]
    return name == ".env" or name.startswith(".env.") or name.endswith((".pem", ".key"))


def _provisioned_secrets(root: Path) -> frozenset[str]:
    """The local files provisioning copied into a worktree (the user's secrets)."""
    try:
        from cursorish.core.local_files import secrets_of

        return secrets_of(root)
    except Exception:  # no record of provisioned files: nothing extra to hide
        return frozenset()


def _best_lines(text: str, words: set[str], n: int = SNIPPET_LINES) -> list[tuple[int, str]]:
    """The `n` lines holding the most query words, in file order."""
    from cursorish.context.parse import tokens

    useful = sorted((w for w in words if len(w) > 2), key=len, reverse=True)
    if not useful:
        return []
    # One C-level search per matching line finds the candidates; only those are tokenized.
    pattern = re.compile("|".join(re.escape(w) for w in useful))
    low = text.lower()
    scored: list[tuple[int, int, str]] = []
    pos, number, line_start = 0, 1, 0
    for _ in range(MAX_SNIPPET_CANDIDATES):
        m = pattern.search(low, pos)
        if m is None:
            break
        number += low.count("\n", line_start, m.start())
        line_start = low.rfind("\n", 0, m.start()) + 1
        end = low.find("\n", m.start())
        end = len(low) if end < 0 else end
        line = text[line_start:end]
        if len(line) <= 400:
            hits = len(set(tokens(line)) & words)
            if hits:
                scored.append((hits, number, line.rstrip()))
        pos = end + 1
    scored.sort(key=lambda t: (-t[0], t[1]))
    return sorted((num, line) for _, num, line in scored[:n])
