"""TypeScript and JavaScript: an import a marker kept (the sketch does not show it) whose names
the original used and the merged file uses nowhere. The sketch took out their last use, and
whether the import goes with it is not said (Python's and Go's rule in `imports`)."""

from __future__ import annotations

import re

from cursorish.apply.verify.ts_imports import _STRING, _statements


def _used(lines: list[str], rows: set[int], names: set[str]) -> set[str]:
    """Which of `names` the lines outside `rows` use (comments and strings left out)."""
    if not names:
        return set()
    pattern = re.compile(rf"(?<![\w$])({'|'.join(map(re.escape, sorted(names)))})(?![\w$])")
    found: set[str] = set()
    comment = False
    for r, line in enumerate(lines):
        if r in rows:
            continue
        text = line.strip()
        if comment:
            comment = "*/" not in text
            continue
        if text.startswith("/*"):
            comment = "*/" not in text
            continue
        if text.startswith(("//", "*")):
            continue
        found.update(m.group(1) for m in pattern.finditer(_STRING.sub("", line.split("//")[0])))
    return found


def _stale_ts_import(before: list[str], after: list[str], lang: str, shown: set[str]) -> str | None:
    """An import the sketch does not show whose every name the original used and the merged
    file no longer uses. `shown`: the sketch's lines, stripped."""
    if lang not in ("typescript", "tsx", "javascript"):
        return None
    statements, rows = _statements(after)
    if not statements:
        return None
    before_text = "\n".join(before)
    after_text = "\n".join(after)
    fewer = {
        name
        for line, names in statements
        if line not in shown
        for name in names
        if after_text.count(name) < before_text.count(name)
    }
    if not fewer:
        return None
    _old, old_rows = _statements(before)
    then = _used(before, old_rows, fewer)
    now = _used(after, rows, fewer)
    for line, names in statements:
        if line in shown or not names or not all(x in fewer for x in names):
            continue
        if all(x in then and x not in now for x in names):
            return (
                f"the merge keeps {line[:60]!r} though it removes every use of "
                f"{', '.join(names)!r}: the sketch does not say whether the import goes too"
            )
    return None
