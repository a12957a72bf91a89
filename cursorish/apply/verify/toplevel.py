"""Names the merged file declares twice at its top level where the original declares them once:
a new declaration written beside the old one it was meant to replace."""

from __future__ import annotations

import re
from collections import Counter

# Declarations a file's top level may not repeat: the file would not compile. Left out on
# purpose: Python (a module may define a name again on purpose), TypeScript `function`, `enum`
# and `interface` (overloads, declaration merging), Go's `init` and `_`, methods (Go's
# `func (r T)`), anything indented.
_TOP = {
    "go": re.compile(r"^(?:func|type|var|const)\s+([A-Za-z_]\w*)\b"),
    "rust": re.compile(
        r"^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?"
        r"(?:fn|struct|enum|trait|union|type|const|static|mod)\s+([A-Za-z_]\w*)\b"
    ),
    "typescript": re.compile(
        r"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?"
        r"(?:type|class|const|let)\s+([A-Za-z_$][\w$]*)\b"
    ),
}
_TOP["tsx"] = _TOP["javascript"] = _TOP["typescript"]
# A declaration under one of these (the line before it) may well repeat by design: Rust's
# `#[cfg(...)]` variants.
_VARIANT = re.compile(r"^\s*#\[cfg")


def _declared(lines: list[str], pattern: re.Pattern[str]) -> Counter[str]:
    names: Counter[str] = Counter()
    previous = ""
    for line in lines:
        if line[:1].isalpha():
            match = pattern.match(line)
            if match and not _VARIANT.match(previous) and match.group(1) not in ("init", "_"):
                names[match.group(1)] += 1
        if line.strip():
            previous = line
    return names


def _declared_twice(before: list[str], after: list[str], lang: str) -> str | None:
    """A name the original declares once at its top level that the merged file declares twice
    there: the sketch's declaration was meant to replace the original's, not to join it."""
    pattern = _TOP.get(lang)
    if pattern is None:
        return None
    old = _declared(before, pattern)
    for name, count in _declared(after, pattern).items():
        if count >= 2 and old[name] == 1:
            return (
                f"the merged file declares {name!r} twice at its top level where the original "
                "declares it once: the new declaration should have replaced the old one"
            )
    return None
