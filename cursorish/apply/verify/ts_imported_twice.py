"""TypeScript and JavaScript: a name two import statements of the merged file bind where the
original binds it once at most. The file does not compile (a duplicate identifier): the sketch's
import was meant to replace the old one, which a marker kept."""

from __future__ import annotations

from collections import Counter

from cursorish.apply.verify.ts_imports import _statements


def _import_counts(lines: list[str]) -> Counter[str]:
    """How many column-0 import statements bind each name."""
    return Counter(name for _, names in _statements(lines)[0] for name in set(names))


def _imported_twice(before: list[str], after: list[str], lang: str) -> str | None:
    """A name two imports of the merged file bind where the original's imports bind it once
    at most."""
    if lang not in ("typescript", "tsx", "javascript"):
        return None
    if sum(line.startswith("import ") for line in after) < 2:
        return None
    twice = [name for name, count in _import_counts(after).items() if count >= 2]
    if not twice:
        return None
    old = _import_counts(before)
    name = next((x for x in sorted(twice) if old[x] < 2), None)
    if name is None:
        return None
    return (
        f"the merged file imports {name!r} twice where the original imports it once: the "
        "sketch's import was meant to replace the old one"
    )
