"""Methods the merged file declares twice in one class or `impl` block where the original
declares them once there: the sketch's new version of a method placed beside the old one (read
as an addition, its old copy kept under a marker) instead of over it. Rust and TypeScript do
not compile such a block, and in Python the later copy silently replaces the earlier."""

from __future__ import annotations

import re
from collections import Counter

from cursorish.apply.blocks import parents

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


def _members(lines: list[str], lang: str) -> Counter[tuple[str, int, str]]:
    """(owner's header, owner's row, method name) of each method a class or `impl` block
    declares directly, leaving out the variants (see `_VARIANT`); a Go method's owner is its
    receiver's type (row -1)."""
    if lang == "go":
        return Counter(
            (match.group(1), -1, match.group(2))
            for line in lines
            if line.startswith("func") and (match := _GO_METHOD.match(line))
        )
    word, pattern = _METHOD[lang]
    found: list[tuple[int, str]] = []
    previous = ""
    for j, line in enumerate(lines):
        if word in line and line[:1].isspace():
            match = pattern.match(line)
            if match and not _VARIANT[lang].match(previous):
                found.append((j, match.group(1)))
        if line.strip():
            previous = line
    out: Counter[tuple[str, int, str]] = Counter()
    if not found:
        return out
    owner = parents(lines)
    for j, name in found:
        head = owner[j]
        if head >= 0 and _OWNER[lang].match(lines[head]):
            out[(lines[head].strip(), head, name)] += 1
    return out


def _member_twice(before: list[str], after: list[str], lang: str) -> str | None:
    """A method the merged file declares twice in one class or `impl` block whose header the
    original has, with that method declared once in each such block there."""
    if lang not in _METHOD and lang != "go":
        return None
    twice = [key for key, count in _members(after, lang).items() if count >= 2]
    if not twice:
        return None
    old = _members(before, lang)
    for header, _row, name in twice:
        counts = [count for (h, _r, n), count in old.items() if h == header and n == name]
        if counts and max(counts) == 1:
            return (
                f"the merged file declares {name!r} twice in {header[:50]!r} where the "
                "original declares it once there: the new method should have replaced the old"
            )
    return None
