"""DiffView: a virtualised diff viewer (Textual Line API) for review.

The diff is flattened once into a list of display rows (file header, hunk header, diff line,
binary file, collapsed rejected hunk; `diff_model.DiffLayout`); `render_line` draws only the rows
on screen, so a diff of any size opens in the time it takes to build that list. Syntax
highlighting is per line with the file's Pygments lexer (`diff_text`), done when a line is first
drawn and cached, never for a whole file up front.

The widget knows nothing about git or the store: it shows `ViewFile`s (built from FileDiffs or
from a review session by the screens) and keeps a cursor on one hunk. Decisions are the
screen's job; the view only reports which hunk is current.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from cursorish.gitops.hunks import DiffLine
from cursorish.tui.diff_model import (
    ACCEPTED,
    BLANK,
    FILE,
    LINE,
    MARKERS,
    PENDING,
    REJECTED,
    DiffLayout,
    ViewFile,
    ViewHunk,
    view_files,
)
from cursorish.tui.diff_text import clean, highlighted, whole_file_text

# The data it shows is importable from here too (the screens, the benchmark and the tests do).
__all__ = ["ACCEPTED", "PENDING", "REJECTED", "DiffView", "ViewFile", "ViewHunk", "view_files"]

_HUNK_KEYS = Binding.Group("hunk", compact=True)
_FILE_KEYS = Binding.Group("file", compact=True)


class DiffView(ScrollView, can_focus=True):
    """Files and hunks with line numbers, syntax highlighting and a cursor on one hunk."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,n", "next_hunk", "next hunk", key_display="j", group=_HUNK_KEYS),
        Binding("k,p", "prev_hunk", "prev hunk", key_display="k", group=_HUNK_KEYS),
        Binding(
            "J,right_square_bracket", "next_file", "next file", key_display="J", group=_FILE_KEYS
        ),
        Binding(
            "K,left_square_bracket", "prev_file", "prev file", key_display="K", group=_FILE_KEYS
        ),
        Binding("down", "scroll_down", "Down", show=False),
        Binding("up", "scroll_up", "Up", show=False),
        Binding("pagedown,space", "page_down", "Page down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("home", "first_hunk", "First hunk", show=False),
        Binding("end", "last_hunk", "Last hunk", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--file",
        "diff-view--hunk",
        "diff-view--cursor",
        "diff-view--added",
        "diff-view--removed",
        "diff-view--gutter",
        "diff-view--pending",
        "diff-view--accepted",
        "diff-view--rejected",
        "diff-view--muted",
    }

    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        color: $foreground;
    }
    DiffView > .diff-view--file {
        background: $panel;
        color: $text;
        text-style: bold;
    }
    DiffView > .diff-view--hunk {
        background: $boost;
        color: $text-muted;
    }
    DiffView > .diff-view--cursor {
        background: $accent 35%;
        color: $text;
        text-style: bold;
    }
    DiffView > .diff-view--added {
        background: $success 18%;
    }
    DiffView > .diff-view--removed {
        background: $error 18%;
    }
    DiffView > .diff-view--gutter {
        color: $text-muted;
    }
    DiffView > .diff-view--pending {
        color: $warning;
    }
    DiffView > .diff-view--accepted {
        color: $success;
    }
    DiffView > .diff-view--rejected {
        color: $error;
    }
    DiffView > .diff-view--muted {
        color: $text-muted;
        text-style: italic;
    }
    """

    class CursorMoved(Message):
        """The current hunk changed (or the files were replaced)."""

        def __init__(self, view: DiffView, file_index: int, hunk_index: int) -> None:
            super().__init__()
            self.view = view
            self.file_index = file_index  # -1 when there is no hunk at all
            self.hunk_index = hunk_index  # index into the flat list of hunks, -1 when none

        @property
        def control(self) -> DiffView:
            return self.view

    def __init__(
        self,
        files: Sequence[ViewFile] = (),
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._files: list[ViewFile] = []
        self._rows: list[tuple[int, int, int, int]] = []  # (kind, file, hunk-in-file, line)
        self._row_hunk: list[int] = []  # flat hunk index of each row, -1 for none
        self._hunk_refs: list[tuple[int, int]] = []  # flat hunk -> (file, hunk-in-file)
        self._hunk_spans: list[tuple[int, int]] = []  # flat hunk -> (first row, end row)
        self._file_rows: list[int] = []  # file -> row of its header
        self._file_first_hunk: list[int] = []  # file -> flat index of its first hunk, -1
        self._number_width = 1
        self._cursor = -1
        self._row_cache: LRUCache[tuple[int, int, int], Strip] = LRUCache(1024)
        self._code_cache: LRUCache[tuple[int, int], list[Segment]] = LRUCache(4096)
        self.rows_rendered = 0  # rows drawn since the files were set (a virtualisation check)
        self._build(files)

    # -- data -----------------------------------------------------------------------------

    @property
    def files(self) -> list[ViewFile]:
        return self._files

    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def hunk_count(self) -> int:
        return len(self._hunk_refs)

    @property
    def cursor(self) -> int:
        """Flat index of the current hunk (-1 when the diff has no hunk)."""
        return self._cursor

    @property
    def current(self) -> tuple[ViewFile, ViewHunk] | None:
        if self._cursor < 0:
            return None
        f, h = self._hunk_refs[self._cursor]
        return self._files[f], self._files[f].hunks[h]

    @property
    def current_file_index(self) -> int:
        return self._hunk_refs[self._cursor][0] if self._cursor >= 0 else -1

    def hunks(self) -> list[tuple[ViewFile, ViewHunk]]:
        """Every hunk in display order (the order the cursor moves through)."""
        return [(self._files[f], self._files[f].hunks[h]) for f, h in self._hunk_refs]

    def set_files(self, files: Sequence[ViewFile]) -> None:
        """Replace the diff; the cursor stays on the same hunk (by id) when it still exists,
        else on the hunk now at the same position."""
        old = self.current
        old_index = self._cursor
        self._build(files)
        target = -1
        if old is not None:
            target = self._find(old[1].id, old[0].path) if old[1].id else -1
            if target < 0 and self._hunk_refs:
                target = min(old_index, len(self._hunk_refs) - 1)
        elif self._hunk_refs:
            target = 0
        self._cursor = target
        self._update_virtual_size()
        self.refresh()
        if target >= 0:
            self._scroll_to_cursor()
        self.post_message(self.CursorMoved(self, self.current_file_index, self._cursor))

    def _build(self, files: Sequence[ViewFile]) -> None:
        self._files = list(files)
        layout = DiffLayout.of(self._files)
        self._rows = layout.rows
        self._row_hunk = layout.row_hunk
        self._hunk_refs = layout.hunk_refs
        self._hunk_spans = layout.hunk_spans
        self._file_rows = layout.file_rows
        self._file_first_hunk = layout.file_first_hunk
        self._number_width = layout.number_width
        self._widest = layout.widest
        self._row_cache.clear()
        self._code_cache.clear()
        self.rows_rendered = 0
        if self._cursor >= len(layout.hunk_refs):
            self._cursor = len(layout.hunk_refs) - 1

    def _find(self, hunk_id: str, path: str | None = None) -> int:
        for flat, (fi, hi) in enumerate(self._hunk_refs):
            vf = self._files[fi]
            if vf.hunks[hi].id == hunk_id and (path is None or vf.path == path):
                return flat
        return -1

    @property
    def _gutter_width(self) -> int:
        # bar, old number, space, new number, space, sign, space
        return 1 + self._number_width * 2 + 4

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self._gutter_width + self._widest + 1, len(self._rows))

    # -- cursor ---------------------------------------------------------------------------

    def select_hunk(self, index: int, *, scroll: bool = True) -> None:
        """Make flat hunk `index` current (clamped) and keep it on screen."""
        if not self._hunk_refs:
            return
        index = max(0, min(index, len(self._hunk_refs) - 1))
        if index != self._cursor:
            self._cursor = index
            self._row_cache.clear()
            self.refresh()
            self.post_message(self.CursorMoved(self, self.current_file_index, index))
        if scroll:
            self._scroll_to_cursor()

    def select_hunk_id(self, hunk_id: str, path: str | None = None) -> bool:
        flat = self._find(hunk_id, path)
        if flat >= 0:
            self.select_hunk(flat)
        return flat >= 0

    def select_file(self, file_index: int) -> None:
        """Move to the first hunk of a file (or show its header when it has none)."""
        if not 0 <= file_index < len(self._files):
            return
        flat = self._file_first_hunk[file_index]
        if flat >= 0:
            self.select_hunk(flat, scroll=False)
        self.scroll_to(y=max(0, self._file_rows[file_index] - 1), animate=False, immediate=True)

    def next_hunk_in_state(self, state: str, *, after: int | None = None) -> int:
        """Flat index of the next hunk in `state` after `after` (wrapping), or -1."""
        n = len(self._hunk_refs)
        start = self._cursor if after is None else after
        for step in range(1, n + 1):
            flat = (start + step) % n
            fi, hi = self._hunk_refs[flat]
            if self._files[fi].hunks[hi].state == state:
                return flat
        return -1

    def _scroll_to_cursor(self) -> None:
        if self._cursor < 0:
            return
        start, end = self._hunk_spans[self._cursor]
        height = max(1, self.scrollable_content_region.height or self.size.height)
        top = int(self.scroll_y)
        # Show the file header too when the hunk is its file's first.
        fi, hi = self._hunk_refs[self._cursor]
        want_top = self._file_rows[fi] if hi == 0 else start
        if start < top or want_top < top:
            y = want_top
        elif end > top + height:
            y = min(want_top, end - height) if end - want_top <= height else want_top
        else:
            return
        self.scroll_to(y=max(0, y), animate=False, immediate=True)

    def action_next_hunk(self) -> None:
        self.select_hunk(self._cursor + 1)

    def action_prev_hunk(self) -> None:
        self.select_hunk(self._cursor - 1)

    def action_first_hunk(self) -> None:
        self.select_hunk(0)
        self.scroll_to(y=0, animate=False, immediate=True)

    def action_last_hunk(self) -> None:
        self.select_hunk(len(self._hunk_refs) - 1)

    def action_next_file(self) -> None:
        current = self.current_file_index
        for fi in range(current + 1, len(self._files)):
            if self._files[fi].hunks:
                self.select_file(fi)
                return

    def action_prev_file(self) -> None:
        current = self.current_file_index
        if current < 0:
            return
        fi, _ = self._hunk_refs[self._cursor]
        # From inside a file, the first press goes back to that file's first hunk.
        if self._file_first_hunk[fi] != self._cursor:
            self.select_file(fi)
            return
        for prev in range(current - 1, -1, -1):
            if self._files[prev].hunks:
                self.select_file(prev)
                return

    def action_scroll_down(self) -> None:
        self.scroll_relative(y=1, animate=False)

    def action_scroll_up(self) -> None:
        self.scroll_relative(y=-1, animate=False)

    def action_page_down(self) -> None:
        self.scroll_relative(y=max(1, self.size.height - 1), animate=False)

    def action_page_up(self) -> None:
        self.scroll_relative(y=-max(1, self.size.height - 1), animate=False)

    def hunk_at_row(self, row: int) -> int:
        """Flat hunk index shown on display row `row` (a file header counts as its first
        hunk), -1 for none."""
        if not 0 <= row < len(self._rows):
            return -1
        flat = self._row_hunk[row]
        if flat < 0 and self._rows[row][0] == FILE:
            flat = self._file_first_hunk[self._rows[row][1]]
        return flat

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        flat = self.hunk_at_row(offset.y + int(self.scroll_y))
        if flat >= 0:
            self.select_hunk(flat, scroll=False)

    # -- rendering --------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._update_virtual_size()
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        if self._cursor < 0 and self._hunk_refs:
            self._cursor = 0
            self.post_message(self.CursorMoved(self, self.current_file_index, 0))

    def _theme_changed(self, _theme: Any) -> None:
        self._row_cache.clear()
        self._code_cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._row_cache.clear()
        self._code_cache.clear()

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"diff-view--{name}")

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if not 0 <= row < len(self._rows):
            return Strip.blank(width, base)
        kind = self._rows[row][0]
        if kind != LINE:
            key = (row, width, -1)  # header rows do not scroll sideways
            strip = self._row_cache.get(key)
            if strip is None:
                strip = self._render_fixed_row(row, width, base)
                self._row_cache[key] = strip
                self.rows_rendered += 1
            return strip
        return self._render_code_row(row, width, scroll_x, base)

    def _state_style(self, state: str) -> Style:
        return self._style(state if state in MARKERS else PENDING)

    def _render_fixed_row(self, row: int, width: int, base: Style) -> Strip:
        kind, fi, hi, _ = self._rows[row]
        vf = self._files[fi]
        if kind == BLANK:
            return Strip.blank(width, base)
        if kind == FILE:
            style = base + self._style("file")
            name = vf.path if vf.old_path is None else f"{vf.old_path} → {vf.path}"
            stats = "binary" if vf.binary else f"+{vf.added} -{vf.deleted}"
            pending = vf.count(PENDING)
            if pending:
                stats += f"  {pending} pending"
            left = f" {vf.status} {clean(name)}"
            segs = [
                Segment(left, style),
                Segment("  ", style),
                Segment(stats, style + self._style("gutter")),
            ]
            return Strip(segs).adjust_cell_length(width, style)
        hunk = vf.hunks[hi]
        flat = self._row_hunk[row]
        current = flat == self._cursor
        bg = base + (self._style("cursor") if current else self._style("hunk"))
        state_style = self._state_style(hunk.state)
        bar = Segment("▶" if current else "▌", bg + state_style)
        marker = Segment(f" {MARKERS.get(hunk.state, '•')} ", bg + state_style)
        if hunk.whole_file:
            what = clean(hunk.header) if hunk.header else whole_file_text(vf)
            text = f"{what}, decided as a whole"
        else:
            text = clean(hunk.header)
        label = hunk.state
        if hunk.reason:
            label += f": {clean(hunk.reason)}"
        right = f" {label}  {hunk.id} " if hunk.id else f" {label} "
        body_width = max(0, width - 4 - cell_len(right))
        body = Strip([Segment(text, bg)]).adjust_cell_length(body_width, bg)
        segs = [bar, marker, *body, Segment(right, bg + state_style)]
        return Strip(segs).adjust_cell_length(width, bg)

    def _render_code_row(self, row: int, width: int, scroll_x: int, base: Style) -> Strip:
        key = (row, width, scroll_x)
        strip = self._row_cache.get(key)
        if strip is not None:
            return strip
        self.rows_rendered += 1
        _, fi, hi, li = self._rows[row]
        vf = self._files[fi]
        hunk = vf.hunks[hi]
        line = hunk.lines[li]
        if line.kind == "+":
            line_style = base + self._style("added")
        elif line.kind == "-":
            line_style = base + self._style("removed")
        else:
            line_style = base
        current = self._row_hunk[row] == self._cursor
        bar_style = base + (self._style("cursor") if current else self._state_style(hunk.state))
        w = self._number_width
        old = "" if line.old_no is None else str(line.old_no)
        new = "" if line.new_no is None else str(line.new_no)
        gutter = f"{old:>{w}} {new:>{w}} "
        sign = line.kind if line.kind in "+-" else " "
        head = [
            Segment("▌" if current else "▏", bar_style + self._state_style(hunk.state)),
            Segment(gutter, line_style + self._style("gutter")),
            Segment(f"{sign} ", line_style),
        ]
        code_width = max(0, width - self._gutter_width)
        code = Strip(self._code_segments(row, fi, line, line_style))
        code = code.crop_extend(scroll_x, scroll_x + code_width, line_style)
        strip = Strip([*head, *code]).adjust_cell_length(width, base)
        self._row_cache[key] = strip
        return strip

    def _code_segments(self, row: int, fi: int, line: DiffLine, line_style: Style) -> list[Segment]:
        dark = self.app.current_theme.dark
        key = (row, int(dark))
        cached = self._code_cache.get(key)
        if cached is not None:
            return cached
        text = clean(line.text)
        segs = highlighted(self._files[fi].path, text, line_style, dark=dark)
        self._code_cache[key] = segs
        return segs
