"""Two agents' results for the same task, side by side: per agent its state, size, tests,
tokens, cost and time; per file who changed it, whether both left it the same, and the hunks.
`cursorish compare` prints it (text or JSON); the app shows the two branches' reviews.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from cursorish.core.review.resolve import base_of, resolve_branch
from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.hunks import FileDiff, Hunk, diff_files
from cursorish.gitops.repo import RepoInfo
from cursorish.gitops.runner import git_out, run_git
from cursorish.store.db import Store


def hunk_json(hunk: Hunk, state: str, *, lines: bool = True) -> dict[str, Any]:
    """A hunk as `review --list --json` and `compare --json` print it."""
    out: dict[str, Any] = {
        "id": hunk.id,
        "header": hunk.header,
        "state": state,
        "added": hunk.added,
        "deleted": hunk.deleted,
    }
    if lines:
        out["lines"] = [f"{line.kind}{line.text}" for line in hunk.lines]
    return out


@dataclass(frozen=True)
class Side:
    """One agent (or branch) of a comparison, as the store and git know it."""

    label: str  # "A" or "B"
    root: Path
    branch: str
    row: dict[str, Any] | None
    task: str
    base: str
    tip: str
    diffs: dict[str, FileDiff]

    def summary(self) -> dict[str, Any]:
        row = self.row or {}
        added = sum(d.added for d in self.diffs.values())
        deleted = sum(d.deleted for d in self.diffs.values())
        return {
            "label": self.label,
            "branch": self.branch,
            "agent": row.get("id"),
            "task": self.task,
            "state": row.get("state", "-"),
            "files": len(self.diffs),
            "added": added,
            "deleted": deleted,
            "tests_run": int(row.get("tests_run") or 0),
            "tests_passed": int(row.get("tests_passed") or 0),
            "tokens": int(row.get("prompt_tokens") or 0) + int(row.get("completion_tokens") or 0),
            "cost_usd": round(float(row.get("cost_usd") or 0.0), 6),
            "time_s": _elapsed(row),
        }


def _elapsed(row: dict[str, Any]) -> float | None:
    start = row.get("started_at") or row.get("created_at")
    end = row.get("finished_at")
    if not start or not end:
        return None
    try:
        return round(
            (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds(), 1
        )
    except ValueError:
        return None


def side(repo: RepoInfo, store: Store, label: str, ref: str) -> Side:
    branch, row = resolve_branch(repo, store, ref)
    base = base_of(repo, branch, row)
    tip = git_out(repo.root, "rev-parse", f"refs/heads/{branch}")
    diffs = {d.path: d for d in diff_files(repo.root, base, tip)}
    return Side(label, repo.root, branch, row, store.task_text(row), base, tip, diffs)


def sides(repo: RepoInfo, store: Store, ref_a: str, ref_b: str) -> tuple[Side, Side]:
    """The two sides `ref_a` and `ref_b` name (branches or agents); they must differ."""
    a, b = side(repo, store, "A", ref_a), side(repo, store, "B", ref_b)
    if a.branch == b.branch:
        raise CursorishError(
            f"{ref_a} and {ref_b} are the same branch ({a.branch})", ExitCode.BAD_ARGS
        )
    return a, b


def compare_json(a: Side, b: Side) -> dict[str, Any]:
    files = []
    for path in sorted(set(a.diffs) | set(b.diffs)):
        entry: dict[str, Any] = {
            "path": path,
            "changed_by": [s.label for s in (a, b) if path in s.diffs],
            "same": _same_result(a, b, path),
        }
        for side in (a, b):
            d = side.diffs.get(path)
            entry[side.label] = (
                None
                if d is None
                else {
                    "status": d.status,
                    "binary": d.binary,
                    "added": d.added,
                    "deleted": d.deleted,
                    "hunks": [hunk_json(h, "proposed") for h in d.hunks],
                }
            )
        files.append(entry)
    return {"A": a.summary(), "B": b.summary(), "same_task": _same_task(a, b), "files": files}


def _same_task(a: Side, b: Side) -> bool:
    ta, tb = (a.row or {}).get("task_id"), (b.row or {}).get("task_id")
    if ta is not None and ta == tb:
        return True
    return bool(a.task) and a.task == b.task


def _same_result(a: Side, b: Side, path: str) -> bool:
    """Both agents left `path` identical (same blob at both tips, or both deleted it)."""
    if path not in a.diffs or path not in b.diffs:
        return False
    status, _, _ = run_git(a.root, "diff", "--quiet", a.tip, b.tip, "--", path, check=False)
    return status == 0
