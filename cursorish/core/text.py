"""Text shown to people: the one-line form of a task, a summary or an error message."""

from __future__ import annotations


def first_line(text: str, limit: int | None = None) -> str:
    """The first non-blank line of `text`, stripped (and cut to `limit` characters); "" if none."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if limit is None else line[:limit]
