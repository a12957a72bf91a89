"""What an agent asks of the context engine: the queries behind its `search_code` and
`find_symbol` tools (registered in core/tools/builtins/), and the repo map of its first message.

Each call first brings the agent's own view up to date (its worktree: only files whose blob is
new get parsed), so an agent finds its own edits and never another agent's. A broken index is
rebuilt by the engine; anything else going wrong becomes a message, never an agent failure.
"""

from __future__ import annotations

import sqlite3
import subprocess
import threading
from pathlib import Path

from cursorish.context.engine import ContextEngine, index_path_for, view_name
from cursorish.errors import CursorishError

_FAILURES = (OSError, sqlite3.Error, subprocess.SubprocessError, CursorishError, ValueError)

_engines: dict[Path, ContextEngine] = {}
_lock = threading.Lock()


def engine_for(root: Path) -> ContextEngine:
    """One engine per index file in this process (its connections are per thread)."""
    path = index_path_for(root)
    with _lock:
        engine = _engines.get(path)
        if engine is None:
            engine = _engines[path] = ContextEngine(path)
        return engine


def search_code(root: Path, query: str, k: int, hidden: frozenset[str] = frozenset()) -> str:
    try:
        engine = engine_for(root)
        engine.sync_worktree(root)
        found = engine.search(view_name(root), query, k + len(hidden))
        hits = [h for h in found if h.path not in hidden]
    except _FAILURES as exc:
        return f"error: the code index is not available ({exc}); use grep and list_files"
    if not hits:
        return "no file matches; try other words or grep"
    out = []
    for h in hits[:k]:
        reasons = ", ".join(n for n, v in h.why.items() if n != "prior" and v > 0.05)
        out.append(f"{h.path}  (score {h.score:.2f}: {reasons or 'text'})")
        for number, text in h.lines:
            out.append(f"  {number}: {text.strip()[:200]}")
    return "\n".join(out)


def find_symbol(root: Path, name: str, hidden: frozenset[str] = frozenset()) -> str:
    try:
        engine = engine_for(root)
        engine.sync_worktree(root)
        found = [s for s in engine.find_symbol(view_name(root), name) if s.path not in hidden]
    except _FAILURES as exc:
        return f"error: the code index is not available ({exc}); use grep"
    if not found:
        return f"no definition or reference of {name!r} found; try grep"
    defs = [s for s in found if s.role == "def"]
    refs = [s for s in found if s.role == "ref"]
    out = []
    if defs:
        out.append("definitions:")
        for s in defs:
            scope = f" in {s.scope}" if s.scope else ""
            out.append(f"  {s.path}:{s.line}-{s.end_line}  {s.kind} {s.name}{scope}")
    if refs:
        out.append("references:")
        out.extend(f"  {s.path}:{s.line}  {s.kind} {s.name}" for s in refs)
    return "\n".join(out)


def repo_map_for(root: Path, task: str, budget_tokens: int) -> str:
    """The repo map of a worktree for a task, or "" when it cannot be made."""
    from cursorish.context.repomap import repo_map

    if budget_tokens <= 0:
        return ""
    try:
        engine = engine_for(root)
        engine.sync_worktree(root)
        return repo_map(engine, view_name(root), task, budget_tokens)
    except _FAILURES:
        return ""


# Repo maps of commits by (repository, commit, task, budget): a commit's map never changes, and
# the agents of a best-of-N run ask for the same one at the same moment (one computes it, the
# others wait for it instead of ranking the same files again on the same cores).
_MAPS: dict[tuple[str, str, str, int], str] = {}
_MAP_LOCKS: dict[tuple[str, str, str, int], threading.Lock] = {}
_MAPS_KEPT = 64


def repo_map_for_commit(repo: Path, rev: str, task: str, budget_tokens: int) -> str:
    """The repo map of a commit (read from git objects: no worktree needed), or ""."""
    if budget_tokens <= 0:
        return ""
    key = (str(repo), rev, task, budget_tokens)
    with _lock:
        lock = _MAP_LOCKS.setdefault(key, threading.Lock())
    with lock:
        if key in _MAPS:
            return _MAPS[key]
        text = ""
        try:
            text = _commit_repo_map(repo, rev, task, budget_tokens)
        finally:
            with _lock:
                if text:
                    if len(_MAPS) >= _MAPS_KEPT:
                        oldest = next(iter(_MAPS))
                        del _MAPS[oldest]
                        _MAP_LOCKS.pop(oldest, None)
                    _MAPS[key] = text
                else:  # a failure is tried again by the next agent: keep no lock for it
                    _MAP_LOCKS.pop(key, None)
        return text


def _commit_repo_map(repo: Path, rev: str, task: str, budget_tokens: int) -> str:
    from cursorish.context.repomap import repo_map

    try:
        engine = engine_for(repo)
        # The view stays: agents started from the same commit share it (prune drops it).
        view, _stats = engine.sync_commit(repo, rev)
        return repo_map(engine, view, task, budget_tokens)
    except _FAILURES:
        return ""
