"""Methods the merged file declares twice in one class or `impl` block where the original
declares them once there: the sketch's new version of a method placed beside the old one (read
as an addition, its old copy kept under a marker) instead of over it. Rust and TypeScript do
not compile such a block, and in Python the later copy silently replaces the earlier."""

from __future__ import annotations

import re
from collections import Counter

from cursorish.apply.blocks import parent_of

# A method line, by language, and the word it needs (a cheap test before the pattern).
_METHOD = {
    "rust": (
        "fn ",
        re.compile(
            r"^\s+(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern\s+\"\w+\")\s+)*"
            r"fn\s+(\w+)\b"
        ),
    ),
    "python": ("def ", re.compile(r"^\s+(?:async\s+)?def\s+(\w+)\b")),
    # A method with its body (an overload's signature ends in `;`); a getter and a setter of
    # one name are two members.
    "typescript": (
        "(",
        re.compile(
            r"^\s+(?:(?:public|private|protected|static|async|readonly|override)\s+)*"
            r"((?:[gs]et\s+)?\*?#?[A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\(.*\{\s*$"
        ),
    ),
}
_METHOD["tsx"] = _METHOD["javascript"] = _METHOD["typescript"]
# The block a method must sit in directly for its name to be that block's member.
_OWNER = {
    "rust": re.compile(r"^\s*(?:unsafe\s+)?(?:impl|trait)\b|^\s*(?:pub(?:\([^)]*\))?\s+)trait\b"),
    "python": re.compile(r"^\s*class\s"),
    "typescript": re.compile(r"^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\b"),
}
_OWNER["tsx"] = _OWNER["javascript"] = _OWNER["typescript"]
# A line before a method that makes a second one of its name a variant, not a copy: a Rust
# `#[cfg(...)]`, a Python property's setter or an `@overload`.
_VARIANT = {
    "rust": re.compile(r"^\s*#\[cfg"),
    "python": re.compile(r"^\s*@(?:[\w.]*overload\b|\w+\.(?:setter|getter|deleter)\b)"),
    "typescript": re.compile(r"^\s*(?://|/\*|\*)\s*@overload"),
}
_VARIANT["tsx"] = _VARIANT["javascript"] = _VARIANT["typescript"]
# A Go method: its receiver's type and its name (a method is declared at the top level).
_GO_METHOD = re.compile(r"^func\s*\(\s*\w*\s*\*?\s*(\w+)(?:\[[^\]]*\])?\s*\)\s*(\w+)")


def _methods(lines: list[str], lang: str, rows: list[int]) -> list[tuple[int, str]]:
    """(row, name) of each method line among `rows` (those holding the language's word),
    leaving out the variants (see `_VARIANT`)."""
    pattern = _METHOD[lang][1]
    found: list[tuple[int, str]] = []
    for j in rows:
        line = lines[j]
        if line[:1].isspace():
            match = pattern.match(line)
            if match and not _VARIANT[lang].match(_previous(lines, j)):
                found.append((j, match.group(1)))
    return found


def _rows_with(lines: list[str], word: str) -> list[int]:
    """The rows whose line holds `word`, found by searching the joined text (a loop over every
    line in Python cost more than the rest of the check)."""
    text = "\n".join(lines)
    rows: list[int] = []
    row, at = 0, 0
    pos = text.find(word)
    while pos >= 0:
        row += text.count("\n", at, pos)
        rows.append(row)
        end = text.find("\n", pos)
        if end < 0:
            break
        row, at = row + 1, end + 1
        pos = text.find(word, at)
    return rows


def _previous(lines: list[str], j: int) -> str:
    """The nearest non-blank line above row j ("" at the top): looked up for method lines
    alone, not tracked over every line of the file."""
    for k in range(j - 1, -1, -1):
        if lines[k].strip():
            return lines[k]
    return ""


def _owned(
    lines: list[str], lang: str, found: list[tuple[int, str]], names: set[str]
) -> Counter[tuple[str, int, str]]:
    """(owner's header, owner's row, method name) of each method of `found` named in `names`
    that a class or `impl` block declares directly."""
    out: Counter[tuple[str, int, str]] = Counter()
    for j, name in found:
        if name in names:
            head = parent_of(lines, j)
            if head >= 0 and _OWNER[lang].match(lines[head]):
                out[(lines[head].strip(), head, name)] += 1
    return out


def _go_members(lines: list[str]) -> Counter[tuple[str, int, str]]:
    """(receiver's type, -1, method name) of each Go method."""
    return Counter(
        (match.group(1), -1, match.group(2))
        for line in lines
        if line.startswith("func") and (match := _GO_METHOD.match(line))
    )


def _member_twice(before: list[str], after: list[str], lang: str) -> str | None:
    """A method the merged file declares twice in one class or `impl` block whose header the
    original has, with that method declared once in each such block there. Only names the
    merge declares more often than the original are looked at (a second copy adds one), so
    the owners are looked up for few methods."""
    if lang == "go":
        new, old = _go_members(after), _go_members(before)
        twice = [key for key, count in new.items() if count >= 2]
    elif lang in _METHOD:
        word = _METHOD[lang][0]
        rows, rows_before = _rows_with(after, word), _rows_with(before, word)
        if Counter(after[j] for j in rows) == Counter(before[j] for j in rows_before):
            return None  # the merge adds no line a method could be declared on
        found, found_before = _methods(after, lang, rows), _methods(before, lang, rows_before)
        now = Counter(name for _j, name in found)
        was = Counter(name for _j, name in found_before)
        names = {name for name, count in now.items() if count >= 2 and count > was[name]}
        if not names:
            return None
        twice = [key for key, count in _owned(after, lang, found, names).items() if count >= 2]
        old = _owned(before, lang, found_before, {name for _h, _r, name in twice})
    else:
        return None
    for header, _row, name in twice:
        counts = [count for (h, _r, n), count in old.items() if h == header and n == name]
        if counts and max(counts) == 1:
            return (
                f"the merged file declares {name!r} twice in {header[:50]!r} where the "
                "original declares it once there: the new method should have replaced the old"
            )
    return None
