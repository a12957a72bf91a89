"""A whole doc comment (`/** ... */`) deleted on its own, with the declaration it documents
kept: planners seldom delete a declaration's documentation alone, so the sketch's lines on
either side of it were more likely new code matched past it (a new overload written above the
one it copies, read as an edit of that one). Not where the sketch shows the declaration's
header unchanged and the merge rewrites its body: the sketch edits that declaration, and the
comment went with the edit."""

from __future__ import annotations

import re

_LANGUAGES = ("typescript", "tsx", "javascript")
# What a doc comment documents: a declaration, or a member or method of a class or type.
_DECLARATION = re.compile(
    r"\s*(?:export|default|declare|async|function|class|interface|type|enum|const|let|var"
    r"|public|private|protected|static|readonly|abstract|get|set)\b|\s*[\w$#]+\??\s*[(:<]"
)


def _is_block(lines: list[str]) -> bool:
    texts = [line.strip() for line in lines if line.strip()]
    return (
        len(texts) >= 2
        and texts[0].startswith("/**")
        and texts[-1].endswith("*/")
        and all(text.startswith("*") for text in texts[1:])
    )


def _telling(line: str) -> bool:
    return any(ch.isalnum() for ch in line)


def _deleted_comment(
    before: list[str], after: list[str], old_of: list[int], shown: set[str], lang: str
) -> str | None:
    """Original lines gone from the merge between two kept original lines that follow each
    other in it, all of them one doc comment (none of whose worded lines the sketch shows)
    right above a kept declaration."""
    if lang not in _LANGUAGES or len(old_of) != len(after):
        return None
    for r in range(1, len(after)):
        prev, cur = old_of[r - 1], old_of[r]
        if prev < 0 or cur <= prev + 2:
            continue
        gone = before[prev + 1 : cur]
        if not _is_block(gone) or any(_telling(line) and line.strip() in shown for line in gone):
            continue
        if not _DECLARATION.match(before[cur]):
            continue
        if before[cur].strip() in shown and _body_edited(before, cur, set(old_of)):
            continue
        return (
            f"the merge deletes the doc comment at original lines {prev + 2}-{cur} on its own, "
            f"keeping what it documents: the sketch's code next to it is more likely new code"
        )
    return None


_BODY_REACH = 60  # original lines looked through for the declaration's closer


def _body_edited(before: list[str], cur: int, kept: set[int]) -> bool:
    """Whether the merge rewrites the body of the declaration at original line `cur` (a line
    between its header and the closing `}` of the body its signature opens gone): the sketch
    edits that declaration, shown by its unchanged header, so the lines right above it are its
    own and the doc comment went with the edit. Code written new above a declaration it copies
    (an overload) leaves the old one whole; an overload's signature has no body of its own."""
    depth = len(before[cur]) - len(before[cur].lstrip())
    opened = before[cur].rstrip().endswith("{")
    for j in range(cur + 1, min(len(before), cur + _BODY_REACH)):
        text = before[j].strip()
        if not text or len(before[j]) - len(text) > depth:
            continue
        if text.startswith("}"):
            return opened and any(before[x].strip() and x not in kept for x in range(cur + 1, j))
        if _DECLARATION.match(before[j]):
            return False  # a signature with no body (an overload): another declaration follows
        opened = opened or text.endswith("{")
    return False
