"""cursorish: a terminal multi-agent coding assistant (planner + local apply model + review)."""

from __future__ import annotations

__version__ = "0.1.0"
