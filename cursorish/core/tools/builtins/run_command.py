"""run_command: a command line in the worktree, under the command policy and the OS sandbox
(core/command_runner.py runs it)."""

from __future__ import annotations

import dataclasses
from typing import Any

from cursorish.core.command_runner import (
    WITH_NETWORK,
    CommandRefused,
    check_policy,
    run_in_worktree,
)
from cursorish.core.events import CommandDone, RunningCommand
from cursorish.core.states import AgentState
from cursorish.core.tools.base import Tool, ToolResult, arguments
from cursorish.core.tools.tool_context import ToolContext


def run_command(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        return ToolResult("error: 'command' must be a non-empty string", ok=False)
    policy = ctx.command_policy
    sandbox = ctx.sandbox
    if policy == "ask":
        answer = ctx.ask(command) if ctx.ask is not None else False
        if not answer:
            return ToolResult("the user did not allow this command", ok=False)
        if answer == WITH_NETWORK and sandbox.enabled:
            sandbox = dataclasses.replace(sandbox, network=True)
    try:
        argv = check_policy(command, policy, ctx.command_allowlist)
    except CommandRefused as exc:
        return ToolResult(f"error: {exc}", ok=False)
    timeout = float(args.get("timeout_s") or ctx.command_timeout_s)
    timeout = min(max(timeout, 1.0), ctx.command_timeout_s)
    ctx.emit(RunningCommand(ctx.agent_id, command))
    result = run_in_worktree(
        argv,
        ctx.root,
        timeout_s=timeout,
        cancel=ctx.cancel,
        sandbox=sandbox,
        repo_root=ctx.repo_root,
    )
    ctx.emit(CommandDone(ctx.agent_id, command, result.exit_code, result.timed_out))
    return ToolResult(
        result.render(), ok=result.exit_code == 0, command=command, exit_code=result.exit_code
    )


TOOL = Tool(
    name="run_command",
    description="Run a command (tests, linters) in the repository root; returns exit code and "
    "output.",
    parameters=arguments(
        {"command": {"type": "string"}, "timeout_s": {"type": "number"}}, ["command"]
    ),
    handler=run_command,
    # Not slotted: a test suite can take minutes (see core/cpu_slots.py).
    busy=AgentState.RUNNING_COMMAND,
    starts_processes=True,
    order=90,
)
