"""Fixtures for planner tests: a scripted OpenAI-compatible server and a planner aimed at it."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from cursorish.planner.client import Planner, PlannerSettings
from cursorish.replay.scripted_server import ScriptedServer

# litellm must use its bundled price table, never fetch one.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

PlannerFactory = Callable[..., Planner]


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
