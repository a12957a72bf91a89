"""Talking to agents (issue 15): follow-up messages, mentions, plan-first mode.

An agent is a conversation. A message to an agent that has ended (done, failed, cancelled,
gave up, out of budget, interrupted) continues it on its branch from its stored transcript
(`Orchestrator.revise`); a message to an agent another process is running is queued in the
store (`agent_inbox`) and delivered by that process at its next planner turn
(`deliver_queued`). Mentions attach context: `@path/to/file` the file as it is in the
agent's worktree, `@agent-id` another agent's branch diff.

Plan first: the agent may only read and search; it ends with a numbered plan, stored on its
row. Approving it (`approve_message`) lifts the restriction and hands the plan back as the
instruction; any other message revises the plan.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cursorish.core.events import Event, MessageDelivered
from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.runner import run_git

if TYPE_CHECKING:
    from cursorish.core.tools import ToolResult
    from cursorish.store.db import Store

# A planning agent keeps the tools that only read and search (`Tool.read_only`; MCP tools and
# any tool that writes or runs something are left out, whatever the profile offers).
PLAN_INSTRUCTIONS = (
    "PLAN MODE. Do not change anything yet: you can only read and search (read_file, "
    "list_files, grep and the search tools). Study the code the task touches, then call "
    "finish with status done and, as the summary, the plan: a numbered list (1., 2., ...) of "
    "concrete steps naming the files and functions to change. The user approves, edits or "
    "answers the plan before anything is changed."
)
MENTION_FILE_LIMIT = 60_000  # characters of one attached file
MENTION_DIFF_LIMIT = 60_000  # characters of one attached agent diff
_MENTION = re.compile(r"(?<![\w@./-])@([\w][\w./+-]*)")
_NUMBERED = re.compile(r"(?m)^\s*(\d+)[.)]\s+\S")


# -- plan mode -------------------------------------------------------------------------------


def refuse_in_plan_mode(name: str, _arguments: str) -> ToolResult:
    from cursorish.core.tools import ToolResult

    return ToolResult(
        f"error: {name} is not available in plan mode: read and search, then call finish "
        "with the numbered plan",
        ok=False,
    )


def looks_like_plan(text: str) -> bool:
    """True when `text` holds a numbered list of at least one step."""
    return bool(_NUMBERED.search(text or ""))


def extract_plan(text: str) -> str:
    """The plan in a planner's final text: from its first numbered step on (an intro line
    before it is dropped), trailing blank lines removed."""
    text = (text or "").strip()
    m = _NUMBERED.search(text)
    return text[m.start() :].strip() if m else text


def approve_message(plan: str) -> str:
    return (
        "The plan is approved. Plan mode is over: you may now edit files and run commands. "
        "Carry out this plan, then call finish with a summary of what you changed.\n\n"
        f"Plan:\n{plan.strip()}"
    )


# -- queued messages -------------------------------------------------------------------------


def deliver_queued(
    store: Store,
    agent_id: str,
    messages: list[dict[str, Any]],
    emit: Callable[[Event], None],
) -> int:
    """Append the messages queued for `agent_id` (marked delivered as they are taken) to
    `messages` and, through `emit` (the store recorder), its transcript; returns how many."""
    taken = store.take_queued_messages(agent_id)
    for row in taken:
        note = {"role": "user", "content": str(row["text"])}
        messages.append(note)
        emit(MessageDelivered(agent_id, row["id"], row["text"], message=note))
    return len(taken)


def has_queued(store: Store, agent_id: str) -> bool:
    return bool(store.queued_messages(agent_id))


# -- mentions --------------------------------------------------------------------------------


def expand_mentions(
    text: str, *, store: Store, repo_root: Path, row: dict[str, Any], worktree: Path | None
) -> str:
    """`text` followed by what its mentions refer to: `@path` the file from the agent's
    worktree (else from its branch), `@agent-id` that agent's branch diff against its base.
    A mention that names neither is left as it is (an e-mail address, a decorator...)."""
    attached: list[str] = []
    seen: set[str] = set()
    for m in _MENTION.finditer(text):
        name = m.group(1).rstrip(".,;:)")
        if name in seen:
            continue
        seen.add(name)
        block = _file_mention(name, repo_root, row, worktree)
        if block is None:
            block = _agent_mention(name, store, repo_root, row)
        if block is not None:
            attached.append(block)
    if not attached:
        return text
    return text.rstrip() + "\n\n" + "\n\n".join(attached)


def _file_mention(
    name: str, repo_root: Path, row: dict[str, Any], worktree: Path | None
) -> str | None:
    from cursorish.core.containment import resolve_in_worktree

    if worktree is not None and worktree.is_dir():
        try:
            path = resolve_in_worktree(worktree, name)
        except CursorishError:
            return None  # outside the worktree, or a path git refuses
        if not path.is_file():
            return None
        data = path.read_bytes()
    else:
        status, data, _ = run_git(
            repo_root, "show", f"refs/heads/{row['branch']}:{name}", check=False
        )
        if status != 0:
            return None
    if b"\0" in data[:8000]:
        return f"# @{name}: a binary file ({len(data)} bytes), not attached"
    content = data.decode("utf-8", "replace")
    cut = ""
    if len(content) > MENTION_FILE_LIMIT:
        content, cut = content[:MENTION_FILE_LIMIT], "\n... (cut: the file is longer)"
    return f"# @{name} (its current content in your worktree)\n```\n{content}{cut}\n```"


def _agent_mention(name: str, store: Store, repo_root: Path, row: dict[str, Any]) -> str | None:
    if len(name) < 4 or not re.fullmatch(r"[0-9a-f]+", name):
        return None
    try:
        other = store.agent(name)
    except CursorishError:
        return None  # an ambiguous prefix: not a mention
    if other is None or other["id"] == row["id"]:
        return None
    status, out, _ = run_git(
        repo_root,
        "diff",
        "--no-color",
        "--no-ext-diff",
        str(other["base_commit"]),
        f"refs/heads/{other['branch']}",
        "--",
        check=False,
    )
    if status != 0:
        return f"# @{other['id']}: its branch {other['branch']} is gone"
    diff = os.fsdecode(out)
    if len(diff) > MENTION_DIFF_LIMIT:
        diff = diff[:MENTION_DIFF_LIMIT] + "\n... (cut: the diff is longer)"
    task = store.task_text(other).strip().splitlines()
    title = f" (task: {task[0][:200]})" if task else ""
    return (
        f"# @{other['id']}: what agent {other['id']} changed on {other['branch']}{title}\n"
        f"```diff\n{diff or '(no change)'}\n```"
    )


def prepare_message(
    store: Store, repo_root: Path, row: dict[str, Any], text: str | None, *, approve: bool
) -> tuple[str, bool]:
    """(the message to send, whether another run of the agent is still going on) for a
    follow-up to the agent of `row`: mentions expanded; with `approve`, the approval of its
    plan (`text`, when given, is the edited plan), recorded on the row. Raises CursorishError
    (BAD_ARGS) for a discarded agent, an empty message or nothing to approve."""
    from cursorish.core.lifecycle import is_interrupted
    from cursorish.core.states import ENDED_STATES

    agent_id = str(row["id"])
    if row.get("discarded_at"):
        raise CursorishError(f"agent {agent_id} was discarded", ExitCode.BAD_ARGS)
    message = check_message(text, approve=approve)
    running = row["state"] not in ENDED_STATES and not is_interrupted(row)
    if approve:
        if not row.get("plan_mode") or not (row.get("plan") or "").strip():
            raise CursorishError(
                f"agent {agent_id} has no plan to approve"
                + (" yet (it is still planning)" if running else "")
                + " (plans come from --plan)",
                ExitCode.BAD_ARGS,
            )
        if running:
            raise CursorishError(
                f"agent {agent_id} is still running; approve its plan once it ends",
                ExitCode.BAD_ARGS,
            )
        plan = message or str(row["plan"])
        store.update_agent(agent_id, plan=plan, plan_mode=0)
        return approve_message(plan), False
    worktree = current_worktree(store, row)
    return expand_mentions(
        message, store=store, repo_root=repo_root, row=row, worktree=worktree
    ), running


@contextlib.contextmanager
def plan_waits_if_not_started(store: Store, agent_id: str, *, approve: bool) -> Iterator[None]:
    """Around starting the run an approval asked for: when the block raises CursorishError (its
    settings, its worktree or its transcript failed before the agent started), the plan waits
    for approval again, so the user can retry."""
    try:
        yield
    except CursorishError:
        if approve:
            store.update_agent(agent_id, plan_mode=1)
        raise


def current_worktree(store: Store, row: dict[str, Any]) -> Path | None:
    """Where the agent's files are now: its worktree, else the review worktree of its
    branch; None when neither is there (mentions then read the branch)."""
    from cursorish.gitops.review_git import is_worktree_on

    own = Path(row["worktree"])
    if is_worktree_on(own, row["branch"]):
        return own
    review = store.review(row["branch"])
    if review is not None and is_worktree_on(Path(review["worktree"]), row["branch"]):
        return Path(review["worktree"])
    return None


def check_message(text: str | None, *, approve: bool) -> str:
    """The message of a `chat`, stripped; refuses an empty one (unless approving)."""
    message = (text or "").strip()
    if not message and not approve:
        raise CursorishError(
            'give a message: cursorish chat AGENT "what to do next" (or --approve)',
            ExitCode.BAD_ARGS,
        )
    return message


def agent_files(store: Store, repo_root: Path, agent_id: str) -> list[str]:
    """The files of an agent as they are now (for `@path` completion): its worktree's
    tracked and new files, else its branch's."""
    row = store.agent(agent_id)
    if row is None:
        return []
    worktree = current_worktree(store, row)
    if worktree is not None:
        status, out, _ = run_git(
            worktree, "ls-files", "-z", "--cached", "--others", "--exclude-standard", check=False
        )
    else:
        status, out, _ = run_git(
            repo_root,
            "ls-tree",
            "-r",
            "-z",
            "--name-only",
            f"refs/heads/{row['branch']}",
            check=False,
        )
    if status != 0:
        return []
    return sorted({os.fsdecode(p) for p in out.split(b"\0") if p})
