"""Scripted planner turns shared by the front-end tests (headless and the app): a small app.py,
a lazy sketch that changes greet(), and turn builders for the scripted server."""

from __future__ import annotations

from typing import Any

APP = 'def greet(name):\n    return "hi " + name\n\n\ndef bye(name):\n    return "bye " + name\n'
SKETCH = 'def greet(name):\n    return "hello " + name\n\n\n# ... existing code ...\n'


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """One tool call, to put in a turn's "tool_calls"."""
    return {"name": name, "arguments": arguments}


def finish(summary: str = "changed greet", status: str = "done") -> dict[str, Any]:
    """A turn that ends the agent."""
    return {"tool_calls": [call("finish", summary=summary, status=status)]}
