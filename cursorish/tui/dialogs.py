"""The app's modal dialogs: start an agent, answer an agent's request to run a command,
confirm a destructive action, pick one agent of several, trust the repository's files."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from cursorish.core.text import escape_controls
from cursorish.tui.bridge import ALLOW_ALWAYS, ALLOW_NETWORK, ALLOW_ONCE, DENY

MAX_AGENTS = 8


@dataclass(frozen=True)
class NewAgentRequest:
    task: str
    profile: str
    count: int  # best-of-N
    plan: bool = False  # plan first: read, propose a plan, wait for approval


class NewAgentScreen(ModalScreen[NewAgentRequest | None]):
    """Task, profile and best-of-N for new agents."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, profiles: tuple[str, ...], default_profile: str) -> None:
        super().__init__()
        self.profiles = profiles or (default_profile,)
        self.default_profile = default_profile

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Label("New agent", classes="dialog-title")
            yield Input(placeholder="what should the agent do?", id="task")
            with Horizontal(classes="row"):
                yield Label("profile", classes="field")
                yield Select(
                    [(p, p) for p in self.profiles],
                    value=self.default_profile
                    if self.default_profile in self.profiles
                    else self.profiles[0],
                    allow_blank=False,
                    id="profile",
                )
            with Horizontal(classes="row"):
                yield Label("best of", classes="field")
                yield Select(
                    [(str(n), n) for n in range(1, MAX_AGENTS + 1)],
                    value=1,
                    allow_blank=False,
                    id="count",
                )
            yield Checkbox("plan first (read, propose, wait for approval)", id="plan")
            yield Static("", id="error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Start", variant="primary", id="start")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#task", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self._submit()
        else:
            self.dismiss(None)

    def _submit(self) -> None:
        task = self.query_one("#task", Input).value.strip()
        if not task:
            self.query_one("#error", Static).update("Describe the task first.")
            self.query_one("#task", Input).focus()
            return
        profile = self.query_one("#profile", Select).value
        count = self.query_one("#count", Select).value
        self.dismiss(
            NewAgentRequest(
                task=task,
                profile=str(profile) if isinstance(profile, str) else self.default_profile,
                count=count if isinstance(count, int) else 1,
                plan=self.query_one("#plan", Checkbox).value,
            )
        )

    def action_cancel(self) -> None:
        self.dismiss(None)


class AskScreen(ModalScreen[None]):
    """An agent asks to run a command: allow once, allow always (this session) or deny.

    The answer goes into `future` (a tool thread waits on it). If something else answers
    first (the agent was cancelled, the app quits) the dialog closes by itself.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "answer('once')", "Allow once"),
        Binding("a", "answer('always')", "Allow always"),
        Binding("n", "answer('network')", "Allow once with network"),
        Binding("d,escape", "answer('deny')", "Deny"),
    ]

    def __init__(self, agent_id: str, command: str, future: Future[str]) -> None:
        super().__init__()
        self.agent_id = agent_id
        self.command = command
        self.future = future
        self._stale = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog ask"):
            mcp = self.command.startswith("MCP ")  # an MCP tool call (cursorish/mcp/tools.py)
            what = "to call an MCP tool" if mcp else "to run a command"
            yield Label(f"Agent {self.agent_id} asks {what}", classes="dialog-title")
            # Escaped: an ESC or CR sequence must not hide what the user is asked to allow.
            yield Static(Text(escape_controls(self.command)), id="command", classes="command")
            yield Static(
                "The tool acts with its server's rights. Always: this exact call, until you quit."
                if mcp
                else "It runs in the agent's worktree, in the sandbox, offline. Always: this exact "
                "command, until you quit. With network: once, the sandbox's network opened for it.",
                classes="hint",
            )
            with Horizontal(classes="buttons"):
                yield Button("Allow once (o)", variant="primary", id="once")
                yield Button("Always (a)", id="always")
                if not mcp:
                    yield Button("With network (n)", id="network")
                yield Button("Deny (d)", variant="error", id="deny")

    def on_mount(self) -> None:
        self.future.add_done_callback(self._answered)
        self.query_one("#once", Button).focus()

    def _answered(self, _future: Future[str]) -> None:
        # Runs on the app's loop (every answer is given there). Under another modal (the
        # command palette) the dialog closes as soon as it is on top again.
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)
        else:
            self._stale = True

    def on_screen_resume(self) -> None:
        if self._stale:
            self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or DENY)

    def action_answer(self, answer: str) -> None:
        if answer == ALLOW_NETWORK and self.command.startswith("MCP "):
            return  # an MCP server is already running: there is no network to open for it
        if answer not in (ALLOW_ONCE, ALLOW_ALWAYS, ALLOW_NETWORK, DENY):
            answer = DENY
        if not self.future.done():
            self.future.set_result(answer)


class ConfirmScreen(ModalScreen[bool]):
    """Yes or no before something that cannot be undone."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, message: str, confirm: str = "Yes") -> None:
        super().__init__()
        self.message = message
        self.confirm = confirm

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Static(Text(self.message), id="message")
            with Horizontal(classes="buttons"):
                yield Button(f"{self.confirm} (y)", variant="error", id="yes")
                yield Button("No (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class PickScreen(ModalScreen[str | None]):
    """Choose one of several items (for instance which sibling to compare with)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices  # (id, label)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield OptionList(
                *[Option(Text(label), id=key) for key, label in self.choices], id="pick"
            )

    def on_mount(self) -> None:
        self.query_one("#pick", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TrustScreen(ModalScreen[bool]):
    """The repository's `.cursorish/` files ask for values that widen what runs: trust it?"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "answer(True)", "Trust"),
        Binding("n,escape", "answer(False)", "Not now"),
    ]

    def __init__(self, repo: str, lines: tuple[str, ...]) -> None:
        super().__init__()
        self.repo = repo
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog trust"):
            yield Label("Trust this repository?", classes="dialog-title")
            yield Static(Text(self.repo), classes="hint")
            yield Static(
                "Its own cursorish files ask for these values, ignored until you trust it:",
                classes="hint",
            )
            yield Static(Text("\n".join(self.lines)), id="values", classes="command")
            yield Static(
                "Trust is recorded for these exact file contents; a change asks again. "
                "The same as `cursorish trust`.",
                classes="hint",
            )
            with Horizontal(classes="buttons"):
                yield Button("Trust (t)", variant="warning", id="trust")
                yield Button("Not now (n)", id="not-now")

    def on_mount(self) -> None:
        self.query_one("#not-now", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "trust")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
