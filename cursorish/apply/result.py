"""The result types every apply engine returns (deterministic merge, local model, remote model)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Merged:
    """A successful apply: the complete new file, as text (decoded with surrogateescape)."""

    text: str
    engine: str  # "deterministic" | "model" | "remote"
    sketch_format: str  # "lazy" | "search_replace" | "udiff" | "whole" | "snippet" | "model"
    notes: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Refused:
    """The engine could not place the edit safely; `reason` says which sketch line and why."""

    reason: str
    engine: str
    sketch_format: str = "unknown"


ApplyOutcome = Merged | Refused
