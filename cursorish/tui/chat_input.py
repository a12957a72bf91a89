"""The input line under the transcript: a follow-up to the selected agent (issue 15).

Multi-line (a TextArea): enter sends, ctrl+j or alt+enter starts a new line; up on the first
line and down on the last walk the history of sent messages; tab completes an `@path` from
the agent's files (`set_paths`). Sending posts `ChatInput.Send`; the app decides what it means
(queued for a running agent, a continuation of an ended one, a plan approval).
"""

from __future__ import annotations

import os
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import TextArea

HISTORY_LIMIT = 200
COMPLETION_LIMIT = 20_000  # paths offered to @ completion


class ChatInput(TextArea):
    """See the module docstring."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "send", "Send", show=True, priority=True),
        Binding("ctrl+j,alt+enter", "newline", "New line", show=False, priority=True),
        Binding("tab", "complete", "Complete @path", show=False, priority=True),
        Binding("escape", "leave", "Leave input", show=False),
    ]

    class Send(Message):
        """The user sent `text` (already stripped, never empty)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, soft_wrap=True, show_line_numbers=False)
        self.sent: list[str] = []
        self._walk: int | None = None  # index into history while walking it
        self._draft = ""  # what was typed before walking the history
        self.paths: tuple[str, ...] = ()

    def on_mount(self) -> None:
        self.border_title = "Message"
        self.border_subtitle = "enter send · ctrl+j new line · @path"

    # -- sending -----------------------------------------------------------------------------

    def action_send(self) -> None:
        text = self.text.strip()
        if not text:
            return
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
            del self.sent[:-HISTORY_LIMIT]
        self._walk, self._draft = None, ""
        self.load_text("")
        self.post_message(self.Send(text))

    def action_newline(self) -> None:
        self.insert("\n")

    def action_leave(self) -> None:
        self.screen.focus_next()

    # -- history -----------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        row, _ = self.cursor_location
        last_row = self.document.line_count - 1
        if event.key == "up" and row == 0 and self.sent:
            event.stop()
            event.prevent_default()
            self._history_step(-1)
            return
        if event.key == "down" and row == last_row and self._walk is not None:
            event.stop()
            event.prevent_default()
            self._history_step(1)
            return
        await super()._on_key(event)

    def _history_step(self, step: int) -> None:
        if self._walk is None:
            self._draft = self.text
            self._walk = len(self.sent)
        index = self._walk + step
        if index < 0:
            return
        if index >= len(self.sent):
            self._walk = None
            self._set(self._draft)
            return
        self._walk = index
        self._set(self.sent[index])

    def _set(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    # -- @path completion --------------------------------------------------------------------

    def set_paths(self, paths: list[str] | tuple[str, ...]) -> None:
        """The files `@` completes to (the selected agent's worktree)."""
        self.paths = tuple(paths[:COMPLETION_LIMIT])

    def action_complete(self) -> None:
        """Complete the `@word` before the cursor to the longest common prefix of the paths
        it starts; with nothing to complete, tab moves the focus on as usual."""
        row, col = self.cursor_location
        line = self.document.get_line(row)[:col]
        at = line.rfind("@")
        word = line[at + 1 :] if at >= 0 else ""
        if at < 0 or any(c.isspace() for c in word) or (at > 0 and not line[at - 1].isspace()):
            self.screen.focus_next()
            return
        matches = [p for p in self.paths if p.startswith(word)]
        if not matches:
            self.app.bell()
            return
        common = os.path.commonprefix(matches)  # noqa: RUF071 - a text prefix, not a path
        if len(matches) == 1:
            common += " "
        if len(common) > len(word):
            self.insert(common[len(word) :])
        else:
            self.notify(", ".join(matches[:8]) + (" …" if len(matches) > 8 else ""), timeout=4)
