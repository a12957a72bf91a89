"""Rust items a merge leaves deriving one trait twice.

`#[derive(Debug)]` twice on one item (in one attribute or two) implements the trait twice and
does not compile. A merge that leaves such an item where the original derived each trait once
kept an old `#[derive(...)]` line beside the sketch's new one: the sketch rewrote the
attribute, and its old version was read as a line the marker keeps."""

from __future__ import annotations

import re

_ITEM = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|union)\s+([A-Za-z_]\w*)\b")
_DERIVE = re.compile(r"^\s*#\[derive\(([^()]*)\)\]\s*$")
_ABOVE = ("#[", "///", "//")


def _twice(lines: list[str]) -> set[tuple[str, str]]:
    """(item, trait) for each struct, enum or union whose one-line `#[derive(...)]`
    attributes right above it name a trait more than once."""
    found: set[tuple[str, str]] = set()
    for number, line in enumerate(lines):
        match = _ITEM.match(line)
        if not match:
            continue
        seen: set[str] = set()
        above = number - 1
        while above >= 0 and lines[above].lstrip().startswith(_ABOVE):
            derive = _DERIVE.match(lines[above])
            for name in derive.group(1).split(",") if derive else ():
                trait = name.strip().split("::")[-1]
                if trait in seen:
                    found.add((match.group(1), trait))
                seen.add(trait)
            above -= 1
    return found


def _derived_twice(before: list[str], after: list[str], lang: str) -> str | None:
    """An item the merged file derives a trait for twice, where the original did not."""
    if lang != "rust":
        return None
    new = _twice(after) - _twice(before)
    if not new:
        return None
    item, trait = sorted(new)[0]
    return (
        f"the merged file derives {trait!r} twice for {item!r}: an old #[derive(...)] line "
        "stayed beside the sketch's new one"
    )
