"""The app's actions on agents: start (new, best-of-N), cancel, resume, discard; and the
theme and focus actions of the palette."""

from __future__ import annotations

from cursorish.errors import CursorishError
from cursorish.tui.app_base import AppBase
from cursorish.tui.dialogs import ConfirmScreen, NewAgentRequest, NewAgentScreen

DARK, LIGHT = "textual-dark", "textual-light"


class AgentActions(AppBase):
    """new_agent, cancel_agent, resume_agent, discard_agent, toggle_theme, focus_*."""

    def action_new_agent(self) -> None:
        self.push_screen(
            NewAgentScreen(self.setup.profiles, self.setup.default_profile), self._start_agents
        )

    def _start_agents(self, request: NewAgentRequest | None) -> None:
        if request is None:
            return
        try:
            self.bridge.start_agents(
                request.task, profile=request.profile, count=request.count, plan=request.plan
            )
        except CursorishError as exc:
            self.say(exc.message, title="cannot start an agent", severity="error", timeout=15)
            return
        self._select_new = True
        many = f"{request.count} agents" if request.count > 1 else "an agent"
        self.say(f"starting {many}: {request.task[:60]}", timeout=3)

    def action_cancel_agent(self) -> None:
        row = self.panel.selected
        if row is None:
            return
        try:
            how = self.bridge.cancel(row.id)
        except CursorishError as exc:
            self.say(exc.message, severity="warning")
            return
        if how == "marked":
            self._refresh_row(row.id)
        elif how == "signalled":
            self.say(f"asked the process running {row.id} to cancel it")

    def action_resume_agent(self) -> None:
        row = self.panel.selected
        if row is None:
            return
        try:
            self.bridge.resume(row.id)
        except CursorishError as exc:
            self.say(exc.message, severity="error", timeout=10)

    def action_discard_agent(self) -> None:
        row = self.panel.selected
        if row is None:
            return
        if not row.ended:
            self.say(f"agent {row.id} is {row.state}: cancel it first (x)", severity="warning")
            return
        message = (
            f"Discard agent {row.id}?\n\nIts worktree and its branch {row.branch} are deleted, "
            "with every change not merged yet. This cannot be undone."
        )

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.run_worker(self._discard(row.id), group="discard")

        self.push_screen(ConfirmScreen(message, "Discard"), confirmed)

    async def _discard(self, agent_id: str) -> None:
        try:
            removed = await self.bridge.discard(agent_id)
        except CursorishError as exc:
            self.say(exc.message, severity="error", timeout=10)
            return
        self.panel.remove_agent(agent_id)
        what = ", ".join(removed) if removed else "nothing left on disk"
        self.say(f"discarded {agent_id} ({what})", timeout=5)

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT if self.current_theme.dark else DARK

    def action_focus_transcript(self) -> None:
        self.screen.set_focus(self.transcript)

    def action_focus_agents(self) -> None:
        self.screen.set_focus(self.panel.table)
