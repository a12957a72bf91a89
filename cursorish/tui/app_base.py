"""What every part of the app shares: its state, its widgets, notifications, and agent rows
read from the store. `CursorishApp` is this plus the action groups (`agent_actions`,
`chat_actions`, `review_launch`), each a subclass of `AppBase`."""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future
from typing import Literal

from textual.app import App, ScreenStackError
from textual.command import CommandPalette
from textual.css.query import NoMatches

from cursorish.tui.agents_panel import AgentRow, AgentsPanel
from cursorish.tui.bridge import FLUSH_S, EngineBridge, EngineSetup
from cursorish.tui.chat_input import ChatInput
from cursorish.tui.context_watch import CheckoutIndexer
from cursorish.tui.transcript import Transcript

STORE_POLL_S = 2.0  # how often agents of other processes are looked up in the store


class AppBase(App[int]):
    """The app's state and the helpers its action groups use."""

    def __init__(
        self,
        setup: EngineSetup,
        *,
        flush_s: float | None = None,
        store_poll_s: float = STORE_POLL_S,
    ) -> None:
        super().__init__()
        self.setup = setup
        self.store_poll_s = store_poll_s
        self.bridge = EngineBridge(setup, self, flush_s=flush_s or FLUSH_S)
        self.sub_title = str(setup.repo.root.name)
        self._asks: deque[tuple[str, str, Future[str]]] = deque()
        self._asking = False
        self._select_new = False
        self._quitting = False
        self._booted = False
        self._keys_for: tuple[bool, bool] | None = None
        self.indexer: CheckoutIndexer | None = None  # the checkout's context index, kept current
        # Agents that need the user (attention.py), and what was written to the terminal.
        self.needs: dict[str, str] = {}
        self.attention_log: list[str] = []
        self._editing_plan: str | None = None  # the agent whose plan the input line edits

    @property
    def panel(self) -> AgentsPanel:
        return self.query_one("#agents", AgentsPanel)

    @property
    def transcript(self) -> Transcript:
        return self.query_one("#transcript", Transcript)

    @property
    def chat_input(self) -> ChatInput:
        return self.query_one("#chat", ChatInput)

    def _row_from_store(self, agent_id: str, task: str = "") -> AgentRow | None:
        row = self.setup.store.agent(agent_id)
        if row is None:
            return None
        if not task:
            task = self.setup.store.task_text(row)
        if not task and agent_id in self.panel.rows:
            task = self.panel.rows[agent_id].task
        return AgentRow.from_store(row, task)

    def _live_ui(self) -> bool:
        """False once the app is closing (its widgets go away while events still arrive)."""
        if self._exit or self._closing:
            return False
        try:
            return self.transcript.is_attached and self.panel.table.is_attached
        except (NoMatches, ScreenStackError):
            return False

    def _refresh_row(self, agent_id: str) -> None:
        """Take the final state, counts and summary from the store (after the commit the
        orchestrator may still change the state, e.g. done without changes -> gave up)."""
        old = self.panel.rows.get(agent_id)
        row = self._row_from_store(agent_id, old.task if old else "")
        if row is None:
            return
        if old is not None and not row.ended:
            row.activity = old.activity
        self.panel.update(row)
        if self.transcript.agent_id == agent_id and row.ended:
            self.transcript.set_final(row.state, row.activity)

    def say(
        self,
        message: str,
        *,
        title: str = "",
        severity: Literal["information", "warning", "error"] = "information",
        timeout: float | None = None,
    ) -> None:
        """A notification whose text is shown as is (messages hold paths, commands, errors
        with brackets that must not be read as markup)."""
        self.notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def _on_main_screen(self) -> bool:
        """True when the main screen is on top (or only the command palette is above it)."""
        stack = [s for s in self.screen_stack if not isinstance(s, CommandPalette)]
        return len(stack) == 1
