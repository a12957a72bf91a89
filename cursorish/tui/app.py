"""The Textual app: the agents of a repository, the selected agent's transcript, and the
actions on them (new, cancel, resume, discard, review, compare), in a command palette too.

The app owns no engine logic: `EngineBridge` runs the orchestrators in this app's loop and
sends their events here in batches; the diff viewer (`review_screen`) is imported only when
it is first opened, so start-up pays for neither litellm nor the review machinery.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar, Literal

from textual.actions import SkipAction
from textual.app import App, ComposeResult, ScreenStackError
from textual.binding import Binding, BindingType
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.events import Resize
from textual.widgets import DataTable, Footer, Header, Input, TextArea

from cursorish.core import events as ev
from cursorish.errors import CursorishError
from cursorish.tui.agents_panel import AgentRow, AgentsPanel
from cursorish.tui.bridge import (
    FLUSH_S,
    AskRequest,
    EngineBridge,
    EngineEvents,
    EngineSetup,
    RunFailed,
)
from cursorish.tui.chat_input import ChatInput
from cursorish.tui.context_watch import CheckoutIndexer
from cursorish.tui.dialogs import (
    AskScreen,
    ConfirmScreen,
    NewAgentRequest,
    NewAgentScreen,
    PickScreen,
    TrustScreen,
)
from cursorish.tui.transcript import Transcript

DARK, LIGHT = "textual-dark", "textual-light"
PALETTE_HINT_WIDTH = 100
STORE_POLL_S = 2.0  # how often agents of other processes are looked up in the store
QUIT_SETTLE_S = 5.0  # how long q waits for ended agents' runs to finish before asking
NOTICE_TIMEOUT_S = 15.0  # engine notices (uncommitted changes, cancelling) stay this long
KEY_DISPLAY = {"delete": "del"}
NEEDS_AGENT = frozenset(
    {
        "review",
        "compare",
        "cancel_agent",
        "resume_agent",
        "discard_agent",
        "approve_plan",
        "edit_plan",
        "focus_chat",
    }
)


@dataclass(frozen=True)
class AppAction:
    """One action of the app: its key, footer label, palette title and help."""

    action: str
    key: str
    label: str
    title: str
    help: str
    show: bool = True
    # Checked when the key arrives, before keys typed after it are passed on (see focus_chat).
    priority: bool = False


ACTIONS: tuple[AppAction, ...] = (
    AppAction("new_agent", "n", "New", "New agent", "Start agents on a task (profile, best-of-N)"),
    AppAction("review", "d", "Review", "Review agent branch", "The diff viewer (d or enter)"),
    AppAction("compare", "c", "Compare", "Compare best-of-N", "Two results of one task"),
    AppAction("cancel_agent", "x", "Cancel", "Cancel agent", "Stop it; its work is kept"),
    AppAction("resume_agent", "r", "Resume", "Resume agent", "Continue from its transcript"),
    AppAction("discard_agent", "delete", "Discard", "Discard agent", "Remove worktree and branch"),
    AppAction(
        "focus_chat",
        "i",
        "Message",
        "Message the agent",
        "A follow-up (enter sends)",
        priority=True,
    ),
    AppAction("approve_plan", "a", "Approve", "Approve plan", "Execute the agent's plan"),
    AppAction("edit_plan", "e", "Edit plan", "Edit plan", "Edit the plan, then approve it"),
    AppAction("toggle_theme", "t", "Theme", "Toggle light/dark theme", "Switch the theme"),
    # Palette only (tab and shift+tab move the focus too):
    AppAction("focus_transcript", "", "", "Focus transcript", "Read and scroll it", show=False),
    AppAction("focus_agents", "", "", "Focus agents", "Pick an agent", show=False),
    AppAction("quit", "q", "Quit", "Quit", "Cancel running agents (work kept) and quit"),
)


class ActionsProvider(Provider):
    """Every action of the app in the command palette."""

    def _actions(self) -> list[tuple[str, str, Any]]:
        app = self.app
        if not isinstance(app, CursorishApp):
            return []
        return [(a.title, a.help, partial(app.run_action, a.action)) for a in app.palette_actions()]

    async def discover(self) -> Hits:
        for title, help_text, run in self._actions():
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, run in self._actions():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, help=help_text)


class CursorishApp(App[int]):
    """Agents side by side, their transcripts, and the way into review."""

    CSS_PATH = "app.tcss"
    TITLE = "cursorish"
    COMMANDS = App.COMMANDS | {ActionsProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            a.key,
            a.action,
            a.label,
            show=a.show,
            key_display=KEY_DISPLAY.get(a.key),
            priority=a.priority,
        )
        for a in ACTIONS
        if a.key
    ]

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

    @property
    def panel(self) -> AgentsPanel:
        return self.query_one("#agents", AgentsPanel)

    @property
    def transcript(self) -> Transcript:
        return self.query_one("#transcript", Transcript)

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

    def _row_from_store(self, agent_id: str, task: str = "") -> AgentRow | None:
        row = self.setup.store.agent(agent_id)
        if row is None:
            return None
        if not task:
            task = self.setup.store.task_text(row)
        if not task and agent_id in self.panel.rows:
            task = self.panel.rows[agent_id].task
        return AgentRow.from_store(row, task)

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

    def _reload_paths(self, agent_id: str) -> None:
        # A callable, not a coroutine: a worker cancelled before it starts leaves none
        # un-awaited behind.
        async def load() -> None:
            await self._load_paths(agent_id)

        # (textual types a callable's result as Never here; any callable works)
        self.run_worker(load, group="paths", exclusive=True)  # type: ignore[arg-type]

    # -- conversation (issue 15) -------------------------------------------------------------

    @property
    def chat_input(self) -> ChatInput:
        return self.query_one("#chat", ChatInput)

    async def _load_paths(self, agent_id: str) -> None:
        """The selected agent's files, for @path completion (git runs in a thread)."""
        from cursorish.core.conversation import agent_files

        paths = await asyncio.to_thread(
            agent_files, self.setup.store, self.setup.repo.root, agent_id
        )
        if self.panel.selected is not None and self.panel.selected.id == agent_id:
            self.chat_input.set_paths(paths)

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

    def _on_main_screen(self) -> bool:
        """True when the main screen is on top (or only the command palette is above it)."""
        stack = [s for s in self.screen_stack if not isinstance(s, CommandPalette)]
        return len(stack) == 1

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

    # -- review ------------------------------------------------------------------------------

    def _review_api(self) -> tuple[Any, Any, Any] | None:
        """(ReviewSession, ReviewScreen, CompareScreen), imported on first use."""
        try:
            review = importlib.import_module("cursorish.core.review")
            screens = importlib.import_module("cursorish.tui.review_screen")
        except ImportError:
            self.say("the diff viewer is not part of this build yet", severity="warning", timeout=6)
            return None
        return review.ReviewSession, screens.ReviewScreen, screens.CompareScreen

    def action_review(self) -> None:
        row = self.panel.selected
        api = self._review_api() if row is not None else None
        if row is None or api is None:
            return
        session_cls, review_screen, _ = api

        async def open_review() -> None:
            try:
                session = await asyncio.to_thread(
                    session_cls.open, self.setup.repo, self.setup.store, row.id
                )
            except CursorishError as exc:
                self.say(exc.message, severity="error", timeout=10)
                return
            await self.push_screen(
                review_screen(session, revise=partial(self.bridge.revise, row.id))
            )

        self.run_worker(open_review(), group="review", exclusive=True)

    def action_compare(self) -> None:
        row = self.panel.selected
        if row is None:
            return
        siblings = self.panel.siblings_of(row.id)
        if not siblings:
            self.say(
                "no other agent worked on this task; start several with best-of-N (n)",
                severity="warning",
            )
            return
        if len(siblings) == 1:
            self._compare(row.id, siblings[0].id)
            return
        choices = [(s.id, f"{s.id}  {s.state}  {s.activity[:50]}") for s in siblings]
        self.push_screen(
            PickScreen(f"Compare {row.id} with", choices),
            lambda other: self._compare(row.id, other) if other else None,
        )

    def _compare(self, a: str, b: str) -> None:
        api = self._review_api()
        if api is None:
            return
        session_cls, _, compare_screen = api

        async def open_compare() -> None:
            try:
                first, second = await asyncio.gather(
                    asyncio.to_thread(session_cls.open, self.setup.repo, self.setup.store, a),
                    asyncio.to_thread(session_cls.open, self.setup.repo, self.setup.store, b),
                )
            except CursorishError as exc:
                self.say(exc.message, severity="error", timeout=10)
                return
            await self.push_screen(compare_screen(first, second))

        self.run_worker(open_compare(), group="review", exclusive=True)

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
