"""DiffView: rows, line numbers, navigation, clicks, highlighting, binary files, and that only
visible rows are drawn (a 5,000-line diff)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from cursorish.bench.tui_diff import measure_viewer_open, synthetic_diff
from cursorish.gitops.hunks import diff_files, parse_diff
from cursorish.tui.diff_view import (
    ACCEPTED,
    PENDING,
    DiffView,
    ViewFile,
    view_files,
)
from tests.conftest import create_repo

LINES = "".join(f"line {i}\n" for i in range(1, 61))
PY = "def foo(x):\n    return x + 1\n\n\nclass A:\n    pass\n"


class _ViewApp(App[None]):
    def __init__(self, files: list[ViewFile]) -> None:
        super().__init__()
        self.files = files

    def compose(self) -> ComposeResult:
        yield DiffView(self.files)

    def on_mount(self) -> None:
        self.query_one(DiffView).focus()


def _run(
    files: list[ViewFile],
    body: Callable[[Pilot[None], DiffView], Awaitable[None]],
    size: tuple[int, int] = (80, 24),
) -> None:
    async def main() -> None:
        app = _ViewApp(files)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await body(pilot, app.query_one(DiffView))

    asyncio.run(main())


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, as text (the compositor's current frame)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def _repo_diff(tmp_path: Path) -> list[ViewFile]:
    root = create_repo(tmp_path / "r", {"a.txt": LINES, "b.py": PY, "c.txt": LINES, "img.bin": "x"})
    (root / "a.txt").write_text(LINES.replace("line 5\n", "five\n").replace("line 40\n", ""))
    (root / "b.py").write_text(PY.replace("x + 1", "x + 2"))
    (root / "c.txt").write_text(LINES.replace("line 20\n", "twenty\n"))
    (root / "img.bin").write_bytes(b"\x00\x01\x02")
    return view_files(diff_files(root))


def test_files_hunks_and_line_numbers_are_shown(tmp_path: Path) -> None:
    files = _repo_diff(tmp_path)

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        text = screen_text(pilot.app)
        assert " M a.txt  +1 -2  2 pending" in text
        assert "@@ -2,7 +2,7 @@" in text
        # old and new line numbers in the gutter, then the sign and the code
        assert "  5     - line 5" in text
        assert "      5 + five" in text
        assert "  6   6   line 6" in text
        assert view.hunk_count == 5  # a.txt: 2, b.py: 1, c.txt: 1, img.bin: 1 (whole file)
        assert view.current is not None and view.current[0].path == "a.txt"

    _run(files, body, size=(100, 40))


def test_hunk_and_file_navigation_keys(tmp_path: Path) -> None:
    files = _repo_diff(tmp_path)

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        seen = []
        for key in ["j", "n", "k", "p", "J", "J", "K", "right_square_bracket"]:
            await pilot.press(key)
            current = view.current
            assert current is not None
            seen.append((current[0].path, view.cursor))
        assert seen == [
            ("a.txt", 1),  # j: next hunk, same file
            ("b.py", 2),  # n: next hunk crosses into the next file
            ("a.txt", 1),  # k
            ("a.txt", 0),  # p
            ("b.py", 2),  # J: next file
            ("c.txt", 3),
            ("b.py", 2),  # K: previous file
            ("c.txt", 3),  # ]
        ]
        await pilot.press("k", "k", "k", "k")  # clamps at the first hunk
        assert view.cursor == 0

    _run(files, body)


def test_the_current_hunk_is_kept_on_screen(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {f"f{i}.txt": LINES for i in range(6)})
    for i in range(6):
        (root / f"f{i}.txt").write_text(LINES.replace("line 30\n", f"thirty {i}\n"))

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        await pilot.press("J", "J", "J", "J", "J")
        await pilot.pause()
        assert view.current is not None and view.current[0].path == "f5.txt"
        assert "thirty 5" in screen_text(pilot.app)
        assert view.scroll_y > 0

    _run(view_files(diff_files(root)), body, size=(80, 20))


def test_click_selects_the_hunk_under_the_pointer(tmp_path: Path) -> None:
    files = _repo_diff(tmp_path)

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        lines = screen_text(pilot.app).splitlines()
        row = next(i for i, line in enumerate(lines) if "twenty" in line)
        assert await pilot.click(DiffView, offset=(10, row))
        current = view.current
        assert current is not None and current[0].path == "c.txt"

    _run(files, body, size=(100, 50))


def test_binary_file_is_one_line_and_one_decision(tmp_path: Path) -> None:
    files = _repo_diff(tmp_path)
    binary = next(f for f in files if f.path == "img.bin")
    assert binary.binary and len(binary.hunks) == 1 and binary.hunks[0].whole_file

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        text = screen_text(pilot.app)
        assert "binary file, decided as a whole" in text
        # header + one row, then nothing more for that file
        lines = text.splitlines()
        at = next(i for i, line in enumerate(lines) if "img.bin" in line)
        assert "decided as a whole" in lines[at + 1]
        assert lines[at + 2].strip() == ""

    _run(files, body, size=(100, 50))


def test_python_lines_are_highlighted_per_token(tmp_path: Path) -> None:
    files = _repo_diff(tmp_path)

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        await pilot.press("J")  # b.py
        lines = screen_text(pilot.app).splitlines()
        row = next(i for i, line in enumerate(lines) if "def foo" in line)
        strip = view.render_line(row)
        colours = {
            seg.text.strip(): seg.style and seg.style.color for seg in strip if seg.text.strip()
        }
        assert colours["def"] is not None
        assert colours["def"] != colours.get("foo")

    _run(files, body, size=(100, 50))


def test_light_and_dark_themes_use_different_colours(tmp_path: Path) -> None:
    files = _repo_diff(tmp_path)

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        lines = screen_text(pilot.app).splitlines()
        row = next(i for i, line in enumerate(lines) if "def foo" in line)

        def keyword_colour() -> object:
            strip = view.render_line(row)
            return next(seg.style and seg.style.color for seg in strip if seg.text == "def")

        pilot.app.theme = "textual-dark"
        await pilot.pause()
        dark = keyword_colour()
        pilot.app.theme = "textual-light"
        await pilot.pause()
        assert keyword_colour() != dark

    _run(files, body, size=(100, 50))


def test_set_files_keeps_the_cursor_on_the_same_hunk(tmp_path: Path) -> None:
    files = _repo_diff(tmp_path)

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        await pilot.press("J")
        current = view.current
        assert current is not None
        hunk_id = current[1].id
        # the first file is gone (e.g. all decided): the same hunk stays current
        view.set_files(files[1:])
        await pilot.pause()
        after = view.current
        assert after is not None and after[1].id == hunk_id and view.cursor == 0

    _run(files, body)


def test_hunk_states_are_marked(tmp_path: Path) -> None:
    files = _repo_diff(tmp_path)
    first = files[0]
    accepted = first.hunks[0].__class__(**{**first.hunks[0].__dict__, "state": ACCEPTED})
    files[0] = ViewFile(
        first.path, first.old_path, first.status, first.binary, (accepted, first.hunks[1])
    )

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        text = screen_text(pilot.app)
        assert "✓ @@ -2,7 +2,7 @@" in text and f"accepted  {accepted.id}" in text
        assert f"pending  {first.hunks[1].id}" in text
        assert files[0].count(PENDING) == 1

    _run(files, body, size=(100, 50))


def test_a_5000_line_diff_draws_only_the_visible_rows() -> None:
    files = view_files(parse_diff(synthetic_diff(5000)))

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        assert view.row_count > 5000
        height = view.scrollable_content_region.height
        assert 0 < view.rows_rendered <= height
        view.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert view.rows_rendered <= 2 * height
        assert "new comment" in screen_text(pilot.app)

    _run(files, body, size=(100, 40))


def test_measure_open_reports_the_time_to_first_frame() -> None:
    seconds = measure_viewer_open(synthetic_diff(5000), size=(120, 40))
    assert 0 < seconds < 60  # timing is not asserted (noisy machine); it must just run


def test_long_lines_scroll_sideways_under_a_fixed_gutter(tmp_path: Path) -> None:
    long_line = "x = [" + ", ".join(str(i) for i in range(60)) + "]  # END\n"
    root = create_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    (root / "a.py").write_text(long_line)

    async def body(pilot: Pilot[None], view: DiffView) -> None:
        assert "# END" not in screen_text(pilot.app)
        view.scroll_to(x=view.max_scroll_x, animate=False, immediate=True)
        await pilot.pause()
        text = screen_text(pilot.app)
        assert "# END" in text
        row = next(line for line in text.splitlines() if "# END" in line)
        assert row.startswith("▌      1 + ")  # gutter and sign stay put

    _run(view_files(diff_files(root)), body, size=(60, 12))
