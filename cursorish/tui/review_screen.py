"""ReviewScreen (one branch, hunk by hunk) and CompareScreen (two branches side by side).

Both drive `core.review.ReviewSession`s: every key is a session call (accept stages the hunk,
reject reverts it, undo, commit), after which the diff is read back from git and the view
redrawn, so the screen never shows a state git does not have. Session calls run on the event
loop thread: they are a few short git commands, and running them one at a time keeps the order
of decisions exactly the order of key presses. Edits made outside cursorish in a session's
worktree (the user's editor, or the agent revising after feedback) are picked up by a
WorktreeWatcher and refresh the diff.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Horizontal, Vertical
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from cursorish.core.review import Decision, ReviewFile, ReviewSession, is_whole_file
from cursorish.errors import CursorishError
from cursorish.tui.diff_view import ACCEPTED, PENDING, REJECTED, DiffView, ViewFile, ViewHunk
from cursorish.tui.watch import WorktreeWatcher

Revise = Callable[[str], Awaitable[None]]

_PALETTE_HINT_MIN_WIDTH = 100
_HEADER_RE = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)")


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


def _start(header: str, side: int) -> int:
    m = _HEADER_RE.match(header)
    return int(m.group(side)) if m else 0


def session_view_files(files: list[ReviewFile], decisions: list[Decision]) -> list[ViewFile]:
    """What a session holds, as the viewer shows it: per file, accepted and pending hunks with
    their lines and rejected hunks collapsed to their header and reason, in file order."""
    rejected: dict[str, list[Decision]] = {}
    for d in decisions:
        if d.decision == REJECTED:
            rejected.setdefault(d.path, []).append(d)
    out: list[ViewFile] = []
    for rf in files:
        out.append(_view_file(rf, rejected.pop(rf.path, [])))
    # A file whose every hunk was rejected is back to its accepted state and gone from the
    # diff; it stays listed so the rejection can be seen (and undone).
    for path, ds in sorted(rejected.items()):
        hunks = tuple(ViewHunk(d.hunk_id, d.header, REJECTED, reason=d.reason) for d in ds)
        out.append(ViewFile(path, None, "M", False, hunks))
    out.sort(key=lambda vf: vf.path)
    return out


def _view_file(rf: ReviewFile, rejected: list[Decision]) -> ViewFile:
    # Accepted hunks are base -> index and pending ones index -> worktree: both are placed by
    # their line number in the index version, the one coordinate they share. At one place, a
    # rejected hunk comes before the pending one that replaced it (an agent's revision).
    keyed: list[tuple[int, int, ViewHunk]] = []
    for order, (state, diff) in ((0, (ACCEPTED, rf.accepted)), (2, (PENDING, rf.pending))):
        if diff is None:
            continue
        for h in diff.hunks:
            where = h.new_start if state == ACCEPTED else h.old_start
            hunk = ViewHunk(h.id, h.header, state, h.lines, whole_file=is_whole_file(h))
            keyed.append((where, order, hunk))
    for d in rejected:
        hunk = ViewHunk(d.hunk_id, d.header, REJECTED, (), d.reason)
        keyed.append((_start(d.header, 1), 1, hunk))
    keyed.sort(key=lambda k: (k[0], k[1]))
    return ViewFile(rf.path, rf.old_path, rf.status, rf.binary, tuple(h for _, _, h in keyed))


def _summary(files: list[ViewFile]) -> str:
    pending = sum(f.count(PENDING) for f in files)
    accepted = sum(f.count(ACCEPTED) for f in files)
    rejected = sum(f.count(REJECTED) for f in files)
    added = sum(f.added for f in files)
    deleted = sum(f.deleted for f in files)
    return (
        f"{len(files)} file{'s' * (len(files) != 1)} +{added} -{deleted} · {pending} pending · "
        f"{accepted} accepted · {rejected} rejected"
    )


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


class ReviewCommands(Provider):
    """Every review action in the command palette (of whichever review screen is open)."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        screen = self.screen
        if not isinstance(screen, _ReviewBase):
            return []
        return screen.palette_commands()

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


class _Side:
    """One reviewed branch on screen: its session, its view and the worktree watcher."""

    def __init__(self, session: ReviewSession, view: DiffView) -> None:
        self.session = session
        self.view = view
        self.watcher: WorktreeWatcher | None = None


class _ReviewBase(Screen[None]):
    """What ReviewScreen and CompareScreen share: decisions on the active side, refresh,
    watchers, the status line and the command palette."""

    CSS_PATH = "review.tcss"
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {ReviewCommands}
    BINDINGS: ClassVar[list[BindingType]] = _bindings(_DECISIONS)

    def __init__(self) -> None:
        super().__init__()
        self._sides: list[_Side] = []
        self._active = 0
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- subclass hooks -------------------------------------------------------------------

    def _side_changed(self, side: _Side, files: list[ViewFile]) -> None:
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
    def active(self) -> _Side:
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
            footer.show_command_palette = event.size.width >= _PALETTE_HINT_MIN_WIDTH

    def _worktree_changed(self, side: _Side) -> None:
        # Called from the watcher's timer thread.
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed after the check
            loop.call_soon_threadsafe(self._refresh_from_watch, side)

    def _refresh_from_watch(self, side: _Side) -> None:
        if self.is_attached:
            self.reload(side)

    def reload(self, side: _Side | None = None) -> None:
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

    def _current(self) -> tuple[_Side, ViewFile, ViewHunk] | None:
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

    def _after_decision(self, side: _Side) -> None:
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

    def _rejected_with_reason(self, side: _Side) -> None:
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

    def palette_commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """(title, help, callback) of every action, for the command palette."""
        out: list[tuple[str, str, Callable[[], object]]] = []
        for c in _DECISIONS:
            out.append((c.title, c.help, getattr(self, f"action_{c.action}")))
        for action, title, help_text in _NAVIGATION:
            out.append((title, help_text, partial(self._navigate, action)))
        return out

    def _navigate(self, action: str) -> None:
        getattr(self.active.view, f"action_{action}")()


class ReviewScreen(_ReviewBase):
    """One branch: a file list and the diff; decisions go to `session`. With `revise`, a
    rejection with a reason is sent to the agent (`await revise(feedback)`), and the new hunks
    it writes appear as it works."""

    def __init__(self, session: ReviewSession, *, revise: Revise | None = None) -> None:
        super().__init__()
        self.session = session
        self._revise = revise
        self.revising = False
        self._leave_anyway = False
        self._notice = ""
        self._sides = [_Side(session, DiffView(id="review-diff"))]

    def compose(self) -> ComposeResult:
        s = self.session
        title = f"Review {s.branch}"
        if s.task:
            title += f" — {s.task}"
        yield Static(Text(title, no_wrap=True, overflow="ellipsis"), id="review-title")
        with Horizontal(id="review-body"):
            yield OptionList(id="review-files")
            yield self._sides[0].view
        yield Static(id="review-status")
        yield Footer()

    @property
    def view(self) -> DiffView:
        return self._sides[0].view

    @property
    def status_text(self) -> str:
        return str(self.query_one("#review-status", Static).content)

    def _say(
        self, message: str, severity: SeverityLevel = "information", toast: bool = False
    ) -> None:
        self._notice = message
        if self.is_attached:
            self._update_status()
        super()._say(message, severity, toast)

    def _update_status(self) -> None:
        parts = [_summary(self.view.files)]
        if self.revising:
            parts.append("agent is revising…")
        if self._notice:
            parts.append(self._notice)
        self.query_one("#review-status", Static).update(
            Text("  ·  ".join(parts), no_wrap=True, overflow="ellipsis")
        )

    def _side_changed(self, side: _Side, files: list[ViewFile]) -> None:
        files_list = self.query_one("#review-files", OptionList)
        highlighted = files_list.highlighted
        files_list.clear_options()
        files_list.add_options(_file_option(i, vf) for i, vf in enumerate(files))
        if files:
            files_list.highlighted = min(highlighted or 0, len(files) - 1)
        self._update_status()

    @on(DiffView.CursorMoved)
    def _cursor_moved(self, event: DiffView.CursorMoved) -> None:
        files_list = self.query_one("#review-files", OptionList)
        if 0 <= event.file_index < files_list.option_count:
            files_list.highlighted = event.file_index

    @on(OptionList.OptionSelected, "#review-files")
    def _file_chosen(self, event: OptionList.OptionSelected) -> None:
        self.view.select_file(event.option_index)
        self.view.focus()

    def _rejected_with_reason(self, side: _Side) -> None:
        if self._revise is None:
            return
        if self.revising:
            self._say("reason noted: it goes to the agent when this revision ends")
            return
        try:
            feedback = self.session.feedback()
        except CursorishError as exc:
            self._say(str(exc), "error")
            return
        if feedback:
            # On the app, not the screen: leaving the review must not cancel the agent's run.
            self.app.run_worker(self._run_revise(feedback), group="revise", exit_on_error=False)

    async def _run_revise(self, feedback: str) -> None:
        assert self._revise is not None
        self.revising = True
        self._say("feedback sent; the agent is revising", toast=True)
        try:
            while feedback:
                await self._revise(feedback)
                # Reasons given while it worked go in the next round.
                feedback = self.session.feedback()
        except Exception as exc:  # whatever stopped the agent is shown, the review goes on
            self.revising = False
            self._say(f"revision failed: {exc}", "error")
            return
        self.revising = False
        if self.is_attached:
            self.reload()
        pending = self.session.counts().get(PENDING, 0)
        self._say(f"the agent revised its work: {pending} pending hunks", toast=True)

    def action_close(self) -> None:
        if self.revising and not self._leave_anyway:
            self._leave_anyway = True
            self._say("the agent is still revising: q again to leave anyway", "warning")
            return
        super().action_close()


def _file_option(index: int, vf: ViewFile) -> Option:
    pending = vf.count(PENDING)
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{vf.status} ", style="bold")
    text.append(vf.path)
    text.append("\n  ")
    text.append("binary" if vf.binary else f"+{vf.added} -{vf.deleted}", style="dim")
    if pending:
        text.append(f"  {pending} pending", style="bold")
    elif vf.hunks:
        text.append("  done", style="dim")
    return Option(text, id=f"file-{index}")


class CompareScreen(_ReviewBase):
    """Two branches (e.g. best-of-N agents on one task) side by side. Each side's decisions go
    to its own session, so the user can take some hunks from either."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "focus_side(0)", "Left", show=False),
        Binding("l", "focus_side(1)", "Right", show=False),
    ]

    def __init__(self, a: ReviewSession, b: ReviewSession) -> None:
        super().__init__()
        self._sides = [
            _Side(a, DiffView(id="compare-diff-a", classes="compare-diff")),
            _Side(b, DiffView(id="compare-diff-b", classes="compare-diff")),
        ]

    def compose(self) -> ComposeResult:
        a, b = (s.session for s in self._sides)
        title = f"Compare {a.branch}  ↔  {b.branch}"
        if a.task:
            title += f" — {a.task}"
        yield Static(Text(title, no_wrap=True, overflow="ellipsis"), id="review-title")
        with Horizontal(id="compare-body"):
            for i, side in enumerate(self._sides):
                with Vertical(classes="compare-side"):
                    yield Static(id=f"compare-status-{i}", classes="compare-status")
                    yield side.view
        yield Footer()

    def status_text(self, index: int) -> str:
        return str(self.query_one(f"#compare-status-{index}", Static).content)

    def _side_changed(self, side: _Side, files: list[ViewFile]) -> None:
        index = self._sides.index(side)
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{'AB'[index]}: {side.session.branch}  ", style="bold")
        text.append(_summary(files))
        self.query_one(f"#compare-status-{index}", Static).update(text)

    def action_focus_side(self, index: int) -> None:
        self._sides[index].view.focus()
        self._active = index

    def palette_commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        return [
            *super().palette_commands(),
            ("Focus left", "Decide on the left branch (h)", partial(self.action_focus_side, 0)),
            ("Focus right", "Decide on the right branch (l)", partial(self.action_focus_side, 1)),
        ]
