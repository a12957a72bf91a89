"""A small app around the review screens, for `cursorish review` and `cursorish compare`
(the main app pushes the same screens itself)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual.app import App
from textual.screen import Screen

from cursorish.core.review import ReviewSession
from cursorish.tui.review_screen import CompareScreen, ReviewScreen


class ReviewApp(App[int]):
    """Shows one screen and exits (code 0) when it is closed."""

    TITLE = "cursorish review"

    def __init__(self, make_screen: Callable[[], Screen[None]]) -> None:
        super().__init__()
        self._make_screen = make_screen

    def on_mount(self) -> None:
        self.push_screen(self._make_screen(), callback=lambda _result: self.exit(0))


def review_app(
    session: ReviewSession, *, revise: Callable[[str], Awaitable[None]] | None = None
) -> ReviewApp:
    return ReviewApp(lambda: ReviewScreen(session, revise=revise))


def compare_app(a: ReviewSession, b: ReviewSession) -> ReviewApp:
    return ReviewApp(lambda: CompareScreen(a, b))


def run_review(
    session: ReviewSession, *, revise: Callable[[str], Awaitable[None]] | None = None
) -> int:
    """Run the review screen on `session` until the user closes it; the exit code."""
    app = review_app(session, revise=revise)
    app.run()
    return app.return_code or 0


def run_compare(a: ReviewSession, b: ReviewSession) -> int:
    """Run the compare screen on two sessions until the user closes it; the exit code."""
    app = compare_app(a, b)
    app.run()
    return app.return_code or 0
