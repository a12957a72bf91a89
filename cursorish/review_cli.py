"""Front end of `cursorish branches`, `review`, `merge` and `compare`.

Review itself lives in cursorish.core.review (ReviewSession), merging in cursorish.gitops.merge;
this module resolves what the user named (a branch, an agent id or prefix), calls them and
prints. The Textual screens are imported lazily, only when stdout is a terminal and no
headless option was given.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cursorish.core.repo_store import open_repo_store
from cursorish.core.review import base_of, resolve_branch
from cursorish.core.text import escape_controls, first_line
from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.diffs import diff_stats
from cursorish.gitops.hunks import FileDiff, Hunk, diff_files
from cursorish.gitops.repo import branch_exists
from cursorish.gitops.runner import git_out, run_git, split_z
from cursorish.gitops.worktrees import BRANCH_PREFIX

if TYPE_CHECKING:
    from cursorish.core.review import Decision, ReviewSession
    from cursorish.gitops.repo import RepoInfo
    from cursorish.store.db import Store


def _bad(message: str) -> CursorishError:
    return CursorishError(message, ExitCode.BAD_ARGS)


# -- branches -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BranchView:
    """One row of `cursorish branches`."""

    branch: str
    agent_id: str | None
    task: str
    state: str  # the agent's state; "-" for a branch the store does not know
    base: str
    tip: str
    merged: bool  # the tip is already in the user's HEAD
    files: int
    added: int
    deleted: int
    reviewed: bool
    pending: int
    accepted: int
    rejected: int


def _review_counts(
    repo: RepoInfo, store: Store, branch: str, base: str
) -> tuple[bool, dict[str, int]]:
    """(reviewed, counts). Nothing is set up just to count: a branch never reviewed is all
    pending (its hunks base..tip); one whose review worktree is gone counts the decisions in
    the store and, as pending, what its tip holds beyond the last review commit."""
    from cursorish.gitops import review_git as rg

    review = store.review(branch)
    if review is None:
        return False, {"pending": _hunk_count(repo, base, branch), "accepted": 0, "rejected": 0}
    if rg.is_worktree_on(Path(review["worktree"]), branch):
        from cursorish.core.review import ReviewSession

        return True, ReviewSession.open(repo, store, branch).counts()
    rows = store.review_decisions(branch, since=str(review["started_at"]))
    last = rg.last_review_commit(repo.root, str(review["base"]), branch)
    return True, {
        "pending": _hunk_count(repo, last or str(review["base"]), branch),
        "accepted": sum(1 for r in rows if r["decision"] == "accepted"),
        "rejected": sum(1 for r in rows if r["decision"] == "rejected"),
    }


def _hunk_count(repo: RepoInfo, base: str, branch: str) -> int:
    # A file without text hunks (binary, mode, rename) is one whole-file decision.
    return sum(len(f.hunks) or 1 for f in diff_files(repo.root, base, f"refs/heads/{branch}"))


def list_branches(repo: RepoInfo, store: Store) -> list[BranchView]:
    """Every agent branch that exists (store rows, newest first; then other cursorish/* ones)."""
    rows: dict[str, dict[str, Any] | None] = {}
    for agent in store.agents():
        if agent["branch"] not in rows and branch_exists(repo.root, agent["branch"]):
            rows[agent["branch"]] = agent
    _, out, _ = run_git(
        repo.root, "for-each-ref", "--format=%(refname)", f"refs/heads/{BRANCH_PREFIX}"
    )
    for ref in sorted(split_z(out.replace(b"\n", b"\0"))):
        rows.setdefault(ref.removeprefix("refs/heads/"), None)
    views = []
    for branch, row in rows.items():
        base = base_of(repo, branch, row)
        tip = git_out(repo.root, "rev-parse", f"refs/heads/{branch}")
        stats = diff_stats(repo.root, base, tip)
        reviewed, counts = _review_counts(repo, store, branch, base)
        merged = run_git(repo.root, "merge-base", "--is-ancestor", tip, "HEAD", check=False)[0] == 0
        views.append(
            BranchView(
                branch=branch,
                agent_id=row["id"] if row else None,
                task=store.task_text(row),
                state=str(row["state"]) if row else "-",
                base=base,
                tip=tip,
                merged=merged,
                files=len(stats),
                added=sum(s.added or 0 for s in stats),
                deleted=sum(s.deleted or 0 for s in stats),
                reviewed=reviewed,
                pending=counts.get("pending", 0),
                accepted=counts.get("accepted", 0),
                rejected=counts.get("rejected", 0),
            )
        )
    return views


def format_branches(views: list[BranchView]) -> str:
    if not views:
        return 'no agent branches in this repository (run: cursorish --task "...")'
    width = max(18, *(len(v.branch) for v in views))
    head = (
        f"{'branch':{width}}  {'state':12} {'files':>5} {'+':>6} {'-':>6} "
        f"{'pending':>7} {'accepted':>8} {'rejected':>8}  task"
    )
    lines = [head]
    for v in views:
        state = v.state + (" merged" if v.merged else "")
        lines.append(
            f"{v.branch:{width}}  {state:12} {v.files:>5} {'+' + str(v.added):>6} "
            f"{'-' + str(v.deleted):>6} {v.pending:>7} {v.accepted:>8} {v.rejected:>8}  "
            f"{_shown(first_line(v.task)[:60])}"
        )
    return "\n".join(lines)


def cmd_branches(ns: argparse.Namespace) -> int:
    with open_repo_store(ns.repo) as (repo, store):
        views = list_branches(repo, store)
    if ns.json:
        print(json.dumps([asdict(v) for v in views]))
    else:
        print(format_branches(views))
    return 0


# -- review -------------------------------------------------------------------------------


def _split_ids(text: str | None, flag: str) -> list[str]:
    if text is None:
        return []
    ids = [part.strip() for part in text.split(",") if part.strip()]
    if not ids:
        raise _bad(f"{flag} needs hunk ids (comma-separated; see cursorish review --list)")
    return ids


def _hunk_json(hunk: Hunk, state: str, *, lines: bool = True) -> dict[str, Any]:
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


def _file_hunks(fd: FileDiff | None, state: str) -> list[tuple[Hunk, str]]:
    return [(h, state) for h in fd.hunks] if fd else []


def _decision_json(d: Decision) -> dict[str, Any]:
    return {
        "hunk": d.hunk_id,
        "path": d.path,
        "decision": d.decision,
        "reason": d.reason,
        "header": d.header,
    }


def _counts_line(counts: dict[str, int]) -> str:
    return (
        f"{counts.get('pending', 0)} pending, {counts.get('accepted', 0)} accepted, "
        f"{counts.get('rejected', 0)} rejected"
    )


def print_listing(session: ReviewSession, *, as_json: bool) -> None:
    files = session.files()
    counts = session.counts()
    if as_json:
        print(
            json.dumps(
                {
                    "branch": session.branch,
                    "base": session.base,
                    "agent": session.agent_id,
                    "task": session.task,
                    "files": [
                        {
                            "path": f.path,
                            "old_path": f.old_path,
                            "status": f.status,
                            "binary": f.binary,
                            "hunks": [
                                _hunk_json(h, s)
                                for h, s in _file_hunks(f.pending, "pending")
                                + _file_hunks(f.accepted, "accepted")
                            ],
                        }
                        for f in files
                    ],
                    "counts": counts,
                }
            )
        )
        return
    who = f" (agent {session.agent_id})" if session.agent_id else ""
    print(f"review of {session.branch}{who} against {session.base[:12]}")
    # Task, paths and lines come from the planner and the files: escaped, never run by the
    # terminal (an ESC or OSC sequence in a file must not rewrite the screen or the clipboard).
    if session.task:
        print(f"task: {_shown(first_line(session.task))}")
    for f in files:
        moved = f" (from {_shown(f.old_path)})" if f.old_path else ""
        print(f"\n{f.status} {_shown(f.path)}{moved}{'  [binary]' if f.binary else ''}")
        for hunk, state in _file_hunks(f.pending, "pending") + _file_hunks(f.accepted, "accepted"):
            header = _shown(hunk.header)
            print(f"  {hunk.id}  {state:8}  {header}  (+{hunk.added} -{hunk.deleted})")
            for line in hunk.lines:
                print(f"    {line.kind}{escape_controls(line.text)}")  # tabs kept
    print(f"\n{_counts_line(counts)}")


def _shown(text: str) -> str:
    return escape_controls(text, keep_lines=False)


def _headless(ns: argparse.Namespace) -> bool:
    given = ns.accept is not None or ns.reject is not None  # an empty list is an error, not absent
    return bool(ns.list or ns.accept_all or given or ns.commit)


def run_headless_review(session: ReviewSession, ns: argparse.Namespace) -> int:
    """--accept/--reject/--accept-all/--commit: validate every id first, then decide."""
    accept_ids = _split_ids(ns.accept, "--accept")
    reject_ids = _split_ids(ns.reject, "--reject")
    if ns.reason is not None and not reject_ids:
        raise _bad("--reason goes with --reject (it is the feedback for the rejected hunks)")
    # Every id is resolved before any decision: one unknown id changes nothing.
    accept = [_pending_hunk(session, i) for i in accept_ids]
    reject = [_pending_hunk(session, i) for i in reject_ids]
    both = {h.id for h in accept} & {h.id for h in reject}
    if both:
        raise _bad(f"hunk(s) {', '.join(sorted(both))} given to both --accept and --reject")
    decisions: list[Decision] = []
    for hunk in dict.fromkeys(h.id for h in reject):
        decisions.append(session.reject(hunk, ns.reason or ""))
    for hunk in dict.fromkeys(h.id for h in accept):
        decisions.append(session.accept(hunk))
    if ns.accept_all:
        decisions.extend(session.accept_all())
    sha = session.commit() if ns.commit else None
    counts = session.counts()
    if ns.json:
        print(
            json.dumps(
                {
                    "branch": session.branch,
                    "decisions": [_decision_json(d) for d in decisions],
                    "commit": sha,
                    "counts": counts,
                }
            )
        )
        return 0
    for d in decisions:
        reason = f"  reason: {d.reason}" if d.reason else ""
        print(f"{d.decision:8}  {d.hunk_id}  {d.path}  {d.header}{reason}")
    if ns.commit:
        print(f"committed {sha[:12]} on {session.branch}" if sha else "nothing to commit")
    print(_counts_line(counts))
    return 0


def _pending_hunk(session: ReviewSession, hunk_id: str) -> Hunk:
    try:
        _file, hunk, state = session.find(hunk_id)
    except CursorishError as exc:
        raise _bad(f"{exc.message}; no decision was made") from None
    if state != "pending":
        raise _bad(f"hunk {hunk.id} ({hunk.path}) is already {state}; nothing changed")
    return hunk


def _revise_callback(
    repo: RepoInfo, store: Store, session: ReviewSession
) -> Callable[[str], Awaitable[None]] | None:
    """Feedback to the agent (reject with a reason) needs a planner; without one the app
    still reviews, it just cannot send feedback."""
    if session.agent_id is None:
        return None
    from cursorish.config import load_config
    from cursorish.config.settings import build_settings
    from cursorish.core.orchestrator import Orchestrator
    from cursorish.headless import warn

    row = store.agent(session.agent_id) or {}
    flags = {k: row[k] for k in ("profile",) if row.get(k)}
    if row.get("planner_model"):
        flags["planner"] = row["planner_model"]
    try:
        settings = build_settings(load_config(repo.root, flags), repo.root, warn=warn)
    except CursorishError:
        return None
    orchestrator = Orchestrator(repo, store, settings, lambda _event: None, handle_signals=False)
    agent_id = session.agent_id

    async def revise(feedback: str) -> None:
        await orchestrator.revise(agent_id, feedback)

    return revise


def cmd_review(ns: argparse.Namespace) -> int:
    from cursorish.core.review import ReviewSession

    with open_repo_store(ns.repo) as (repo, store):
        if ns.reason is not None and not ns.reject:
            raise _bad("--reason goes with --reject (it is the feedback for the rejected hunks)")
        _split_ids(ns.accept, "--accept")  # refused before a review worktree is made
        _split_ids(ns.reject, "--reject")
        branch = resolve_branch(repo, store, ns.branch)[0]
        session = ReviewSession.open(repo, store, branch)
        if _headless(ns):
            if ns.list and (ns.accept_all or ns.accept or ns.reject or ns.commit):
                raise _bad("--list only prints; give it alone")
            if ns.list:
                print_listing(session, as_json=ns.json)
                return 0
            return run_headless_review(session, ns)
        if sys.stdout.isatty() and not ns.json:
            from cursorish.tui.review_app import run_review

            return run_review(session, revise=_revise_callback(repo, store, session))
        print_listing(session, as_json=ns.json)
        return 0


# -- merge --------------------------------------------------------------------------------


def check_reviewed(repo: RepoInfo, store: Store, branch: str) -> None:
    """Only what a review accepted and committed on the branch may be merged: the branch tip
    must be the last review commit, and the review worktree's index (what is accepted now)
    must hold the same tree. Read-only (the index is read through a throwaway copy)."""
    from cursorish.gitops import review_git as rg
    from cursorish.gitops.merge import MergeRefused

    review = store.review(branch)
    if review is None:
        raise MergeRefused(
            f"{branch} was never reviewed: review it first, hunk by hunk (cursorish review "
            f"{branch}) or all at once: cursorish review {branch} --accept-all --commit"
        )
    base_tree = rg.tree_of(repo.root, str(review["base"]))
    tip = git_out(repo.root, "rev-parse", f"refs/heads/{branch}")
    last = rg.last_review_commit(repo.root, str(review["base"]), branch)
    committed_tree = rg.tree_of(repo.root, last) if last else base_tree
    wt = Path(review["worktree"])
    accepted = rg.index_tree(wt) if rg.is_worktree_on(wt, branch) else committed_tree
    if last == tip and accepted == rg.tree_of(repo.root, tip):
        return
    if accepted == base_tree:
        raise MergeRefused(
            f"nothing was accepted in the review of {branch} yet: accept hunks and commit "
            f"them first (cursorish review {branch}, or cursorish review {branch} "
            "--accept-all --commit)"
        )
    if last is not None and last != tip and accepted == committed_tree:
        raise MergeRefused(
            f"{branch} changed after its review was committed (the agent revised it?): "
            f"review the new hunks and commit them first: cursorish review {branch}"
        )
    _, out, _ = run_git(
        wt if wt.is_dir() else repo.root,
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        accepted,
        tip,
        "--",
    )
    differ = split_z(out)
    shown = ", ".join(differ[:10]) + (f" and {len(differ) - 10} more" if len(differ) > 10 else "")
    raise MergeRefused(
        f"the review of {branch} has decisions not committed yet"
        + (f" ({len(differ)} file(s): {shown})" if differ else "")
        + f": commit them first: cursorish review {branch} --commit",
        tuple(differ),
    )


def merge_trailers(store: Store, row: dict[str, Any] | None) -> dict[str, str]:
    if row is None:
        return {}
    return {
        "Cursorish-Agent": str(row["id"]),
        "Cursorish-Task": first_line(store.task_text(row)),
        "Cursorish-Planner": str(row.get("planner_model") or ""),
        "Cursorish-Apply-Engine": str(row.get("apply_engine") or ""),
    }


def cmd_merge(ns: argparse.Namespace) -> int:
    from cursorish.gitops.merge import execute_merge, merge_message, plan_merge

    with open_repo_store(ns.repo) as (repo, store):
        branch, row = resolve_branch(repo, store, ns.branch)
        check_reviewed(repo, store, branch)
        plan = plan_merge(repo.root, branch, squash=ns.squash)
        message = merge_message(
            plan,
            title=ns.message,
            task=store.task_text(row),
            trailers=merge_trailers(store, row),
        )
        sha = execute_merge(plan, message)
        if row is not None:
            store.add_event(
                row["id"],
                "merged",
                {"branch": branch, "into": plan.target, "commit": sha, "squash": plan.squash},
            )
    how = "squashed" if plan.squash else "merged"
    print(
        f"{how} {branch} into {plan.target}: {sha[:12]} "
        f"({len(plan.files)} file(s), +{plan.added} -{plan.deleted})"
    )
    return 0


# -- compare ------------------------------------------------------------------------------


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


def _side(repo: RepoInfo, store: Store, label: str, ref: str) -> Side:
    branch, row = resolve_branch(repo, store, ref)
    base = base_of(repo, branch, row)
    tip = git_out(repo.root, "rev-parse", f"refs/heads/{branch}")
    diffs = {d.path: d for d in diff_files(repo.root, base, tip)}
    return Side(label, repo.root, branch, row, store.task_text(row), base, tip, diffs)


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
                    "hunks": [_hunk_json(h, "proposed") for h in d.hunks],
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


def format_compare(data: dict[str, Any]) -> str:
    a, b = data["A"], data["B"]
    rows = [
        ("agent", a["agent"] or "-", b["agent"] or "-"),
        ("branch", a["branch"], b["branch"]),
        ("state", a["state"], b["state"]),
        ("files changed", a["files"], b["files"]),
        ("+/-", f"+{a['added']} -{a['deleted']}", f"+{b['added']} -{b['deleted']}"),
        (
            "tests passed/run",
            f"{a['tests_passed']}/{a['tests_run']}",
            f"{b['tests_passed']}/{b['tests_run']}",
        ),
        ("tokens", f"{a['tokens']:,}", f"{b['tokens']:,}"),
        ("cost", f"${a['cost_usd']:.4f}", f"${b['cost_usd']:.4f}"),
        ("time", _secs(a["time_s"]), _secs(b["time_s"])),
    ]
    width = max(len(str(r[1])) for r in rows) + 2
    lines = [f"{'':17}{'A':{width}}B"]
    lines += [f"{name:17}{va!s:{width}}{vb}" for name, va, vb in rows]
    task = first_line(a["task"] or b["task"])
    if task:
        lines.insert(0, f"task: {task}")
    if not data["same_task"]:
        lines.append("note: the two agents did not work on the same task")
    lines.append("")
    for f in data["files"]:
        who = " and ".join(f["changed_by"]) + (" (same result)" if f["same"] else "")
        lines.append(f"{f['path']}  changed by {who}")
        for label in ("A", "B"):
            side = f[label]
            if side is None:
                continue
            for h in side["hunks"]:
                lines.append(f"  {label} {h['id']}  {h['header']}  (+{h['added']} -{h['deleted']})")
                lines.extend(f"      {text}" for text in h["lines"])
            if side["binary"]:
                lines.append(f"  {label} binary file ({side['status']})")
    return "\n".join(lines)


def _secs(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}s"


def cmd_compare(ns: argparse.Namespace) -> int:
    if ns.text and ns.json:
        raise _bad("give --text or --json, not both")
    with open_repo_store(ns.repo) as (repo, store):
        a, b = _side(repo, store, "A", ns.a), _side(repo, store, "B", ns.b)
        if a.branch == b.branch:
            raise _bad(f"{ns.a} and {ns.b} are the same branch ({a.branch})")
        if not ns.text and not ns.json and sys.stdout.isatty():
            from cursorish.core.review import ReviewSession
            from cursorish.tui.review_app import run_compare

            return run_compare(
                ReviewSession.open(repo, store, a.branch), ReviewSession.open(repo, store, b.branch)
            )
        data = compare_json(a, b)
    print(json.dumps(data) if ns.json else format_compare(data))
    return 0
