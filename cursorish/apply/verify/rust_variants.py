"""Rust items a merge leaves declared twice with one copy no longer under a `#[cfg(...)]`.

A Rust file may declare one top-level name several times when each copy sits under its own
`#[cfg(...)]` (`#[cfg(doc)]` and `#[cfg(not(doc))]` variants of one macro): only one of them
is ever compiled. A copy without a `cfg` attribute is compiled always, so beside any other
copy it does not compile. A merge that leaves such a pair where the original had none dropped
a variant's `cfg` line while keeping the other variant: the sketch most likely replaced the
variants with one item (the rest of them hidden next to its lines), not only the attribute."""

from __future__ import annotations

import re

_ITEM = re.compile(
    r"^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?"
    r"(?:(?:fn|struct|enum|trait|union|type|const|static|mod)\s+|macro_rules!\s*)"
    r"([A-Za-z_]\w*)\b"
)
_CFG = re.compile(r"^#\[cfg\s*\(")


def _copies(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Each top-level item name: (how many copies the file declares, how many without a
    `#[cfg(...)]` among the attributes and doc comments right above them)."""
    found: dict[str, tuple[int, int]] = {}
    for number, line in enumerate(lines):
        if not line[:1].isalpha():
            continue
        match = _ITEM.match(line)
        if not match:
            continue
        gated = False
        above = number - 1
        while above >= 0 and lines[above].startswith(("#[", "///", "//!", "//")):
            gated = gated or bool(_CFG.match(lines[above]))
            above -= 1
        total, ungated = found.get(match.group(1), (0, 0))
        found[match.group(1)] = (total + 1, ungated + (0 if gated else 1))
    return found


def _clashes(lines: list[str]) -> set[str]:
    return {name for name, (total, ungated) in _copies(lines).items() if total > 1 and ungated}


def _ungated_variant(before: list[str], after: list[str], lang: str) -> str | None:
    """A top-level Rust name the merged file declares more than once with a copy outside any
    `cfg`, where the original's copies did not clash so."""
    if lang != "rust":
        return None
    new = _clashes(after) - _clashes(before)
    if not new:
        return None
    name = sorted(new)[0]
    return (
        f"the merged file declares {name!r} more than once at its top level with a copy not "
        "under a #[cfg(...)]: a variant's cfg attribute went while the other variant stayed"
    )
