"""The app keeps the checkout's context index current: an edit made in the user's editor is
searchable moments later, through the watchdog observer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.context.agent_context import engine_for
from cursorish.context.engine import view_name
from cursorish.tui.app import CursorishApp
from cursorish.tui.bridge import EngineSetup
from tests.tui.conftest import wait_for

pytestmark = pytest.mark.anyio


async def test_an_edit_in_the_checkout_reaches_the_index(
    repo: Path, make_setup: Callable[..., EngineSetup]
) -> None:
    app = CursorishApp(make_setup())
    async with app.run_test(size=(100, 30)) as pilot:
        indexer = app.indexer
        assert indexer is not None
        await wait_for(pilot, lambda: indexer.syncs >= 1, what="the first index")
        engine = engine_for(repo)
        view = view_name(repo)
        assert [s.path for s in engine.find_symbol(view, "greet") if s.role == "def"] == ["app.py"]
        (repo / "billing.py").write_text("def compute_invoice_total(lines):\n    return 0\n")

        def indexed() -> bool:
            return any(
                s.path == "billing.py" for s in engine.find_symbol(view, "compute_invoice_total")
            )

        await wait_for(pilot, indexed, what="the new file in the index")
        (repo / "billing.py").unlink()
        await wait_for(pilot, lambda: not indexed(), what="the deleted file gone")
    assert app.indexer is not None and app.indexer.syncs >= 3
