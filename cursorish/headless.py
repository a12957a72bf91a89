"""The headless front end: runs tasks through the orchestrator and prints progress and a summary.

Plain text by default (a progress line on a terminal, one line per notable event otherwise),
`--quiet` for the summary only, `--json` for one JSON object per event and a final summary.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from cursorish.core import events as ev
from cursorish.core.events import Event
from cursorish.core.states import FINAL_STATES
from cursorish.core.text import escape_controls
from cursorish.errors import ExitCode

if TYPE_CHECKING:
    from cursorish.core.orchestrator import RunSettings
    from cursorish.core.report import AgentReport
    from cursorish.gitops.repo import RepoInfo
    from cursorish.store.db import Store

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
# Too frequent for one JSON line each: streamed text, and the model route's decoding progress.
QUIET_EVENTS = (ev.PlannerText, ev.ApplyProgress)


@dataclass
class Printer:
    """Turns engine events into output for one of the three modes (text, quiet, json)."""

    mode: str = "text"  # text | quiet | json
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    states: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    _tick: int = 0
    _live: bool = False

    def __post_init__(self) -> None:
        self._live = self.mode == "text" and self.err.isatty()

    def __call__(self, event: Event) -> None:
        if self.mode == "json":
            if not isinstance(event, QUIET_EVENTS):
                self.out.write(json.dumps(event.to_json(), default=str) + "\n")
                self.out.flush()
            return
        if self.mode == "quiet":
            return
        agent = event.agent_id or "-"
        match event:
            case ev.StateChanged(state=state):
                self.states[agent] = state
            case ev.PlannerReply(prompt_tokens=prompt, completion_tokens=completion):
                self.tokens[agent] = self.tokens.get(agent, 0) + prompt + completion
        # Planner text and file contents reach these lines: escape what the terminal would run.
        line = escape_controls(_event_line(event), keep_lines=False)
        if self._live:
            if line:
                self.err.write("\r\033[K" + line + "\n")
            self._progress()
        elif line:
            self.err.write(line + "\n")
        self.err.flush()

    def _progress(self) -> None:
        self._tick += 1
        elapsed = time.monotonic() - self.started
        parts = [
            f"{a} {s} {self.tokens.get(a, 0) / 1000:.1f}k tok"
            for a, s in self.states.items()
            if s not in FINAL_STATES
        ]
        spin = SPINNER[self._tick % len(SPINNER)]
        self.err.write(f"\r\033[K{spin} {elapsed:5.1f}s  " + " | ".join(parts[:4]))

    def clear(self) -> None:
        if self._live:
            self.err.write("\r\033[K")
            self.err.flush()


def _event_line(event: Event) -> str:
    a = event.agent_id
    match event:
        case ev.Queued(task=task):
            return f"[{a}] queued: {task[:70]}"
        case ev.WorktreeReady(worktree=worktree, branch=branch):
            return f"[{a}] worktree {worktree} on branch {branch}"
        case ev.ToolCalled(tool=tool, target=target):
            return f"[{a}] {tool} {target}"
        case ev.ToolReturned(ok=False, result=result):
            return f"[{a}]   -> {result.splitlines()[0][:100] if result else ''}"
        case ev.FileChanged(path=path, deleted=True):
            return f"[{a}]   deleted {path}"
        case ev.FileChanged(path=path, added=added, removed=removed):
            return f"[{a}]   {path} +{added or 0} -{removed or 0}"
        case ev.AgentFinished(status=status, error=error):
            extra = f": {error}" if error else ""
            return f"[{a}] {status}{extra}"
        case ev.Plan():
            return f"attention: agent {a} has a plan to approve (cursorish chat {a} --approve)"
        case ev.Notice(message=message):
            return f"notice: {message}"
        case ev.McpUnavailable(server=server, error=error):
            why = (error.splitlines() or [""])[0]
            return f"[{a}] MCP server {server} offers no tools: {why}"
    return ""


def format_report(report: AgentReport, repo_root: Path) -> str:
    tokens = report.prompt_tokens + report.completion_tokens
    lines = [
        f"agent {report.agent_id}: {report.status}  ({report.steps} steps, "
        f"{tokens:,} tokens, ${report.cost_usd:.4f}, {report.elapsed_s:.1f}s)",
        f"  branch    {report.branch}"
        + (f"  (commit {report.commit[:10]})" if report.commit else "  (no commit)"),
        f"  worktree  {report.worktree}",
    ]
    if report.base_ref:
        lines.append(f"  base      {report.base_ref} ({report.base_commit[:10]})")
    if report.files:
        for i, f in enumerate(report.files):
            stat = "binary" if f.get("added") is None else f"+{f['added']} -{f['deleted']}"
            lines.append(f"  {'files' if i == 0 else '':8}  {f['path']}  {stat}")
    else:
        lines.append("  files     (none changed)")
    if report.plan:
        lines.append("  plan")
        lines += [f"    {line}" for line in report.plan.splitlines()]
        lines.append(
            f"  approve   cursorish chat {report.agent_id} --approve  (or send a follow-up)"
        )
    elif report.summary:
        lines.append(f"  summary   {report.summary.strip().splitlines()[0][:200]}")
    if report.error:
        lines.append(f"  error     {report.error}")
    if report.commit:
        lines.append(
            f"  review    git -C {repo_root} diff {report.base_commit[:10]}..{report.branch}"
        )
    return "\n".join(lines)


def run_headless(
    repo: RepoInfo,
    store: Store,
    settings: RunSettings,
    tasks: list[str],
    printer: Printer,
    *,
    base: str | None = None,
    plan: bool = False,
) -> int:
    """Run tasks to completion and print their reports; returns the process exit code.

    `base`: the commit-ish to start from (default HEAD); `plan`: plan first, print the plan."""
    from cursorish.core.orchestrator import Orchestrator

    if repo.dirty:
        start = f"--base {base}" if base else f"HEAD {repo.head_commit[:10]}"
        printer(
            ev.Notice(
                None,
                f"your checkout has uncommitted changes ({repo.dirty_summary}); "
                f"agents start from {start} and do not see them",
            )
        )
    orchestrator = Orchestrator(repo, store, settings, printer)
    try:
        reports = asyncio.run(orchestrator.run(tasks, base=base, plan=plan))
    except (KeyboardInterrupt, asyncio.CancelledError):
        printer.clear()
        print(
            "interrupted: agent worktrees and branches are kept; see `cursorish agents`",
            file=printer.err,
        )
        return int(ExitCode.INTERRUPTED)
    printer.clear()
    code = print_reports(reports, repo.root, printer)
    if orchestrator.signalled:
        # SIGINT/SIGTERM: every agent was cancelled and its work committed on its branch.
        print(
            "interrupted: the agents were cancelled; their work is committed on their "
            "branches (resume with `cursorish agents resume ID`)",
            file=printer.err,
        )
        return int(ExitCode.INTERRUPTED)
    return code


def print_reports(reports: list[AgentReport], repo_root: Path, printer: Printer) -> int:
    if printer.mode == "json":
        summary: dict[str, Any] = {
            "event": "summary",
            "agents": [r.to_json() for r in reports],
            "exit_code": int(overall_exit(reports)),
        }
        if len(reports) == 1:
            summary.update(reports[0].to_json())
        printer.out.write(json.dumps(summary, default=str) + "\n")
    else:
        for report in reports:
            printer.out.write(escape_controls(format_report(report, repo_root)) + "\n")
        if len(reports) > 1:
            printer.out.write(compare_reports(reports) + "\n")
    printer.out.flush()
    return int(overall_exit(reports))


def compare_reports(reports: list[AgentReport]) -> str:
    head = (
        f"{'agent':8} {'status':17} {'files':>5} {'+':>6} {'-':>6} {'tests':>7} {'steps':>5} "
        f"{'tokens':>9} {'cost':>9} {'time':>7}"
    )
    rows = [head]
    for r in reports:
        added = sum(f.get("added") or 0 for f in r.files)
        removed = sum(f.get("deleted") or 0 for f in r.files)
        # passed/run: test-runner commands the agent ran and how many exited 0
        tests = f"{r.tests_passed}/{r.tests_run}" if r.tests_run else "-"
        rows.append(
            f"{r.agent_id:8} {r.status:17} {len(r.files):>5} {added:>6} {removed:>6} "
            f"{tests:>7} {r.steps:>5} {r.prompt_tokens + r.completion_tokens:>9,} "
            f"${r.cost_usd:>8.4f} {r.elapsed_s:>6.1f}s"
        )
    return "\n".join(rows)


def warn(line: str) -> None:
    """A warning line on stderr: the CLI's `warn` callback for the engine (config/settings.py)."""
    print(line, file=sys.stderr)


def warn_untrusted(repo_root: Path) -> None:
    """One stderr line naming the repository values ignored until the user trusts it."""
    from cursorish.core.trust import notice

    line = notice(repo_root)
    if line:
        warn(line)


def overall_exit(reports: list[AgentReport]) -> ExitCode:
    """0 if any agent succeeded (best-of-N needs one); else the first failure's code."""
    if any(r.exit_code == ExitCode.OK for r in reports):
        return ExitCode.OK
    return reports[0].exit_code if reports else ExitCode.AGENT_GAVE_UP
