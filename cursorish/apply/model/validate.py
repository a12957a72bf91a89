"""Checks every model answer passes before it may be written: non-empty, and no new syntax errors.

The syntax check is the apply engine's own (`cursorish.apply.syntax.new_errors`), so a model
result is held to the same bar as a deterministic merge.
"""

from __future__ import annotations

from cursorish.apply.languages import detect_language
from cursorish.apply.syntax import new_errors


def check_model_output(original: str, merged: str, path: str) -> str | None:
    """Why `merged` must not be written, or None when it may be."""
    if not merged.strip() and original.strip():
        return "the apply model returned an empty file"
    language = detect_language(path)
    if not language.has_grammar:
        return None
    problem = new_errors(original, merged, language.name)
    if problem:
        return f"the apply model's output does not parse as {language.name}: {problem}"
    return None
