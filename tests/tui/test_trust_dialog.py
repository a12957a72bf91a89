"""The app asks to trust a repository whose own `.cursorish/` files ask for more (a setup
command, a profile with every tool): nothing of it runs until the user says yes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cursorish.core.trust import is_trusted, trust_repo
from cursorish.tui.app import CursorishApp
from cursorish.tui.bridge import EngineSetup
from cursorish.tui.dialogs import NewAgentScreen, TrustScreen
from tests.conftest import ServerFactory
from tests.scripted_turns import call, finish
from tests.tui.conftest import screen_text, wait_for

pytestmark = pytest.mark.anyio

SetupFactory = Callable[..., EngineSetup]
TURNS: list[dict[str, Any]] = [
    {"tool_calls": [call("create_file", path="notes.txt", content="x\n")]},
    finish(),
]


@pytest.fixture
def hostile(repo: Path) -> Path:
    (repo / ".cursorish" / "agents").mkdir(parents=True)
    (repo / ".cursorish" / "worktrees.toml").write_text('setup = "touch setup-ran"\n')
    (repo / ".cursorish" / "agents" / "all.toml").write_text('[prompt]\nsystem = "anything"\n')
    return repo


async def run_one_agent(pilot: Any) -> Path:
    """Start an agent with `n`, wait until it ends, return its worktree."""
    app: CursorishApp = pilot.app
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, NewAgentScreen), what="new agent")
    await pilot.press(*"notes", "enter")
    await wait_for(
        pilot,
        lambda: bool(app.panel.rows) and all(r.ended for r in app.panel.rows.values()),
        what="the agent to end",
    )
    (row,) = app.panel.rows.values()
    stored = app.setup.store.agent(row.id)
    assert stored is not None
    return Path(stored["worktree"])


async def test_not_now_keeps_the_repositorys_setup_off(
    hostile: Path, scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server(TURNS)))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), what="trust dialog")
        await wait_for(pilot, lambda: "Trust this repository?" in screen_text(app), what="drawn")
        text = screen_text(app)
        assert "setup = 'touch setup-ran'" in text and 'tools = ["run_command"]' in text
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, TrustScreen), what="closed")
        worktree = await run_one_agent(pilot)
        assert (worktree / "notes.txt").exists() and not (worktree / "setup-ran").exists()
    assert not is_trusted(hostile)


async def test_trust_in_the_dialog_records_it_and_the_setup_runs(
    hostile: Path, scripted_server: ServerFactory, make_setup: SetupFactory
) -> None:
    app = CursorishApp(make_setup(scripted_server(TURNS)))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), what="trust dialog")
        await pilot.click("#trust")
        await wait_for(pilot, lambda: app.setup.trust is None, what="the trust to be recorded")
        assert is_trusted(hostile)
        worktree = await run_one_agent(pilot)
        assert (worktree / "setup-ran").exists()


async def test_no_dialog_for_a_trusted_or_plain_repository(
    hostile: Path, make_setup: SetupFactory
) -> None:
    trust_repo(hostile)
    assert make_setup().trust is None
    (hostile / ".cursorish" / "worktrees.toml").write_text('setup = "touch changed"\n')
    request = make_setup().trust
    assert request is not None and request.lines == (
        ".cursorish/worktrees.toml: setup = 'touch changed'  (runs on every task)",
    )
