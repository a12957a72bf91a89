"""`cursorish chat AGENT "message"` (and `cursorish --continue AGENT --task "message"`):
follow-ups to an agent, headless. See core/conversation.py for the model.

An agent that has ended is continued here, in this process, with the same events, summary
and exit codes as a task. An agent another process is running gets the message queued; this
command waits until that process delivers it (its next planner turn) and exits 0, or, when
the agent ends first without taking it, continues the agent itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import TYPE_CHECKING, Any

from cursorish.core.events import UserMessage
from cursorish.errors import ExitCode

if TYPE_CHECKING:
    from cursorish.headless import Printer
    from cursorish.store.db import Store

POLL_S = (0.05, 0.1, 0.2, 0.5)  # waiting for delivery: quick at first, then at most 2/s


def cmd_chat(ns: argparse.Namespace) -> int:
    from cursorish.config.settings import flags_from
    from cursorish.core.repo_store import open_repo_store
    from cursorish.headless import Printer

    continuing = getattr(ns, "continue_agent", None)
    ref = continuing if continuing is not None else ns.agent
    text = ns.task if continuing is not None else ns.message
    approve = bool(getattr(ns, "approve", False))
    with open_repo_store(ns.repo, flags_from(ns)) as opened:
        cfg = opened.cfg  # a configuration error is reported before the store is created
        printer = Printer(mode="json" if ns.json else "quiet" if ns.quiet else "text")
        return _chat(ns, opened.repo, cfg, opened.store, printer, ref, text, approve)


def _chat(
    ns: argparse.Namespace,
    repo: Any,
    cfg: Any,
    store: Store,
    printer: Printer,
    ref: str,
    text: str | None,
    approve: bool,
) -> int:
    from cursorish.core.conversation import plan_waits_if_not_started, prepare_message
    from cursorish.core.lifecycle import find_agent

    row = find_agent(store, ref)
    agent_id = str(row["id"])
    message, running = prepare_message(store, repo.root, row, text, approve=approve)
    if running:
        return _queue_and_wait(ns, repo, cfg, store, printer, agent_id, message)
    with plan_waits_if_not_started(store, agent_id, approve=approve):
        return _continue(ns, repo, cfg, store, printer, agent_id, message)


def _continue(
    ns: argparse.Namespace,
    repo: Any,
    cfg: Any,
    store: Store,
    printer: Printer,
    agent_id: str,
    message: str,
) -> int:
    """Continue an ended agent with `message`, in this process, and report as a task does."""
    from cursorish.config.settings import build_settings
    from cursorish.core.orchestrator import Orchestrator
    from cursorish.headless import print_reports, warn, warn_untrusted

    settings = build_settings(cfg, repo.root, warn=warn)
    warn_untrusted(repo.root)
    orchestrator = Orchestrator(repo, store, settings, printer)
    printer(UserMessage(agent_id, message))
    try:
        report = asyncio.run(orchestrator.revise(agent_id, message))
    except (KeyboardInterrupt, asyncio.CancelledError):
        printer.clear()
        print(
            "interrupted: the agent's work is committed on its branch; see `cursorish agents`",
            file=printer.err,
        )
        return int(ExitCode.INTERRUPTED)
    printer.clear()
    code = print_reports([report], repo.root, printer)
    if orchestrator.signalled:
        return int(ExitCode.INTERRUPTED)
    return code


def _queue_and_wait(
    ns: argparse.Namespace,
    repo: Any,
    cfg: Any,
    store: Store,
    printer: Printer,
    agent_id: str,
    message: str,
) -> int:
    """Queue `message` for the process running the agent and wait until it is delivered."""
    from cursorish.core.lifecycle import is_interrupted
    from cursorish.core.states import ENDED_STATES

    msg_id = store.queue_message(agent_id, message)
    _say(
        printer,
        "message_queued",
        agent_id,
        {"id": msg_id},
        "queued: delivered at its next "
        "planner turn (Ctrl-C stops waiting; the message stays queued)",
    )
    i = 0
    try:
        while True:
            time.sleep(POLL_S[min(i, len(POLL_S) - 1)])
            i += 1
            if not any(r["id"] == msg_id for r in store.queued_messages(agent_id)):
                _say(printer, "message_delivered", agent_id, {"id": msg_id}, "delivered")
                return 0
            row = store.agent(agent_id) or {}
            if row.get("state") in ENDED_STATES or is_interrupted(row):
                # It ended before its next turn: take the queue (atomically, so its own
                # process cannot deliver it too) and continue the agent here.
                taken = store.take_queued_messages(agent_id)
                if not taken:
                    continue  # delivered after all, at the very end
                text = "\n\n".join(str(r["text"]) for r in taken)
                return _continue(ns, repo, cfg, store, printer, agent_id, text)
    except KeyboardInterrupt:
        print("stopped waiting: the message stays queued for the agent", file=printer.err)
        return int(ExitCode.INTERRUPTED)


def _say(printer: Printer, kind: str, agent_id: str, data: dict[str, Any], text: str) -> None:
    if printer.mode == "json":
        printer.out.write(json.dumps({"event": kind, "agent": agent_id, **data}) + "\n")
        printer.out.flush()
    elif printer.mode == "text":
        print(f"[{agent_id}] {text}", file=printer.err)
