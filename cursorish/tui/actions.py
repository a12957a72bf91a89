"""The app's actions in one table: key, footer label, command palette title and help; the
bindings and the palette provider are built from it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from textual.binding import Binding, BindingType

from cursorish.tui.palette import PaletteEntry, PaletteProvider

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


class ActionsProvider(PaletteProvider):
    """Every action of the app in the command palette."""

    def entries(self) -> list[PaletteEntry]:
        from cursorish.tui.app import CursorishApp  # the app imports this module

        app = self.app
        if not isinstance(app, CursorishApp):
            return []
        return [(a.title, a.help, partial(app.run_action, a.action)) for a in app.palette_actions()]


def bindings() -> list[BindingType]:
    """The key bindings of the actions that have a key."""
    return [
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
