"""Front end of `cursorish branches`, `review`, `merge` and `compare`: parses, calls the review
engine (cursorish.core.review: resolving names, sessions, branch listing, comparison and the
merge policy) and prints.

On a terminal, `review` and `compare` open the app's review screens instead of printing. This
module does not import the TUI (front ends are siblings): the dispatcher (cli.py) hands it an
opener of the review app as `ns.open_app`, None when stdout is not a terminal.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from cursorish.core.repo_store import open_repo_store
from cursorish.core.review import resolve_branch
from cursorish.core.review.branches import BranchView, list_branches
from cursorish.core.review.compare import compare_json, hunk_json, sides
from cursorish.core.text import escape_controls, first_line
from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.hunks import FileDiff, Hunk

if TYPE_CHECKING:
    from cursorish.core.review import Decision, ReviewSession


def _bad(message: str) -> CursorishError:
    return CursorishError(message, ExitCode.BAD_ARGS)


# -- branches -------------------------------------------------------------------------------


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
    with open_repo_store(ns.repo) as opened:
        repo, store = opened.repo, opened.store
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
                                hunk_json(h, s)
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


def _app_opener(ns: argparse.Namespace) -> Callable[[], Any] | None:
    """The review app's opener the dispatcher gave (stdout is a terminal), unless --json."""
    opener: Callable[[], Any] | None = getattr(ns, "open_app", None)
    return None if ns.json else opener


def cmd_review(ns: argparse.Namespace) -> int:
    from cursorish.core.review import ReviewSession

    with open_repo_store(ns.repo) as opened:
        repo, store = opened.repo, opened.store
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
        open_app = _app_opener(ns)
        if open_app is not None:
            from cursorish.core.review.feedback import revise_callback
            from cursorish.headless import warn

            revise = revise_callback(repo, store, session.agent_id, warn=warn)
            return int(open_app().run_review(session, revise=revise))
        print_listing(session, as_json=ns.json)
        return 0


# -- merge --------------------------------------------------------------------------------


def cmd_merge(ns: argparse.Namespace) -> int:
    from cursorish.core.review.merge_policy import merge_reviewed

    with open_repo_store(ns.repo) as opened:
        repo, store = opened.repo, opened.store
        done = merge_reviewed(repo, store, ns.branch, squash=ns.squash, title=ns.message)
    plan = done.plan
    how = "squashed" if plan.squash else "merged"
    print(
        f"{how} {done.branch} into {plan.target}: {done.sha[:12]} "
        f"({len(plan.files)} file(s), +{plan.added} -{plan.deleted})"
    )
    return 0


# -- compare ------------------------------------------------------------------------------


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
    with open_repo_store(ns.repo) as opened:
        repo, store = opened.repo, opened.store
        a, b = sides(repo, store, ns.a, ns.b)
        open_app = None if ns.text else _app_opener(ns)
        if open_app is not None:
            from cursorish.core.review import ReviewSession

            return int(
                open_app().run_compare(
                    ReviewSession.open(repo, store, a.branch),
                    ReviewSession.open(repo, store, b.branch),
                )
            )
        data = compare_json(a, b)
    print(json.dumps(data) if ns.json else format_compare(data))
    return 0
