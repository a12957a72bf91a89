"""Turning one file's text into what the index stores: search tokens and tree-sitter symbols.

Identifiers are split on `_` and on case changes (`PoolLimits` -> `poollimits pool limits`,
`max_redirects` -> `max_redirects max redirects`) so that a task's plain words find code and
a task's identifiers find exactly that identifier.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from cursorish.context.langs import SCOPE_TYPES, parser_and_query

MAX_PARSE_BYTES = 1_000_000
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str
    role: str  # "def" or "ref"
    scope: str
    line: int  # 1-based
    end_line: int


@lru_cache(maxsize=200_000)
def split_identifier(ident: str) -> tuple[str, ...]:
    """The lowercase word parts of an identifier, the whole identifier first when it has parts."""
    parts = [p.lower() for p in _PARTS.findall(ident)]
    whole = ident.lower().strip("_")
    if len(parts) <= 1:
        return (whole,) if whole else ()
    return (whole, *parts)


def tokens(text: str) -> list[str]:
    """Search tokens of a text: every identifier, split."""
    out: list[str] = []
    for ident in _IDENT.findall(text):
        out.extend(split_identifier(ident))
    return out


def token_text(text: str) -> str:
    """The text FTS5 indexes: the split tokens, space-separated."""
    return " ".join(tokens(text))


def path_tokens(path: str) -> list[str]:
    return tokens(path.replace(".", " ").replace("-", " ").replace("/", " "))


def symbols(lang: str, data: bytes) -> list[Symbol]:
    """Definitions and references in a file, by the language's tags query."""
    if len(data) > MAX_PARSE_BYTES:
        return []
    loaded = parser_and_query(lang)
    if loaded is None:
        return []
    parser, query = loaded
    from tree_sitter import QueryCursor

    tree = parser.parse(data)
    out: list[Symbol] = []
    captures = QueryCursor(query).captures(tree.root_node)
    for capture, nodes in captures.items():
        role, _, kind = capture.partition(".")
        if role not in ("def", "ref"):
            continue
        for node in nodes:
            name = node.text.decode("utf-8", "replace") if node.text else ""
            if not name or len(name) > 200:
                continue
            if role == "def":
                owner = node.parent
                start, end = (
                    owner.start_point[0] if owner else node.start_point[0],
                    (owner.end_point[0] if owner else node.end_point[0]),
                )
                scope = _scope(owner.parent if owner else None)
            else:
                start = end = node.start_point[0]
                scope = ""
            out.append(Symbol(name, kind, role, scope, start + 1, end + 1))
    return out


def _scope(node: object) -> str:
    """The name of the nearest enclosing definition (class, impl, function), or ""."""
    while node is not None:
        if getattr(node, "type", "") in SCOPE_TYPES:
            named = node.child_by_field_name("name") or node.child_by_field_name("type")  # type: ignore[attr-defined]
            if named is not None and named.text:
                return str(named.text.decode("utf-8", "replace"))
        node = getattr(node, "parent", None)
    return ""
