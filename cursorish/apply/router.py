"""Routing between apply engines: `auto` tries the deterministic merge, then the model on refusal.

Initial version: deterministic only. The model engine is wired in by cursorish/apply/model/.
"""

from __future__ import annotations

from collections.abc import Callable

from cursorish.apply.result import ApplyOutcome, Refused

ENGINES = ("auto", "deterministic", "model")


def apply_sketch(
    original: str,
    sketch: str,
    *,
    path: str,
    engine: str = "auto",
    on_token: Callable[[str], None] | None = None,
) -> ApplyOutcome:
    """Merge `sketch` into `original` (the file at `path`) with the chosen engine."""
    from cursorish.apply.deterministic import merge

    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if engine == "model":
        return Refused("no local apply model is configured", engine="model")
    return merge(original, sketch, path=path)
