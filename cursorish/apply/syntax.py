"""Tree-sitter syntax checks: does a merge introduce parse errors the original did not have?"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from typing import Any

from cursorish.apply.languages import get_parser

_MAX_REPORTED = 3


def parse(text: str, lang: str) -> Any:
    """The tree-sitter tree of `text`, or None when there is no grammar for `lang`."""
    parser = get_parser(lang) if lang != "text" else None
    if parser is None:
        return None
    return parser.parse(text.encode("utf-8", "surrogateescape"))


# tree-sitter's TypeScript grammar reads a member type ending one line (`(): T`) and a generic
# call signature opening the next (`<U>(x: U): U`) as one type `T<U>`, which TypeScript does
# not (no type arguments after a line break): with a `;` between them both parse as written.
_GENERIC_SIGNATURE = re.compile(r"^[ \t]*(?:new[ \t]+)?<[A-Za-z_$][^()\n]*>[ \t]*\(", re.MULTILINE)
_SEPARATED = (";", ",", "{", "(", "[", "|", "&", "=", ":", "?", "<", "/", "*")


def _checked(text: str, lang: str) -> Any:
    """The tree the syntax checks judge: `parse`, past the TypeScript grammar's gap above."""
    if lang == "typescript" and _GENERIC_SIGNATURE.search(text):
        lines = text.split("\n")
        for row in range(1, len(lines)):
            above = lines[row - 1].rstrip()
            if above and not above.endswith(_SEPARATED) and _GENERIC_SIGNATURE.match(lines[row]):
                lines[row - 1] = above + ";"
        text = "\n".join(lines)
    return parse(text, lang)


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
    original: str,
    merged: str,
    lang: str,
    changed: list[int] | None = None,
    aligned: Aligned | None = None,
) -> str | None:
    """A reason when `merged` parses with more errors than `original`, else None. `changed`:
    the merged file's 0-based lines the merge wrote or joined (None: unknown). `aligned`: both
    files' lines and, for each merged line, the original line it is (-1: new); with it, the
    top-level statements around the changes are parsed alone first, and the whole file only
    when they do not parse cleanly on both sides."""
    if changed is not None and aligned is not None and _clean_around(changed, aligned, lang):
        return _python_errors(original, merged, changed) if lang == "python" else None
    after = _checked(merged, lang)
    if after is None:
        return None
    if not after.root_node.has_error:
        return _python_errors(original, merged, changed) if lang == "python" else None
    before = error_lines(_checked(original, lang))
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
# Lines that belong to the statement below them: decorators (`@`), Rust attributes (`#[`).
_ATTACHED = ("@", "#[")
# Around changes covering more of the file than this, one whole parse is as cheap.
_PIECES_SHARE = 0.5


@dataclass(frozen=True)
class Aligned:
    """An original file's lines, a merged file's lines, and the original line each merged line
    is (-1: a line the merge wrote)."""

    before: list[str]
    after: list[str]
    old_of: list[int]


def _starts(line: str) -> bool:
    return bool(_TOP_LEVEL.match(line)) and not _CONTINUING.match(line)


def _piece_spans(lines: list[str], changed: list[int]) -> list[list[int]]:
    """[low, high) of the top-level statements around each changed line, joined where they
    touch: from the nearest line at or above it that starts one at column 0 (with the
    decorators above it) to the next such line."""
    spans: list[list[int]] = []
    for row in sorted(changed):
        if spans and row < spans[-1][1]:
            continue
        low = row
        while low > 0 and not _starts(lines[low]):
            low -= 1
        while low > 0 and lines[low - 1].startswith(_ATTACHED):
            low -= 1
        high = row + 1
        while high < len(lines) and not _starts(lines[high]):
            high += 1
        if spans and low <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], high)
        else:
            spans.append([low, high])
    return spans


def _clean_around(changed: list[int], aligned: Aligned, lang: str) -> bool:
    """Whether the merged file's top-level statements around its changes, and the original's
    statements they replace, each parse without an error on their own. Then the merge adds no
    error: between those statements both files are the same lines, and a statement that parses
    alone on both sides leaves the parser where it found it (a string or comment it opened or
    closed would be an error on its own). Parsing a few statements instead of the whole file
    is what keeps a merge in a 2,500-line file fast."""
    after, before, old_of = aligned.after, aligned.before, aligned.old_of
    if not changed or len(old_of) != len(after) or not after or get_parser(lang) is None:
        return False
    spans = _piece_spans(after, changed)
    if sum(high - low for low, high in spans) > len(after) * _PIECES_SHARE:
        return False
    texts: list[str] = []
    for low, high in spans:
        first = old_of[low]
        last = old_of[high] if high < len(after) else len(before)
        if first < 0 or last < 0 or (low > 0 and old_of[low - 1] != first - 1):
            return False  # a piece's edges must be unchanged lines, the same in both files
        texts.append("\n".join(after[low:high]) + "\n")
        texts.append("\n".join(before[first:last]) + "\n")
    return all(not _checked(text, lang).root_node.has_error for text in texts)


def _python_errors(original: str, merged: str, changed: list[int] | None) -> str | None:
    """Python's own parser, for what tree-sitter's forgiving one lets through (a pasted block
    left at the wrong indentation parses there as code ending the function)."""
    if changed is not None:
        lines = merged.split("\n")
        pieces = ["\n".join(lines[low:high]) + "\n" for low, high in _piece_spans(lines, changed)]
        if all(_python_error(piece) is None for piece in pieces):
            return None  # else the whole file decides: a piece may start inside a string
    error = _python_error(merged)
    if error is None or _python_error(original) is not None:
        return None
    return (
        f"the merged file is not valid Python (the original is): {error.msg} at line {error.lineno}"
    )
