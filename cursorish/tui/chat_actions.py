"""Talking to an agent from the app (issue 15): the message line with @path completion,
approving a plan, and editing a plan before approving it."""

from __future__ import annotations

import asyncio

from textual.actions import SkipAction
from textual.css.query import NoMatches
from textual.widgets import Input, TextArea

from cursorish.errors import CursorishError
from cursorish.tui.app_base import AppBase
from cursorish.tui.chat_input import ChatInput


class ChatActions(AppBase):
    """focus_chat, approve_plan, edit_plan, and sending what the message line holds."""

    def _reload_paths(self, agent_id: str) -> None:
        # A callable, not a coroutine: a worker cancelled before it starts leaves none
        # un-awaited behind.
        async def load() -> None:
            await self._load_paths(agent_id)

        # (textual types a callable's result as Never here; any callable works)
        self.run_worker(load, group="paths", exclusive=True)  # type: ignore[arg-type]

    async def _load_paths(self, agent_id: str) -> None:
        """The selected agent's files, for @path completion (git runs in a thread)."""
        from cursorish.core.conversation import agent_files

        paths = await asyncio.to_thread(
            agent_files, self.setup.store, self.setup.repo.root, agent_id
        )
        try:
            panel, chat = self.panel, self.chat_input
        except NoMatches:
            return  # the app closed while git listed the files: its main screen is gone
        if panel.selected is not None and panel.selected.id == agent_id:
            chat.set_paths(paths)

    def on_chat_input_send(self, message: ChatInput.Send) -> None:
        row = self.panel.selected
        if row is None:
            self.say("select an agent first (or press n to start one)", severity="warning")
            return
        approve = self._editing_plan == row.id
        self._editing_plan = None
        self.chat_input.border_title = "Message"
        try:
            how = self.bridge.chat(row.id, message.text, approve=approve)
        except CursorishError as exc:
            self.say(exc.message, severity="error", timeout=10)
            return
        if how == "queued":
            self.say(f"queued for {row.id}: delivered at its next planner turn", timeout=4)

    def action_focus_chat(self) -> None:
        # A priority binding focusing at once (not at call_later): keys typed right after `i`
        # are already queued and must land in the input line, not on the agents table's
        # bindings. Where `i` is text (an input has focus, a dialog is open) it is passed on.
        if not self._on_main_screen() or isinstance(self.focused, Input | TextArea):
            raise SkipAction
        self.screen.set_focus(self.chat_input)

    def action_approve_plan(self) -> None:
        row = self.panel.selected
        if row is None:
            return
        try:
            self.bridge.chat(row.id, "", approve=True)
        except CursorishError as exc:
            self.say(exc.message, severity="warning", timeout=8)
            return
        self.say(f"plan of {row.id} approved: it executes it now", timeout=4)

    def action_edit_plan(self) -> None:
        row = self.panel.selected
        stored = self.setup.store.agent(row.id) if row is not None else None
        if row is None or not stored or not stored.get("plan_mode") or not stored.get("plan"):
            self.say(
                "this agent has no plan to edit (start one with plan first)", severity="warning"
            )
            return
        self._editing_plan = row.id
        chat = self.chat_input
        chat.load_text(str(stored["plan"]))
        chat.border_title = f"Plan of {row.id} (enter approves it as edited)"
        self.screen.set_focus(chat)
