"""Opening the diff viewer from the app: the review of one agent's branch, or two results
of one task side by side. The review machinery is imported on first use."""

from __future__ import annotations

import asyncio
import importlib
from functools import partial
from typing import Any

from cursorish.errors import CursorishError
from cursorish.tui.app_base import AppBase
from cursorish.tui.dialogs import PickScreen


class ReviewLaunch(AppBase):
    """review, compare."""

    # -- review ------------------------------------------------------------------------------

    def _review_api(self) -> tuple[Any, Any, Any] | None:
        """(ReviewSession, ReviewScreen, CompareScreen), imported on first use."""
        try:
            review = importlib.import_module("cursorish.core.review")
            screens = importlib.import_module("cursorish.tui.review_screen")
        except ImportError:
            self.say("the diff viewer is not part of this build yet", severity="warning", timeout=6)
            return None
        return review.ReviewSession, screens.ReviewScreen, screens.CompareScreen

    def action_review(self) -> None:
        row = self.panel.selected
        api = self._review_api() if row is not None else None
        if row is None or api is None:
            return
        session_cls, review_screen, _ = api

        async def open_review() -> None:
            try:
                session = await asyncio.to_thread(
                    session_cls.open, self.setup.repo, self.setup.store, row.id
                )
            except CursorishError as exc:
                self.say(exc.message, severity="error", timeout=10)
                return
            await self.push_screen(
                review_screen(session, revise=partial(self.bridge.revise, row.id))
            )

        self.run_worker(open_review(), group="review", exclusive=True)

    def action_compare(self) -> None:
        row = self.panel.selected
        if row is None:
            return
        siblings = self.panel.siblings_of(row.id)
        if not siblings:
            self.say(
                "no other agent worked on this task; start several with best-of-N (n)",
                severity="warning",
            )
            return
        if len(siblings) == 1:
            self._compare(row.id, siblings[0].id)
            return
        choices = [(s.id, f"{s.id}  {s.state}  {s.activity[:50]}") for s in siblings]
        self.push_screen(
            PickScreen(f"Compare {row.id} with", choices),
            lambda other: self._compare(row.id, other) if other else None,
        )

    def _compare(self, a: str, b: str) -> None:
        api = self._review_api()
        if api is None:
            return
        session_cls, _, compare_screen = api

        async def open_compare() -> None:
            try:
                first, second = await asyncio.gather(
                    asyncio.to_thread(session_cls.open, self.setup.repo, self.setup.store, a),
                    asyncio.to_thread(session_cls.open, self.setup.repo, self.setup.store, b),
                )
            except CursorishError as exc:
                self.say(exc.message, severity="error", timeout=10)
                return
            await self.push_screen(compare_screen(first, second))

        self.run_worker(open_compare(), group="review", exclusive=True)
