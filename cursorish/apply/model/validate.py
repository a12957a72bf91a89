"""Checks every model answer passes before it may be written.

An apply model is trusted no more than the deterministic merge: its answer goes through the
same independent merge verifier (`cursorish.apply.verify.verify_merge`: every sketch line is
in the answer, in order; every original line that disappeared is explained by the sketch;
nothing outside the sketched regions changed; no new syntax errors). A model that drops or
invents lines is refused, and the reason reaches the planner as the edit tool's result.
"""

from __future__ import annotations

from cursorish.apply.verify import verify_merge

REFUSAL_PREFIX = "the apply model's answer was refused by the merge verifier"


def check_model_output(original: str, sketch: str, merged: str, path: str) -> str | None:
    """Why `merged` (a model's answer to `sketch` on `original`) must not be written, or None."""
    if not merged.strip() and original.strip():
        return "the apply model returned an empty file"
    problem = verify_merge(original, sketch, merged, path=path)
    if problem:
        return f"{REFUSAL_PREFIX}: {problem}"
    return None
