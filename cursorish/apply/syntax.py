"""Tree-sitter syntax checks: does a merge introduce parse errors the original did not have?"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Any

from cursorish.apply.languages import get_parser

_MAX_REPORTED = 3


def parse(text: str, lang: str) -> Any:
    """The tree-sitter tree of `text`, or None when there is no grammar for `lang`."""
    parser = get_parser(lang) if lang != "text" else None
    if parser is None:
        return None
    return parser.parse(text.encode("utf-8", "surrogateescape"))


def error_lines(tree: Any) -> list[int]:
    """0-based start lines of ERROR and MISSING nodes, outermost only."""
    found: list[int] = []
    if tree is None or not tree.root_node.has_error:
        return found
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found.append(node.start_point[0])
            continue
        if node.has_error:
            stack.extend(node.children)
    return sorted(found)


def new_errors(
    original: str, merged: str, lang: str, changed: list[int] | None = None
) -> str | None:
    """A reason when `merged` parses with more errors than `original`, else None. `changed`:
    the merged file's 0-based lines the merge wrote or joined (None: unknown)."""
    after = parse(merged, lang)
    if after is None:
        return None
    if not after.root_node.has_error:
        return _python_errors(original, merged, changed) if lang == "python" else None
    before = error_lines(parse(original, lang))
    lines = error_lines(after)
    if len(lines) <= len(before):
        return None
    shown = ", ".join(str(line + 1) for line in lines[:_MAX_REPORTED])
    return (
        f"the merged file has {len(lines)} syntax error(s) (the original has {len(before)}), "
        f"near line(s) {shown}"
    )


def _python_error(text: str) -> SyntaxError | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            ast.parse(text)
    except SyntaxError as error:  # IndentationError included
        return error
    except (ValueError, RecursionError, MemoryError):
        return None  # NUL bytes, absurd nesting: not this check's business
    return None


_TOP_LEVEL = re.compile(r"[A-Za-z_]")
_CONTINUING = re.compile(r"(?:else|elif|except|finally|case)\b")


def _top_level_pieces(lines: list[str], changed: list[int]) -> list[str]:
    """The top-level statements around each changed line, joined where they overlap: Python
    parses each alone (a whole 2,500-line file takes tens of milliseconds)."""

    def starts(row: int) -> bool:
        line = lines[row]
        return bool(_TOP_LEVEL.match(line)) and not _CONTINUING.match(line)

    spans: list[list[int]] = []
    for row in sorted(changed):
        if spans and row < spans[-1][1]:
            continue
        low = row
        while low > 0 and not starts(low):
            low -= 1
        while low > 0 and lines[low - 1].startswith("@"):
            low -= 1  # the decorators belong to the definition
        high = row + 1
        while high < len(lines) and not starts(high):
            high += 1
        if spans and low <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], high)
        else:
            spans.append([low, high])
    return ["\n".join(lines[low:high]) + "\n" for low, high in spans]


def _python_errors(original: str, merged: str, changed: list[int] | None) -> str | None:
    """Python's own parser, for what tree-sitter's forgiving one lets through (a pasted block
    left at the wrong indentation parses there as code ending the function)."""
    if changed is not None:
        pieces = _top_level_pieces(merged.split("\n"), changed)
        if all(_python_error(piece) is None for piece in pieces):
            return None  # else the whole file decides: a piece may start inside a string
    error = _python_error(merged)
    if error is None or _python_error(original) is not None:
        return None
    return (
        f"the merged file is not valid Python (the original is): {error.msg} at line {error.lineno}"
    )
