"""Preparing an agent's worktree in the background while its planner already thinks: create
it (unless resuming), copy the git-ignored local files, run the setup command, opening the
`WorkspaceGate`'s stages (core/workspace.py) as each step finishes.

A failure fails the gate with the reason (the agent then ends with it); an internal error is
saved as a crash report. Git and provisioning run in threads (`settled`: a cancel waits for
the step under way, so the worktree is whole or gone before anything is committed).
"""

from __future__ import annotations

import functools
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cursorish.core import cpu_slots
from cursorish.core import events as ev
from cursorish.core.agent import in_thread
from cursorish.core.provision import (
    ProvisionResult,
    ProvisionSpec,
    SetupFailed,
    copy_ignored_files,
    load_spec,
    run_setup_step,
)
from cursorish.core.sandbox import SandboxPolicy
from cursorish.core.settle import settled
from cursorish.core.workspace import WorkspaceGate
from cursorish.errors import CursorishError
from cursorish.gitops.repo import RepoInfo, branch_exists
from cursorish.gitops.worktrees import branch_name, create_worktree, new_agent_id
from cursorish.store.db import Store
from cursorish.store.paths import worktrees_dir

if TYPE_CHECKING:
    from cursorish.core.report import AgentReport


def allocate_agent(store: Store, repo: RepoInfo) -> tuple[str, Path, str]:
    """A fresh agent id whose row, branch and worktree directory are all unused; returns
    (agent id, worktree directory, branch)."""
    parent = worktrees_dir(repo.git_common_dir)
    while True:
        agent_id = new_agent_id()
        dest, branch = parent / agent_id, branch_name(agent_id)
        if (
            store.agent(agent_id) is None
            and not dest.exists()
            and not branch_exists(repo.root, branch)
        ):
            return agent_id, dest, branch


def create_agent_worktree(
    repo: RepoInfo, agent_id: str, dest: Path, branch: str, base: str
) -> None:
    """Create the agent's worktree (holding a checkout slot); a failure half-way leaves
    nothing behind."""
    with cpu_slots.CHECKOUT_SLOTS.held():
        create_worktree(repo, agent_id=agent_id, base_commit=base, dest=dest, branch=branch)


@dataclass(frozen=True)
class WorktreePrep:
    """What preparing a worktree needs from the run: the repository as of this run, the
    provisioning spec (None: read the repository's), the sandbox of the setup command."""

    repo: RepoInfo
    provision_spec: ProvisionSpec | None
    sandbox: SandboxPolicy
    emit: ev.EventSink  # the store recorder sees each event first

    async def prepare(
        self,
        report: AgentReport,
        gate: WorkspaceGate,
        cancel: threading.Event,
        *,
        create: bool = True,
    ) -> None:
        """Create (unless resuming) and provision the worktree, opening the gate's stages;
        a failure is recorded and fails the gate, which ends the agent with the reason."""
        try:
            await self._stages(report, gate, cancel, create=create)
        except Exception as exc:
            from cursorish.core.crashes import save_crash_report

            where = save_crash_report(exc, what=f"agent {report.agent_id}: preparing its worktree")
            report.crashed = True
            gate.fail(f"internal error preparing the worktree: {exc!r} (traceback in {where})")
        finally:
            # Whatever happened, no tool may wait for a stage that will never come.
            gate.fail("the worktree was not prepared")

    async def _stages(
        self,
        report: AgentReport,
        gate: WorkspaceGate,
        cancel: threading.Event,
        *,
        create: bool,
    ) -> None:
        agent_id, dest, root = report.agent_id, Path(report.worktree), self.repo.root
        t0 = time.monotonic()
        if create:
            try:
                await settled(
                    create_agent_worktree,
                    self.repo,
                    agent_id,
                    dest,
                    report.branch,
                    report.base_commit,
                )
            except CursorishError as exc:
                gate.fail(f"cannot create the worktree: {exc.message}")
                return
            self.emit(ev.WorktreeReady(agent_id, str(dest), report.branch))
        result = ProvisionResult()
        try:
            spec = self.provision_spec or await in_thread(load_spec, root)
            result.copied, result.skipped = await settled(copy_ignored_files, root, dest, spec.copy)
            gate.mark_checked_out()
            await settled(
                functools.partial(run_setup_step, sandbox=self.sandbox, repo_root=root),
                dest,
                spec,
                result,
                cancel,
            )
        except SetupFailed as exc:
            setup = exc.result.setup
            self.emit(ev.ProvisionFailed(agent_id, setup.output if setup else ""))
            gate.fail(exc.message)
            return
        except CursorishError as exc:
            gate.fail(f"cannot provision the worktree: {exc.message}")
            return
        except OSError as exc:
            gate.fail(f"cannot provision the worktree: {exc}")
            return
        setup = result.setup
        # Stored (provisioned_at) before the gate opens for the tools that wait on it.
        self.emit(
            ev.Provisioned(
                agent_id,
                result.copied,
                setup.exit_code if setup else None,
                setup_output=setup.output if setup else None,
            )
        )
        report.worktree_s = time.monotonic() - t0
        gate.mark_provisioned()
