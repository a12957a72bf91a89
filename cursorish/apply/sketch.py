"""Telling sketch formats apart: SEARCH/REPLACE blocks, unified diff, lazy sketch, whole file."""

from __future__ import annotations

import itertools
import re

from cursorish.apply.languages import Language
from cursorish.apply.markers import is_marker

SEARCH_RE = re.compile(r"^\s*<{5,9} ?SEARCH\b")
REPLACE_RE = re.compile(r"^\s*>{5,9} ?REPLACE\b")
HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@|^@@.*@@\s*$|^@@\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)[\w+.#-]*\s*$")


def strip_fences(lines: list[str]) -> list[str]:
    """Drop a Markdown code fence wrapped around the whole sketch."""
    body = list(lines)
    while body and not body[-1].strip():
        body.pop()
    start = 0
    while start < len(body) and not body[start].strip():
        start += 1
    body = body[start:]
    if len(body) >= 2 and _FENCE.match(body[0]) and _FENCE.match(body[-1]):
        return body[1:-1]
    return body


def detect_format(lines: list[str], lang: Language) -> str:
    """One of "empty", "search_replace", "udiff", "lazy", "plain" (whole file or snippet)."""
    if not any(line.strip() for line in lines):
        return "empty"
    if any(SEARCH_RE.match(line) for line in lines) and any(
        REPLACE_RE.match(line) for line in lines
    ):
        return "search_replace"
    if _looks_like_diff(lines):
        return "udiff"
    if any(is_marker(line, lang) for line in lines):
        return "lazy"
    return "plain"


def _looks_like_diff(lines: list[str]) -> bool:
    hunks = sum(1 for line in lines if HUNK_RE.match(line))
    headers = any(
        a.startswith("--- ") and b.startswith("+++ ") for a, b in itertools.pairwise(lines)
    )
    if not hunks and not headers:
        return False
    body = [line for line in lines if line and not line.startswith(("diff ", "index "))]
    prefixed = sum(1 for line in body if line[0] in " +-@\\")
    return prefixed >= 0.9 * len(body)
