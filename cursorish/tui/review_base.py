"""What the review screens share (`ReviewScreenBase`): decisions on the active side (accept,
reject, with a reason, per file, undo, commit), refresh when git or the worktree changes, the
key table behind both the footer and the command palette, and the reason dialog.

Session calls run on the event loop thread: they are a few short git commands, and running
them one at a time keeps the order of decisions exactly the order of key presses.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Vertical
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, Label

from cursorish.core.review import Decision, ReviewSession
from cursorish.errors import CursorishError
from cursorish.tui.diff_model import PENDING, ViewFile, ViewHunk
from cursorish.tui.diff_view import DiffView
from cursorish.tui.palette import PALETTE_HINT_WIDTH, PaletteEntry, PaletteProvider
from cursorish.tui.review_files import session_view_files
from cursorish.tui.watch import WorktreeWatcher


@dataclass(frozen=True)
class _Command:
    key: str
    action: str
    footer: str  # short, for the footer
    title: str  # command palette
    help: str  # command palette
    group: Binding.Group | None = None
    show: bool = True
    key_display: str | None = None


_FILE = Binding.Group("file", compact=True)

# One table for the footer bindings and the command palette, so they cannot drift apart.
_DECISIONS = (
    _Command("a", "accept", "accept", "Accept", "Accept the current hunk (stage it)"),
    _Command(
        "x", "reject", "reject", "Reject", "Reject the current hunk (revert it in the worktree)"
    ),
    _Command("r", "reject_reason", "why", "Reject with reason", "Reject and tell the agent why"),
    _Command("A", "accept_file", "accept", "Accept file", "Accept the file's pending hunks", _FILE),
    _Command("X", "reject_file", "reject", "Reject file", "Reject the file's pending hunks", _FILE),
    _Command("u", "undo", "undo", "Undo", "Undo the last decision"),
    _Command("c", "commit", "commit", "Commit", "Commit the accepted hunks on the branch"),
    _Command("R", "refresh", "refresh", "Refresh", "Read the diff again from git", show=False),
    _Command("q,escape", "close", "back", "Back", "Close the review", key_display="q"),
)
_NAVIGATION = (
    ("next_hunk", "Next hunk", "Move to the next hunk (j / n)"),
    ("prev_hunk", "Previous hunk", "Move to the previous hunk (k / p)"),
    ("next_file", "Next file", "Move to the next file (J / ])"),
    ("prev_file", "Previous file", "Move to the previous file (K / [)"),
)


def _bindings(commands: Iterable[_Command]) -> list[BindingType]:
    return [
        Binding(c.key, c.action, c.footer, show=c.show, key_display=c.key_display, group=c.group)
        for c in commands
    ]


class ReasonScreen(ModalScreen[str | None]):
    """A one-line input for the reason of a rejection (enter sends, escape cancels)."""

    CSS_PATH = "review.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, what: str) -> None:
        super().__init__()
        self._what = what

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-box"):
            yield Label(f"Reject {self._what}: why? (sent to the agent)", id="reason-title")
            yield Input(placeholder="e.g. keep the old name, it is public API", id="reason")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReviewCommands(PaletteProvider):
    """Every review action in the command palette (of whichever review screen is open)."""

    def entries(self) -> list[PaletteEntry]:
        screen = self.screen
        if not isinstance(screen, ReviewScreenBase):
            return []
        return screen.palette_commands()


class Side:
    """One reviewed branch on screen: its session, its view and the worktree watcher."""

    def __init__(self, session: ReviewSession, view: DiffView) -> None:
        self.session = session
        self.view = view
        self.watcher: WorktreeWatcher | None = None


class ReviewScreenBase(Screen[None]):
    """What ReviewScreen and CompareScreen share: decisions on the active side, refresh,
    watchers, the status line and the command palette."""

    CSS_PATH = "review.tcss"
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ReviewCommands}
    BINDINGS: ClassVar[list[BindingType]] = _bindings(_DECISIONS)

    def __init__(self) -> None:
        super().__init__()
        self._sides: list[Side] = []
        self._active = 0
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- subclass hooks -------------------------------------------------------------------

    def _side_changed(self, side: Side, files: list[ViewFile]) -> None:
        """Called after a side's files were read again."""

    def _say(
        self, message: str, severity: SeverityLevel = "information", toast: bool = True
    ) -> None:
        """Tell the user; information goes to a toast only when `toast` (ReviewScreen also
        shows every message in its status line)."""
        if toast or severity != "information":
            self.notify(message, severity=severity, timeout=4)

    # -- sides ----------------------------------------------------------------------------

    @property
    def active(self) -> Side:
        return self._sides[self._active]

    def on_descendant_focus(self, _event: events.DescendantFocus) -> None:
        for i, side in enumerate(self._sides):
            if side.view.has_focus:
                self._active = i

    def on_mount(self) -> None:
        self._loop = asyncio.get_running_loop()
        for side in self._sides:
            self.reload(side)
        for side in self._sides:
            watcher = WorktreeWatcher(side.session.worktree, partial(self._worktree_changed, side))
            try:
                watcher.start()
            except OSError as exc:  # e.g. inotify watch limit reached
                self._say(f"not watching {side.session.worktree}: {exc}", "warning")
                continue
            side.watcher = watcher
        self._sides[0].view.focus()

    def on_unmount(self) -> None:
        for side in self._sides:
            if side.watcher is not None:
                side.watcher.stop()
                side.watcher = None

    def on_resize(self, event: events.Resize) -> None:
        # Below 100 columns the decision keys need the whole footer; ctrl+p still works.
        for footer in self.query(Footer):
            footer.show_command_palette = event.size.width >= PALETTE_HINT_WIDTH

    def _worktree_changed(self, side: Side) -> None:
        # Called from the watcher's timer thread.
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed after the check
            loop.call_soon_threadsafe(self._refresh_from_watch, side)

    def _refresh_from_watch(self, side: Side) -> None:
        if self.is_attached:
            self.reload(side)

    def reload(self, side: Side | None = None) -> None:
        """Read the side's (default: every side's) diff again from git and redraw it."""
        for s in [side] if side is not None else self._sides:
            try:
                files = session_view_files(s.session.files(), s.session.decisions())
            except CursorishError as exc:
                self._say(str(exc), "error")
                continue
            s.view.set_files(files)
            self._side_changed(s, files)

    # -- decisions ------------------------------------------------------------------------

    def _current(self) -> tuple[Side, ViewFile, ViewHunk] | None:
        side = self.active
        current = side.view.current
        if current is None:
            self._say("nothing to decide here", "warning")
            return None
        return side, current[0], current[1]

    def _decide(self, verb: str, reason: str = "") -> Decision | None:
        picked = self._current()
        if picked is None:
            return None
        side, _, hunk = picked
        if hunk.state != PENDING:
            self._say(f"this hunk is already {hunk.state} (u undoes the last decision)", "warning")
            return None
        session = side.session
        try:
            if verb == "accept":
                decision = session.accept(hunk.id)
            else:
                decision = session.reject(hunk.id, reason)
        except CursorishError as exc:
            self._say(str(exc), "error")
            self.reload(side)
            return None
        self._after_decision(side)
        return decision

    def _after_decision(self, side: Side) -> None:
        self.reload(side)
        # The decided hunk is still listed (with its new state): go on to the next pending one.
        nxt = side.view.next_hunk_in_state(PENDING)
        if nxt >= 0:
            side.view.select_hunk(nxt)

    def action_accept(self) -> None:
        self._decide("accept")

    def action_reject(self) -> None:
        self._decide("reject")

    def action_reject_reason(self) -> None:
        picked = self._current()
        if picked is None:
            return
        _, vf, hunk = picked
        if hunk.state != PENDING:
            self._say(f"this hunk is already {hunk.state}", "warning")
            return
        what = f"{vf.path} {hunk.header.split(' @@')[0]}@@" if hunk.header else vf.path
        self.app.push_screen(ReasonScreen(what), self._reason_given)

    def _reason_given(self, reason: str | None) -> None:
        if reason is None:
            return
        if self._decide("reject", reason) is not None:
            self._rejected_with_reason(self.active)

    def _rejected_with_reason(self, side: Side) -> None:
        """Hook: ReviewScreen sends the feedback to the agent."""

    def _file_decision(self, verb: str) -> None:
        picked = self._current()
        if picked is None:
            return
        side, vf, _ = picked
        try:
            if verb == "accept":
                done = side.session.accept_file(vf.path)
            else:
                done = side.session.reject_file(vf.path)
        except CursorishError as exc:
            self._say(str(exc), "error")
            self.reload(side)
            return
        self._say(f"{verb}ed {len(done)} hunk{'s' * (len(done) != 1)} of {vf.path}")
        self._after_decision(side)

    def action_accept_file(self) -> None:
        self._file_decision("accept")

    def action_reject_file(self) -> None:
        self._file_decision("reject")

    def action_undo(self) -> None:
        side = self.active
        try:
            decision = side.session.undo()
        except CursorishError as exc:
            self._say(str(exc), "error")
            return
        if decision is None:
            self._say("nothing to undo")
            return
        self.reload(side)
        side.view.select_hunk_id(decision.hunk_id, decision.path)
        self._say(f"undid: {decision.decision} {decision.path} {decision.hunk_id}")

    def action_commit(self) -> None:
        side = self.active
        try:
            sha = side.session.commit()
        except CursorishError as exc:
            self._say(str(exc), "error")
            return
        if sha is None:
            self._say("nothing accepted to commit", "warning")
            return
        self.reload(side)
        self._say(f"committed {sha[:12]} on {side.session.branch}", toast=True)

    def action_refresh(self) -> None:
        self.reload()

    def action_close(self) -> None:
        self.dismiss(None)

    def palette_commands(self) -> list[PaletteEntry]:
        """(title, help, callback) of every action, for the command palette."""
        out: list[PaletteEntry] = []
        for c in _DECISIONS:
            out.append((c.title, c.help, getattr(self, f"action_{c.action}")))
        for action, title, help_text in _NAVIGATION:
            out.append((title, help_text, partial(self._navigate, action)))
        return out

    def _navigate(self, action: str) -> None:
        getattr(self.active.view, f"action_{action}")()
