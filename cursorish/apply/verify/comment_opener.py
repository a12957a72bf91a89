"""A new line that only opens a block comment (`/**`) followed, past blank lines, by a kept
original line that is no comment body (`// TODO`, code): the comment it opens swallows the
original lines up to the next `*/`. The sketch's `/**` was more likely the original's own
opener further on, the lines before it left out (deleted)."""

from __future__ import annotations

_LANGUAGES = ("typescript", "tsx", "javascript", "go", "rust", "java", "c", "cpp", "csharp")


def _opener_over_code(after: list[str], old_of: list[int], lang: str) -> str | None:
    """A new bare `/*` or `/**` line whose next non-blank line in the merge is an original
    line that does not go on a comment (it starts with neither `*` nor `*/`)."""
    if lang not in _LANGUAGES or len(old_of) != len(after):
        return None
    for r, line in enumerate(after):
        if old_of[r] >= 0 or line.strip() not in ("/*", "/**"):
            continue
        nxt = r + 1
        while nxt < len(after) and not after[nxt].strip():
            nxt += 1
        if nxt >= len(after) or old_of[nxt] < 0 or after[nxt].lstrip().startswith("*"):
            continue
        return (
            f"the merge writes a new {line.strip()!r} that opens a comment over original line "
            f"{old_of[nxt] + 1}: the sketch's opener is more likely an original one"
        )
    return None
