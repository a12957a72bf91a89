"""The "Agents" panel: every agent of the repository with its state, branch, live activity,
tokens and cost, one table row each; the highlighted row is the selected agent.

The rows are a small model (`AgentRow`) fed from the store at start-up and then from engine
events; the table is redrawn cell by cell, once per event batch, only where a value changed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable

from cursorish.core import events as ev
from cursorish.core.events import Event
from cursorish.core.states import ENDED_STATES as ENDED
from cursorish.core.states import RESUMABLE_STATES as RESUMABLE
from cursorish.core.states import AgentState
from cursorish.core.text import escape_controls, first_line

INTERRUPTED = AgentState.INTERRUPTED
WIDE = 120  # from this width on the table shows the full branch and the task

STATE_STYLE: dict[str, str] = {
    AgentState.DONE: "bold green",
    AgentState.GAVE_UP: "yellow",
    AgentState.FAILED: "bold red",
    AgentState.BUDGET_EXHAUSTED: "red",
    AgentState.CANCELLED: "yellow",
    INTERRUPTED: "magenta",
    AgentState.QUEUED: "dim",
}
STATE_LABEL: dict[str, str] = {
    AgentState.BUDGET_EXHAUSTED: "out of budget",
    AgentState.GAVE_UP: "gave up",
    AgentState.RUNNING_COMMAND: "command",
    AgentState.STARTING_TOOLS: "MCP start",  # listing MCP servers before the first request
}

LINE_LIMIT = 200  # a one-line summary, task or error is cut here before display


def answer_verb(answer: ev.Answered) -> str:
    """How an `answered` event's decision reads: allowed, allowed with network, denied."""
    if not answer.allowed:
        return "denied"
    return "allowed with network" if answer.network else "allowed"


def shown(text: str) -> str:
    """One line of planner or file text, its control characters escaped for the terminal."""
    return escape_controls(text, keep_lines=False)


@dataclass
class AgentRow:
    """One agent as the panel shows it."""

    id: str
    task: str
    profile: str
    state: str
    branch: str
    task_id: int | None = None
    activity: str = ""
    tokens: int = 0
    cost_usd: float = 0.0
    worktree: str = ""

    @property
    def ended(self) -> bool:
        return self.state in ENDED

    @property
    def resumable(self) -> bool:
        return self.state in RESUMABLE

    @classmethod
    def from_store(cls, row: dict[str, Any], task: str) -> AgentRow:
        state = str(row["state"])
        return cls(
            id=str(row["id"]),
            task=task,
            profile=str(row.get("profile") or ""),
            state=state,
            branch=str(row.get("branch") or ""),
            task_id=row.get("task_id"),
            activity=ended_activity(state, str(row.get("summary") or ""), row.get("error")),
            tokens=int(row.get("prompt_tokens") or 0) + int(row.get("completion_tokens") or 0),
            cost_usd=float(row.get("cost_usd") or 0.0),
            worktree=str(row.get("worktree") or ""),
        )


def ended_activity(state: str, summary: str, error: Any) -> str:
    if state == INTERRUPTED:
        return "interrupted: press r to resume"
    if state not in ENDED:
        return ""
    return first_line(summary, LINE_LIMIT) or first_line(str(error or ""), LINE_LIMIT) or ""


def human_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1_000:
        return f"{n / 1_000:.1f}k"
    return str(n)


def clip(text: str, width: int) -> str:
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def activity_for(row: AgentRow, event: Event) -> str | None:
    """The activity line after `event`, or None to keep the current one."""
    match event:
        case ev.Queued():
            return "waiting for a free slot"
        # The planner starts while the worktree is prepared: its activity is the news then.
        case ev.WorktreeReady() | ev.Provisioned() if row.activity.startswith(("planning", "» ")):
            return None
        case ev.WorktreeReady():
            return "worktree ready"
        case ev.Provisioned():
            return "worktree provisioned"
        case ev.StateChanged(state=AgentState.PROVISIONING, tool=tool):
            return f"waiting for the worktree setup before {tool or 'a tool'}"
        case ev.AgentStarted(resumed=resumed):
            return "resumed" if resumed else "started"
        case ev.StateChanged(state=AgentState.PLANNING, step=step):
            return f"planning (step {'?' if step is None else step})"
        case ev.PlannerText(text=delta):
            text = row.activity if row.activity.startswith("» ") else "» "
            tail = (text[2:] + delta).replace("\n", " ")
            return "» " + tail[-160:]
        case ev.ToolCalled(tool=tool, target=target):
            return f"{tool} {target}".strip()
        case ev.Applying(path=path):
            return f"applying {path}"
        case ev.ApplyProgress(path=path, chars=chars):
            return f"applying {path} (model: {chars:,} chars)"
        case ev.ApplyRefused(path=path):
            return f"apply refused: {path}"
        case ev.FileChanged(path=path, deleted=True):
            return f"deleted {path}"
        case ev.FileChanged(path=path, added=added, removed=removed):
            return f"changed {path} +{added or 0} -{removed or 0}"
        case ev.RunningCommand(command=command):
            return f"$ {command}"
        case ev.Asking(command=command):
            return f"asks to run: {command}"
        case ev.Answered(command=command):
            return f"{answer_verb(event)}: {command}"
        case ev.Cancelling():
            return "cancelling…"
        case ev.Revising(feedback=feedback):
            return "revising: " + first_line(feedback, LINE_LIMIT)
        case ev.AgentFinished(status=status, summary=summary, error=error):
            return ended_activity(status, summary or "", error) or status
    return None


class AgentsPanel(Vertical):
    """The agents table; posts `AgentsPanel.Selected` when the highlighted agent changes."""

    class Selected(Message):
        def __init__(self, agent_id: str | None) -> None:
            super().__init__()
            self.agent_id = agent_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: dict[str, AgentRow] = {}
        self.order: list[str] = []  # newest first
        self._wide: bool | None = None
        self._activity_width = 30
        self._shown: dict[tuple[str, str], str] = {}
        self._selected: str | None = None
        self.attention: set[str] = set()  # agents that need the user (marked with ●)

    def compose(self) -> ComposeResult:
        table: DataTable[Any] = DataTable(id="agents-table", cursor_type="row")
        table.show_cursor = True
        yield table

    def on_mount(self) -> None:
        self.border_title = "Agents"
        self._update_subtitle()

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one("#agents-table", DataTable)

    @property
    def selected(self) -> AgentRow | None:
        return self.rows.get(self._selected) if self._selected else None

    # -- model -------------------------------------------------------------------------------

    def load(self, rows: list[AgentRow]) -> None:
        """Replace every row (newest first)."""
        self.rows = {r.id: r for r in rows}
        self.order = [r.id for r in rows]
        self._rebuild()

    def add(self, row: AgentRow, *, select: bool = False) -> None:
        """Add (or replace) a row at the top."""
        if row.id not in self.rows:
            self.order.insert(0, row.id)
        self.rows[row.id] = row
        self._rebuild(select=row.id if select else None)

    def remove_agent(self, agent_id: str) -> None:
        if agent_id in self.rows:
            del self.rows[agent_id]
            self.order.remove(agent_id)
            if self._selected == agent_id:
                self._selected = None
            self._rebuild()
            if not self.order:
                self.post_message(self.Selected(None))

    def mark(self, agent_id: str, needs_user: bool) -> None:
        """Show (or clear) the attention mark ● on an agent's state."""
        if needs_user == (agent_id in self.attention):
            return
        if needs_user:
            self.attention.add(agent_id)
        else:
            self.attention.discard(agent_id)
        row = self.rows.get(agent_id)
        if row is not None:
            self._draw(row)

    def update(self, row: AgentRow) -> None:
        """Take the values of `row` into the row with its id (the object stays the same)."""
        current = self.rows.get(row.id)
        if current is None:
            return
        for f in fields(AgentRow):
            setattr(current, f.name, getattr(row, f.name))
        self._draw(current)
        self._update_subtitle()

    def apply_events(self, events: list[Event]) -> set[str]:
        """Update rows from a batch of events; returns the ids of rows that changed."""
        changed: set[str] = set()
        for event in events:
            row = self.rows.get(event.agent_id or "")
            if row is None:
                continue
            match event:
                case ev.StateChanged(state=state):
                    row.state = str(state)
                case ev.Queued():
                    row.state = AgentState.QUEUED
                case ev.AgentFinished(status=status):
                    row.state = status
                case ev.PlannerReply():
                    row.tokens += event.prompt_tokens + event.completion_tokens
                    row.cost_usd += event.cost_usd
            activity = activity_for(row, event)
            if activity is not None:
                row.activity = activity
            changed.add(row.id)
        for agent_id in changed:
            self._draw(self.rows[agent_id])
        if self._selected in changed:
            self._update_subtitle()
        return changed

    def siblings_of(self, agent_id: str) -> list[AgentRow]:
        """Other agents started on the same task (best-of-N), newest first."""
        row = self.rows.get(agent_id)
        if row is None or row.task_id is None:
            return []
        return [
            self.rows[i]
            for i in self.order
            if i != agent_id and self.rows[i].task_id == row.task_id
        ]

    def select(self, agent_id: str) -> None:
        if agent_id in self.order:
            self.table.move_cursor(row=self.order.index(agent_id))

    # -- table -------------------------------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        width = event.size.width
        if (width >= WIDE) != self._wide or self._activity_fit(width) != self._activity_width:
            self._rebuild()

    def _activity_fit(self, width: int) -> int:
        wide = width >= WIDE
        # state 13, agent 8|18, tokens 6, cost 8, task 28 (wide); 2 cells padding per column,
        # 2 for the border, 1 for a scrollbar.
        fixed = 13 + (18 if wide else 8) + 6 + 8 + (28 if wide else 0)
        columns = 6 if wide else 5
        return max(10, width - fixed - 2 * columns - 3)

    def _rebuild(self, select: str | None = None) -> None:
        table = self.table
        width = self.size.width or 80
        self._wide = width >= WIDE
        self._activity_width = self._activity_fit(width)
        keep = select or self._selected
        table.clear(columns=True)
        self._shown.clear()
        table.add_column("state", key="state", width=13)
        if self._wide:
            table.add_column("branch", key="agent", width=18)
            table.add_column("task", key="task", width=28)
        else:
            table.add_column("agent", key="agent", width=8)
        table.add_column("tokens", key="tokens", width=6)
        table.add_column("cost", key="cost", width=8)
        table.add_column("activity", key="activity", width=self._activity_width)
        for agent_id in self.order:
            cells = self._cells(self.rows[agent_id])
            table.add_row(*cells.values(), key=agent_id)
            for column, value in cells.items():
                self._shown[(agent_id, column)] = str(value)
        if keep in self.rows:
            table.move_cursor(row=self.order.index(keep), animate=False)
        elif self.order:
            table.move_cursor(row=0, animate=False)
        self._update_subtitle()

    def _cells(self, row: AgentRow) -> dict[str, Text]:
        label = STATE_LABEL.get(row.state, row.state.replace("_", " "))
        style = STATE_STYLE.get(row.state, "" if row.ended else "bold cyan")
        # Text, never str: a str cell is read as markup, and tasks, commands and grep
        # patterns are full of brackets.
        if row.id in self.attention:
            label, style = f"● {label}", "bold yellow"
        cells: dict[str, Text] = {"state": Text(clip(label, 13), style=style)}
        if self._wide:
            cells["agent"] = Text(clip(row.branch or row.id, 18))
            cells["task"] = Text(clip(shown(first_line(row.task, LINE_LIMIT)), 28))
        else:
            cells["agent"] = Text(row.id[:8])
        cells["tokens"] = Text(human_tokens(row.tokens), justify="right")
        cells["cost"] = Text(f"${row.cost_usd:.4f}", justify="right")
        cells["activity"] = Text(clip(shown(row.activity), self._activity_width))
        return cells

    def _draw(self, row: AgentRow) -> None:
        if row.id not in self.rows or not self.table.columns:
            return
        for column, value in self._cells(row).items():
            shown = str(value)
            if self._shown.get((row.id, column)) != shown:
                self._shown[(row.id, column)] = shown
                self.table.update_cell(row.id, column, value)

    def _update_subtitle(self) -> None:
        running = sum(1 for r in self.rows.values() if not r.ended)
        self.border_subtitle = f"{running} running · {len(self.rows)} in all"

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        agent_id = event.row_key.value if event.row_key is not None else None
        if agent_id != self._selected:
            self._selected = agent_id
            self.post_message(self.Selected(agent_id))
        self._update_subtitle()
