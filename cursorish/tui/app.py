"""The Textual app: the agents of a repository, the selected agent's transcript, and the
actions on them (new, cancel, resume, discard, review, compare), in a command palette too.

The app owns no engine logic: `EngineBridge` runs the orchestrators in this app's loop and
sends their events here in batches; the diff viewer (`review_screen`) is imported only when
it is first opened, so start-up pays for neither litellm nor the review machinery.

Its parts: `actions` (the table of actions, keys and palette entries), `app_base` (state and
shared helpers), `agent_actions`, `chat_actions` and `review_launch` (the action groups);
this module lays the screen out and handles engine events, attention, asks and quitting.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.events import Resize
from textual.widgets import DataTable, Footer, Header

from cursorish.core import events as ev
from cursorish.errors import CursorishError
from cursorish.tui.actions import ACTIONS, NEEDS_AGENT, ActionsProvider, AppAction, bindings
from cursorish.tui.agent_actions import AgentActions
from cursorish.tui.agents_panel import AgentRow, AgentsPanel
from cursorish.tui.bridge import AskRequest, EngineEvents, RunFailed
from cursorish.tui.chat_actions import ChatActions
from cursorish.tui.chat_input import ChatInput
from cursorish.tui.context_watch import CheckoutIndexer
from cursorish.tui.dialogs import AskScreen, ConfirmScreen, TrustScreen
from cursorish.tui.palette import PALETTE_HINT_WIDTH
from cursorish.tui.review_launch import ReviewLaunch
from cursorish.tui.transcript import Transcript

QUIT_SETTLE_S = 5.0  # how long q waits for ended agents' runs to finish before asking
NOTICE_TIMEOUT_S = 15.0  # engine notices (uncommitted changes, cancelling) stay this long


class CursorishApp(AgentActions, ChatActions, ReviewLaunch):
    """Agents side by side, their transcripts, and the way into review."""

    CSS_PATH = "app.tcss"
    TITLE = "cursorish"
    COMMANDS = App.COMMANDS | {ActionsProvider}
    BINDINGS: ClassVar[list[BindingType]] = bindings()

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(icon="≡")
        with Vertical(id="main"):
            yield AgentsPanel(id="agents")
            yield Transcript(id="transcript")
            yield ChatInput(id="chat")
        yield Footer()

    def on_resize(self, event: Resize) -> None:
        # Below 100 columns every key of the footer needs the room of the palette hint.
        if self.screen_stack:
            with contextlib.suppress(NoMatches):
                footer = self.screen_stack[0].query_one(Footer)
                footer.show_command_palette = event.size.width >= PALETTE_HINT_WIDTH

    def on_mount(self) -> None:
        self.bridge.start()
        if self.setup.index_checkout:
            self.indexer = CheckoutIndexer(self.setup.repo.root)
            self.indexer.start()
        self._booted = True
        self.panel.load(self._stored_agents())
        self.panel.table.focus()
        if not self.panel.order:
            self.transcript.show(None, [], 0, self.bridge.snapshot("")[1])
        if self.setup.notice:
            self.say(self.setup.notice, title="cursorish", severity="warning", timeout=12)
        if self.setup.trust is not None:
            request = self.setup.trust
            self.push_screen(TrustScreen(str(request.repo), request.lines), self._trust_answered)
        if self.store_poll_s > 0:
            self.set_interval(self.store_poll_s, self._poll_store)

    def _trust_answered(self, yes: bool | None) -> None:
        request = self.setup.trust
        if request is None:
            return
        if not yes:
            self.say(
                "The repository's own settings stay off. To trust it later, quit and run "
                f"`cursorish trust --repo {request.repo}`.",
                title="not trusted",
                severity="warning",
                timeout=10,
            )
            return
        try:
            self.setup.settings_for = request.accept()
        except CursorishError as exc:
            self.say(exc.message, title="trust failed", severity="error", timeout=12)
            return
        self.setup.trust = None
        self.say("Repository trusted: its settings apply to agents started from now on.")

    def _poll_store(self) -> None:
        """Agents run by other processes (`cursorish --task` in another terminal) reach this
        app only through the store: add the new ones, update the ones that changed."""
        from cursorish.core.lifecycle import refresh_interrupted

        if not self._live_ui():
            return
        store = self.setup.store
        refresh_interrupted(store)
        panel = self.panel
        for row in reversed(store.agents()):  # oldest first: each new one goes on top
            agent_id = str(row["id"])
            if self.bridge.owns(agent_id) or row.get("discarded_at"):
                if row.get("discarded_at") and agent_id in panel.rows:
                    panel.remove_agent(agent_id)
                continue
            current = panel.rows.get(agent_id)
            if current is None:
                stored = self._row_from_store(agent_id)
                if stored is not None:
                    panel.add(stored)
                continue
            tokens = int(row["prompt_tokens"] or 0) + int(row["completion_tokens"] or 0)
            if row["state"] != current.state or tokens != current.tokens:
                self._refresh_row(agent_id)

    def _stored_agents(self) -> list[AgentRow]:
        from cursorish.core.lifecycle import list_agents

        store = self.setup.store
        rows = {row["id"]: row for row in store.agents()}
        out = []
        for view in list_agents(store):
            if view.discarded or view.id not in rows:
                continue
            out.append(AgentRow.from_store(rows[view.id], view.task))
        return out

    # -- engine events -----------------------------------------------------------------------

    def on_engine_events(self, message: EngineEvents) -> None:
        if not self._live_ui():
            return  # the app is closing: the store has it all
        panel = self.panel
        events = [event for _, event in message.events]
        for event in events:
            if event.agent_id is None:
                if isinstance(event, ev.Notice):
                    # Longer than the default 5 s: it comes while agents start, when the first
                    # planner import can hold the loop for seconds, and it is worth reading.
                    self.say(event.message, severity="warning", timeout=NOTICE_TIMEOUT_S)
            elif isinstance(event, ev.Queued):
                if event.agent_id not in panel.rows:
                    row = self._row_from_store(event.agent_id, event.task)
                    if row is not None:
                        panel.add(row)
                if self._select_new and event.agent_id in panel.rows:
                    panel.select(event.agent_id)
                    self._select_new = False
        panel.apply_events(events)
        self.transcript.apply_events(message.events)
        self._attend(events)
        for event in events:
            if isinstance(event, ev.Committed) and event.agent_id in panel.rows:
                self._refresh_row(event.agent_id)
        self._refresh_keys()

    def on_run_failed(self, message: RunFailed) -> None:
        if not self._live_ui():
            return
        who = f"agent {message.agent_id}: " if message.agent_id else ""
        self.say(who + message.error, severity="error", timeout=10)

    def on_agents_panel_selected(self, message: AgentsPanel.Selected) -> None:
        self._show_transcript(message.agent_id)
        self._refresh_keys()
        if message.agent_id and self.needs.pop(message.agent_id, None) is not None:
            self.panel.mark(message.agent_id, False)
            self._show_needs()
        if message.agent_id:
            self._reload_paths(message.agent_id)

    # -- conversation (issue 15) -------------------------------------------------------------

    def _attend(self, events: list[Any]) -> None:
        """Mark agents that need the user; bell and desktop notification (attention.py)."""
        from cursorish.attention import channels, need_of, terminal_sequence

        selected = self.panel.selected.id if self.panel.selected else None
        chosen = channels()
        for event in events:
            reload = isinstance(event, ev.WorktreeReady | ev.Committed)
            if selected is not None and event.agent_id == selected and reload:
                self._reload_paths(selected)  # its files exist, or changed, now
            need = need_of(event)
            if need is None:
                continue
            if need.agent_id != selected:  # the one on screen is seen already
                self.needs[need.agent_id] = need.text
                self.panel.mark(need.agent_id, True)
            sequence = terminal_sequence(need, chosen)
            if sequence:
                self.attention_log.append(sequence)
                driver = self._driver
                if driver is not None and not self.is_headless:
                    driver.write(sequence)
                    driver.flush()
        self._show_needs()

    def _show_needs(self) -> None:
        base = str(self.setup.repo.root.name)
        count = len(self.needs)
        self.sub_title = (
            f"{base} · ● {count} need{'s' if count == 1 else ''} you" if count else base
        )

    def _refresh_keys(self) -> None:
        """Redraw the footer when the keys that apply to the selected agent change (not on
        every event: the footer rebuilds its widgets each time)."""
        row = self.panel.selected
        keys = None if row is None else (row.ended, row.resumable)
        if keys != self._keys_for:
            self._keys_for = keys
            self.refresh_bindings()

    def _show_transcript(self, agent_id: str | None) -> None:
        row = self.panel.rows.get(agent_id or "")
        seq, live = self.bridge.snapshot(agent_id or "")
        entries = self.setup.store.transcript(row.id) if row else []
        self.transcript.show(row, entries, seq, live)
        for queued in self.setup.store.queued_messages(row.id) if row else []:
            self.transcript.show_queued(int(queued["id"]), str(queued["text"]))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.run_action_soon("review")

    def run_action_soon(self, action: str) -> None:
        self.call_later(self.run_action, action)

    # -- actions -----------------------------------------------------------------------------

    def palette_actions(self) -> list[AppAction]:
        return [a for a in ACTIONS if self.check_action(a.action, ()) is not False]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if (action in NEEDS_AGENT or action == "new_agent") and not self._on_main_screen():
            # Only on the main screen: one dialog at a time (the ask dialog stays on top),
            # and the review screen's keys never act on an agent the user does not see.
            return False
        if action not in NEEDS_AGENT:
            return True
        row = self.panel.selected if self._booted else None
        if row is None:
            return None  # shown dimmed in the footer
        if action == "cancel_agent":
            return None if row.ended else True
        if action == "resume_agent":
            return True if row.resumable else None
        if action == "discard_agent":
            return True if row.ended else None
        return True

    # -- ask ---------------------------------------------------------------------------------

    def on_ask_request(self, message: AskRequest) -> None:
        """An agent asks to run a command: one dialog at a time, in order of asking."""
        self._asks.append((message.agent_id, message.command, message.future))
        self._next_ask()

    def _next_ask(self) -> None:
        if self._asking:
            return
        while self._asks:
            agent_id, command, future = self._asks.popleft()
            if future.done():
                continue
            self._asking = True
            self.push_screen(AskScreen(agent_id, command, future), self._ask_closed)
            return

    def _ask_closed(self, _result: None) -> None:
        self._asking = False
        self._next_ask()

    # -- quitting ----------------------------------------------------------------------------

    async def action_quit(self) -> None:
        if self._quitting:
            return
        if self.bridge.busy and all(r.ended for r in self.panel.rows.values()):
            # Every agent shows as ended and only its run's last steps (the final commit) are
            # left: wait for them rather than ask about agents the panel shows as done.
            await self.bridge.settle(QUIT_SETTLE_S)
        if not self.bridge.busy:
            await self._shutdown_and_exit()
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.run_worker(self._shutdown_and_exit(), group="quit")

        running = sum(1 for r in self.panel.rows.values() if not r.ended)
        self.push_screen(
            ConfirmScreen(
                f"{running or 'Some'} agent(s) are still running. Quit and cancel them?\n\n"
                "What they changed so far is committed on their branches; "
                "resume them later with r.",
                "Quit",
            ),
            confirmed,
        )

    async def _shutdown_and_exit(self) -> None:
        self._quitting = True
        if self.bridge.busy:
            self.say("cancelling agents and committing their work…", timeout=15)
        await self.bridge.shutdown()
        self.exit(0)

    async def on_unmount(self) -> None:
        if self.indexer is not None:
            self.indexer.stop()
        # Quitting any other way (an error, the terminal closing) still stops the agents.
        await self.bridge.shutdown(timeout_s=5.0)
