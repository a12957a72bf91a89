"""Feedback from a review to its agent: rejecting a hunk with a reason can send the reasons
back, and the agent revises its branch. The agent runs again as it started (its planner and
profile), so this needs a configured planner; without one there is no callback and the review
goes on without feedback.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from cursorish.errors import CursorishError
from cursorish.gitops.repo import RepoInfo
from cursorish.store.db import Store


def revise_callback(
    repo: RepoInfo, store: Store, agent_id: str | None, *, warn: Callable[[str], None]
) -> Callable[[str], Awaitable[None]] | None:
    """feedback -> the agent `agent_id` revises its branch with it; None when the branch has
    no agent or its settings cannot be built (no planner, ...). `warn` gets what the engine
    warns of while the settings are built (the sandbox is off)."""
    if agent_id is None:
        return None
    from cursorish.config import load_config
    from cursorish.config.settings import agent_flags, build_settings
    from cursorish.core.orchestrator import Orchestrator

    flags = agent_flags(store.agent(agent_id) or {})
    try:
        settings = build_settings(load_config(repo.root, flags), repo.root, warn=warn)
    except CursorishError:
        return None
    orchestrator = Orchestrator(repo, store, settings, lambda _event: None, handle_signals=False)

    async def revise(feedback: str) -> None:
        await orchestrator.revise(agent_id, feedback)

    return revise
