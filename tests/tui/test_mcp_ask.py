"""In the app (command policy `ask`), an agent's MCP tool call waits for the permission
dialog, which names the tool and its arguments; the real server answers once allowed."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cursorish.core.tools import ToolBox, ToolContext, ToolResult
from cursorish.mcp.tools import McpTools
from cursorish.tui.app import CursorishApp
from cursorish.tui.bridge import EngineSetup
from cursorish.tui.dialogs import AskScreen
from tests.mcp.conftest import time_spec
from tests.tui.conftest import screen_text, wait_for

pytestmark = pytest.mark.anyio


async def test_mcp_call_asks_in_the_app(
    make_setup: Callable[..., EngineSetup], tmp_path: Path
) -> None:
    app = CursorishApp(make_setup(planner="openai/never-called"))
    async with app.run_test(size=(100, 30)) as pilot:
        ctx = ToolContext(
            root=tmp_path,
            agent_id="a1",
            command_policy="ask",
            ask=lambda question: app.bridge.ask("a1", question),
        )
        tools = McpTools([time_spec()], ctx)
        box = ToolBox(ctx, ("finish",), (tools,))
        results: list[ToolResult] = []

        def run(**args: Any) -> threading.Thread:
            def call() -> None:
                results.append(box.call("time__get_current_time", json.dumps(args)))

            thread = threading.Thread(target=call)
            thread.start()
            return thread

        try:
            await asyncio.to_thread(box.prepare)
            thread = run(timezone="UTC")
            await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="dialog")
            await wait_for(pilot, lambda: "asks" in screen_text(app), what="dialog text")
            text = screen_text(app)
            assert "Agent a1 asks to call an MCP tool" in text
            assert 'MCP time__get_current_time {"timezone": "UTC"}' in text
            await pilot.press("o")
            await asyncio.to_thread(thread.join, 60)
            assert results[0].ok and '"timezone": "UTC"' in results[0].text
            thread = run(timezone="Asia/Tokyo")
            await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="dialog")
            await pilot.press("d")
            await asyncio.to_thread(thread.join, 60)
            assert results[1].text == "the user did not allow this MCP tool call"
        finally:
            box.close()
