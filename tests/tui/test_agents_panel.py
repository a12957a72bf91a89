"""The agents panel's activity line: what each engine event says about an agent."""

from __future__ import annotations

from cursorish.core.events import Provisioned, StateChanged, WorktreeReady
from cursorish.core.states import AgentState
from cursorish.tui.agents_panel import AgentRow, activity_for


def _row(activity: str) -> AgentRow:
    return AgentRow(
        id="a1", task="t", profile="default", state="planning", branch="b", activity=activity
    )


def test_worktree_news_shows_until_the_planner_has_something_to_say() -> None:
    ready = WorktreeReady("a1", worktree="/w", branch="b")
    assert activity_for(_row("started"), ready) == "worktree ready"
    assert activity_for(_row("waiting for a free slot"), ready) == "worktree ready"
    # The planner starts while the worktree is prepared: its activity stays.
    assert activity_for(_row("planning (step 1)"), ready) is None
    assert (
        activity_for(_row("» reading the code"), Provisioned("a1", copied=[], setup_exit=None))
        is None
    )


def test_a_tool_waiting_for_the_setup_says_so() -> None:
    waiting = StateChanged("a1", AgentState.PROVISIONING, tool="edit_file")
    assert activity_for(_row("planning (step 1)"), waiting) == (
        "waiting for the worktree setup before edit_file"
    )
