"""File extension → tree-sitter language, comment syntax per language, and cached parsers."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
}

_HASH = ("#",)
_SLASH = ("//", "/*", "*")
_COMMENTS: dict[str, tuple[str, ...]] = {
    "python": _HASH,
    "ruby": _HASH,
    "php": ("//", "#", "/*", "*"),
    "javascript": (*_SLASH, "{/*"),
    "tsx": (*_SLASH, "{/*"),
}
# Languages whose files are indented by convention, so a marker's column says which block it is in.
_GENERIC_COMMENTS = ("#", "//", "/*", "*", "--", ";", "%", "<!--", "{/*", "'")


@dataclass(frozen=True)
class Language:
    """What the merge needs to know about a file's language."""

    name: str  # tree-sitter name, or "text" for the line-based fallback
    comments: tuple[str, ...]  # line-comment openers a marker may use

    @property
    def has_grammar(self) -> bool:
        return self.name != "text"


def detect_language(path: str) -> Language:
    """The language of `path`, decided by its extension only."""
    ext = os.path.splitext(path)[1].lower()
    name = EXTENSIONS.get(ext, "text")
    if name == "text":
        return Language("text", _GENERIC_COMMENTS)
    return Language(name, _COMMENTS.get(name, _SLASH))


@functools.lru_cache(maxsize=32)
def get_parser(name: str) -> Any:
    """A cached tree-sitter parser for `name`, or None where the grammar cannot be loaded."""
    try:
        from tree_sitter_language_pack import get_parser as _get_parser

        return _get_parser(name)  # type: ignore[arg-type]
    except Exception:
        return None
