"""`cursorish bench tui`, figure 3: a big diff opens and scrolls in the review screen.

`ReviewSession.open` on a branch whose diff has about `--diff-lines` lines, then the
ReviewScreen up to its first drawn rows (`measure_review_open`); `measure_viewer_open` gives
the viewer alone (parse + rows + first frame, no git) on `synthetic_diff`. Scrolling: the time
from a jump (middle, end, ...) to the frame that shows it, for a diff of a tenth of the size and
the full one; the ratio shows it does not depend on the diff's size (the viewer draws only
visible rows).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import statistics
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from textual.app import App

from cursorish.bench.stats import spread
from cursorish.bench.tui_frames import SIZE, TimedHost, until
from cursorish.core.repo_store import open_repo_store
from cursorish.core.review import ReviewSession
from cursorish.errors import CursorishError
from cursorish.gitops.hunks import parse_diff
from cursorish.tui.diff_view import DiffView, view_files
from cursorish.tui.review_screen import ReviewScreen

TARGET_DIFF_OPEN_MS = 500.0
REPO_FILES = 300
DIFF_FILES = 10


def _git(root: Path, *args: str) -> None:
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@cursorish.invalid"]
    done = subprocess.run(
        ["git", *ident, *args], cwd=root, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise CursorishError(f"git {' '.join(args)} failed in {root}: {done.stderr.strip()}")


def _diff_file_lines(target: int) -> int:
    # One changed line every 10 gives hunks of 8 diff lines (3 context, -, +, 3 context).
    return max(10, math.ceil(target / DIFF_FILES / 8) * 10)


def _diff_text(lines: int, changed: bool) -> str:
    out = ["def run(value):"]
    for i in range(1, lines):
        if changed and i % 10 == 5:
            out.append(f"    total_{i} = compute(value, {i}) + 1  # step {i}, adjusted")
        else:
            out.append(f"    total_{i} = compute(value, {i})  # step {i}")
    return "\n".join(out) + "\n"


def make_repo(root: Path, diff_sizes: list[int]) -> dict[int, tuple[str, int]]:
    """The bench repository: REPO_FILES small modules, and per diff size a folder of
    DIFF_FILES files and a branch changing them; {size: (branch, diff lines)}."""
    from cursorish.bench.agents import generate_repo
    from cursorish.gitops.hunks import diff_files

    generate_repo(root, REPO_FILES)
    for size in diff_sizes:
        for f in range(DIFF_FILES):
            path = root / f"diff{size}" / f"module_{f:02d}.py"
            path.parent.mkdir(exist_ok=True)
            path.write_text(_diff_text(_diff_file_lines(size), False), encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--no-verify", "-m", "files to diff")
    branches: dict[int, tuple[str, int]] = {}
    for size in diff_sizes:
        branch = f"bench-diff-{size}"
        _git(root, "checkout", "-q", "-b", branch)
        for f in range(DIFF_FILES):
            path = root / f"diff{size}" / f"module_{f:02d}.py"
            path.write_text(_diff_text(_diff_file_lines(size), True), encoding="utf-8")
        _git(root, "commit", "-q", "--no-verify", "-am", f"a diff of about {size} lines")
        _git(root, "checkout", "-q", "main")
        lines = sum(len(h.lines) for d in diff_files(root, "main", branch) for h in d.hunks)
        branches[size] = (branch, lines)
    return branches


def synthetic_diff(lines: int = 5000, *, files: int = 10) -> bytes:
    """A `git diff` of about `lines` diff lines over `files` Python files (hunks of 3 context
    lines around 4 changed ones), for timing the viewer without a repository."""
    out: list[str] = []
    per_file = max(1, lines // files)
    for f in range(files):
        path = f"pkg/module_{f:02d}.py"
        out.append(f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n")
        out.append(f"--- a/{path}\n+++ b/{path}\n")
        written = 0
        start = 1
        while written < per_file:
            body = [f" def function_{start}(value: int) -> int:", "     total = value * 2"]
            body += [f"-    return total + {start}", f"-    # old comment {start}"]
            body += [f"+    return total + {start} + 1", f"+    # new comment {start}"]
            body += ["     # trailing context"]
            out.append(f"@@ -{start},5 +{start},5 @@ class Module{f}:\n")
            out.extend(line + "\n" for line in body)
            written += len(body)
            start += 20
    return "".join(out).encode()


def measure_viewer_open(data: bytes, size: tuple[int, int] = (160, 50)) -> float:
    """Seconds from `git diff` output (`data`) to the first frame of a DiffView showing it:
    parsing, building the display rows, mounting and drawing the visible rows, in a headless
    app of `size`. `cursorish bench tui` reports it as the viewer-only open time."""
    result: list[float] = []

    async def run() -> None:
        app: App[None] = App()
        async with app.run_test(size=size) as pilot:
            started = time.perf_counter()
            view = DiffView(view_files(parse_diff(data)))
            await app.screen.mount(view)
            view.focus()
            # The frame is drawn once the visible rows went through render_line.
            while view.rows_rendered == 0 and view.row_count:
                await pilot.pause()
            result.append(time.perf_counter() - started)

    asyncio.run(run())
    return result[0]


def measure_review_open(session: ReviewSession, size: tuple[int, int] = (160, 50)) -> float:
    """Seconds from opening a ReviewScreen on `session` until its diff's first frame is
    drawn: reading the diff from git, building the rows, mounting, drawing the visible rows
    (headless, terminal of `size`)."""
    result: list[float] = []

    async def run() -> None:
        app: App[None] = App()
        async with app.run_test(size=size) as pilot:
            started = time.perf_counter()
            screen = ReviewScreen(session)
            await app.push_screen(screen)
            while screen.view.rows_rendered == 0 and screen.view.row_count:
                await pilot.pause()
            result.append(time.perf_counter() - started)

    asyncio.run(run())
    return result[0]


@contextlib.contextmanager
def _open_session(repo: Path, branch: str) -> Iterator[ReviewSession]:
    with open_repo_store(repo) as opened:
        yield ReviewSession.open(opened.repo, opened.store, branch)


def measure_session_open(repo: Path, branch: str, runs: int) -> dict[str, Any]:
    """Seconds of ReviewSession.open + ReviewScreen to its first drawn rows, per run."""
    with _open_session(repo, branch):
        pass  # the first review creates its worktree
    totals: list[float] = []
    opens: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        with _open_session(repo, branch) as session:
            opened = time.perf_counter() - started
            screen = measure_review_open(session, size=SIZE)
        opens.append(opened)
        totals.append(opened + screen)
    out = {f"{k}_ms": v for k, v in spread(totals, 1000).items()}
    out["session_open_ms"] = round(statistics.median(opens) * 1000, 1)
    return out


def measure_scroll(repo: Path, branch: str, jumps: int = 12) -> dict[str, Any]:
    """Milliseconds from a scroll jump to the frame showing it, in a ReviewScreen."""
    times: list[float] = []
    drawn: list[int] = []

    async def run(session: ReviewSession) -> None:
        app = TimedHost()
        async with app.run_test(size=SIZE) as pilot:
            screen = ReviewScreen(session)
            await app.push_screen(screen)
            view = screen.view
            await until(lambda: view.rows_rendered > 0, 30, "the diff")
            await pilot.pause()
            top = int(view.max_scroll_y)
            # The middle, the end, and places in between, each far from the last.
            spots = [top // 2, top, top // 4, (3 * top) // 4, top // 8, (7 * top) // 8]
            spots += [(top * k) // (jumps + 1) for k in range(1, jumps + 1)]
            for y in spots[:jumps]:
                if y == int(view.scroll_y):
                    continue  # no scroll, no frame
                before = view.rows_rendered
                started = time.perf_counter()
                view.scroll_to(y=y, animate=False)

                def there(y: int = y) -> bool:
                    return int(view.scroll_y) == y

                frame = await app.clock.wait(there)
                times.append(frame - started)
                drawn.append(view.rows_rendered - before)
                await asyncio.sleep(0.02)

    with _open_session(repo, branch) as session:
        asyncio.run(run(session))
    out = {f"{k}_ms": v for k, v in spread(times, 1000, 2).items()}
    out["rows_drawn_max"] = max(drawn) if drawn else 0
    return out


def measure_diff(repo: Path, branches: dict[int, tuple[str, int]], runs: int) -> dict[str, Any]:
    big, small = max(branches), min(branches)
    branch, lines = branches[big]
    opened = measure_session_open(repo, branch, runs)
    viewer = [measure_viewer_open(synthetic_diff(lines), size=SIZE) for _ in range(runs)]
    scroll = {size: measure_scroll(repo, branches[size][0]) for size in (small, big)}
    result: dict[str, Any] = {"event": "diff", "lines": lines, "runs": runs, **opened}
    result["viewer_only_ms"] = round(statistics.median(viewer) * 1000, 1)
    result["scroll"] = {str(branches[size][1]): scroll[size] for size in (small, big)}
    small_ms = scroll[small].get("median_ms") or 0.0
    result["scroll_ratio"] = round(scroll[big]["median_ms"] / small_ms, 3) if small_ms else None
    result["terminal_rows"] = SIZE[1]
    result["target_ms"] = TARGET_DIFF_OPEN_MS
    result["ratio_to_target"] = round(opened["median_ms"] / TARGET_DIFF_OPEN_MS, 3)
    return result
