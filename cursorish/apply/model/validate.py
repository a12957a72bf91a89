"""Syntax gate for model output: a model answer that adds syntax errors is refused, not written.

Uses the apply engine's shared check (`cursorish.apply.syntax`) when it offers one, otherwise
counts tree-sitter ERROR / MISSING nodes itself (language from the file extension).
"""

from __future__ import annotations

from typing import Any

from cursorish.apply.languages import detect_language, get_parser


def count_syntax_errors(text: str, path: str) -> int | None:
    """ERROR and MISSING nodes in `text` parsed as `path`'s language; None without a grammar."""
    language = detect_language(path)
    if not language.has_grammar:
        return None
    parser = get_parser(language.name)
    if parser is None:
        return None
    tree = parser.parse(text.encode("utf-8", "surrogateescape"))
    root: Any = tree.root_node
    if not root.has_error:
        return 0
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        if node.has_error:
            stack.extend(node.children)
    return count


def syntax_regression(original: str, merged: str, path: str) -> str | None:
    """Why `merged` is refused (more syntax errors than `original`), or None if it is fine."""
    before = count_syntax_errors(original, path)
    after = count_syntax_errors(merged, path)
    if before is None or after is None or after <= before:
        return None
    language = detect_language(path).name
    return (
        f"the model's output does not parse as {language}: {after} syntax error(s) where the "
        f"original has {before}"
    )
