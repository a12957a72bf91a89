"""Fixtures for planner tests: a scripted OpenAI-compatible server and a planner aimed at it."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from cursorish.planner.client import Planner, PlannerSettings
from cursorish.planner.scripted_server import ScriptedServer

# litellm must use its bundled price table, never fetch one.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ServerFactory = Callable[..., ScriptedServer]
PlannerFactory = Callable[..., Planner]


@pytest.fixture
def scripted_server() -> Iterator[ServerFactory]:
    """Factory: `scripted_server(script, latency_s=...)` starts a server, stopped at teardown."""
    servers: list[ScriptedServer] = []

    def make(script: Any, **kwargs: Any) -> ScriptedServer:
        server = ScriptedServer(script, **kwargs)
        server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def make_planner() -> PlannerFactory:
    """Factory: a Planner for a server, with test-sized backoff and timeout."""

    def make(server: ScriptedServer, **overrides: Any) -> Planner:
        settings: dict[str, Any] = {
            "model": "scripted",
            "api_base": server.base_url,
            "timeout_s": 5.0,
            "max_retries": 3,
            "backoff_base_s": 0.01,
            "backoff_max_s": 0.05,
        }
        settings.update(overrides)
        return Planner(PlannerSettings(**settings))

    return make
