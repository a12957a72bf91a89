"""ReviewScreen (one branch, hunk by hunk) and CompareScreen (two branches side by side).

Both drive `core.review.ReviewSession`s: every key is a session call (accept stages the hunk,
reject reverts it, undo, commit), after which the diff is read back from git and the view
redrawn, so the screen never shows a state git does not have. Edits made outside cursorish in a
session's worktree (the user's editor, or the agent revising after feedback) are picked up by a
WorktreeWatcher and refresh the diff. What both screens share is `review_base.ReviewScreenBase`;
how a session's files become the view's is `review_files`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.notifications import SeverityLevel
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from cursorish.core.review import ReviewSession
from cursorish.errors import CursorishError
from cursorish.tui.diff_model import PENDING, ViewFile
from cursorish.tui.diff_view import DiffView
from cursorish.tui.palette import PaletteEntry
from cursorish.tui.review_base import ReviewScreenBase, Side
from cursorish.tui.review_files import summary

Revise = Callable[[str], Awaitable[None]]


class ReviewScreen(ReviewScreenBase):
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
        self._sides = [Side(session, DiffView(id="review-diff"))]

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
        parts = [summary(self.view.files)]
        if self.revising:
            parts.append("agent is revising…")
        if self._notice:
            parts.append(self._notice)
        self.query_one("#review-status", Static).update(
            Text("  ·  ".join(parts), no_wrap=True, overflow="ellipsis")
        )

    def _side_changed(self, side: Side, files: list[ViewFile]) -> None:
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

    def _rejected_with_reason(self, side: Side) -> None:
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


class CompareScreen(ReviewScreenBase):
    """Two branches (e.g. best-of-N agents on one task) side by side. Each side's decisions go
    to its own session, so the user can take some hunks from either."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "focus_side(0)", "Left", show=False),
        Binding("l", "focus_side(1)", "Right", show=False),
    ]

    def __init__(self, a: ReviewSession, b: ReviewSession) -> None:
        super().__init__()
        self._sides = [
            Side(a, DiffView(id="compare-diff-a", classes="compare-diff")),
            Side(b, DiffView(id="compare-diff-b", classes="compare-diff")),
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

    def _side_changed(self, side: Side, files: list[ViewFile]) -> None:
        index = self._sides.index(side)
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{'AB'[index]}: {side.session.branch}  ", style="bold")
        text.append(summary(files))
        self.query_one(f"#compare-status-{index}", Static).update(text)

    def action_focus_side(self, index: int) -> None:
        self._sides[index].view.focus()
        self._active = index

    def palette_commands(self) -> list[PaletteEntry]:
        return [
            *super().palette_commands(),
            ("Focus left", "Decide on the left branch (h)", partial(self.action_focus_side, 0)),
            ("Focus right", "Decide on the right branch (l)", partial(self.action_focus_side, 1)),
        ]
