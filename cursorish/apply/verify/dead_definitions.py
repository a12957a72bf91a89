"""Private definitions a merge leaves without a use: the sketch took out the last call of a
function only this file can call, and a marker kept the definition. Whether the function goes
too is not said (generators and planners alike show a deletion by leaving the lines out)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

_DEFINITION = {
    "python": re.compile(r"^(?:async\s+)?def\s+(\w+)|^class\s+(\w+)"),
    "go": re.compile(r"^func\s+(?:\([^()]*\)\s*)?(\w+)|^type\s+(\w+)"),
    "rust": re.compile(r"^\s*(?:pub(?:\([\w ]+\))?\s+)?(?:const\s+|async\s+)*fn\s+(\w+)|^()"),
    "typescript": re.compile(
        r"^(?:export\s+)?(?:async\s+)?function\*?\s+(\w+)"
        r"|^(?:export\s+)?(?:const|let|class|interface|type|enum)\s+(\w+)\b(?!\s*,)"
    ),
}
_DEFINITION["tsx"] = _DEFINITION["javascript"] = _DEFINITION["typescript"]


def _definitions(lines: list[str], lang: str) -> dict[str, tuple[int, int]]:
    """Name -> (first, end) lines of each definition the pattern finds (the first of a name)."""
    pattern = _DEFINITION[lang]
    found: dict[str, tuple[int, int]] = {}
    indented = lang == "rust"  # Rust's functions sit in `impl` blocks too
    for j, line in enumerate(lines):
        if not line or (line[0].isspace() and not indented):
            continue
        match = pattern.match(line)
        if not match:
            continue
        name = match.group(1) or match.group(2)
        if not name or name in found:
            continue
        found[name] = (j, _end(lines, j))
    return found


def _end(lines: list[str], start: int) -> int:
    """The line after a definition: the next line as shallow as its header (a closing `}` at
    that depth included)."""
    header = lines[start]
    depth = len(header) - len(header.lstrip())
    for k in range(start + 1, len(lines)):
        line = lines[k]
        text = line.lstrip()
        if not text or len(line) - len(text) > depth:
            continue
        return k + 1 if text.startswith(("}", ")", "]")) else k
    return len(lines)


def _private(header: str, name: str, lang: str) -> bool:
    """Whether only this file can use the definition: other modules may call a public one, so
    its last use here going says nothing of whether it stays."""
    if lang == "python":
        return name.startswith("_")
    if lang == "go":
        return name[:1].islower()
    return not header.lstrip().startswith(("pub", "export"))


def _uses(lines: list[str], name: str, span: tuple[int, int], lang: str = "") -> int:
    """Lines naming `name` outside its definition (and, for a Go type, outside its own
    methods: a receiver `func (x *name)` is part of the type, not a use of it)."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    rows = [
        k
        for k, line in enumerate(lines)
        if not span[0] <= k < span[1] and name in line and word.search(line)
    ]
    if lang == "go" and rows:
        receiver = re.compile(rf"^func\s*\(\s*\w*\s*\*?{re.escape(name)}\b")
        methods = [(k, _end(lines, k)) for k in rows if receiver.match(lines[k])]
        rows = [k for k in rows if not any(low <= k < high for low, high in methods)]
    return len(rows)


def _unused_definitions(
    before: list[str], after: list[str], lang: str, shown: set[str]
) -> Iterator[tuple[str, tuple[int, int], dict[str, tuple[int, int]]]]:
    """Definitions the merge keeps (their header not in the sketch) that the original used and
    the merged file no longer does, in file order: (name, its span in `after`, the original's
    definitions)."""
    before_text = "\n".join(before)
    after_text = "\n".join(after)
    # A name can occur fewer times only where a line holding it went: the lines gone are few.
    gone = "\n".join((Counter(before) - Counter(after)).elements())
    old: dict[str, tuple[int, int]] | None = None
    for name, span in _definitions(after, lang).items():
        if after[span[0]].strip() in shown or name not in gone:
            continue
        if after_text.count(name) >= before_text.count(name):
            continue  # nothing of it went: cheap, and true of nearly every definition
        if old is None:
            old = _definitions(before, lang)
        was = old.get(name)
        if was is None or _uses(after, name, span, lang) or not _uses(before, name, was, lang):
            continue
        yield name, span, old


def _dead_definition(before: list[str], after: list[str], lang: str, shown: set[str]) -> str | None:
    """A private definition the merge keeps (its header is not in the sketch) that the original
    used and the merged file no longer does."""
    if lang not in _DEFINITION:
        return None
    for name, span, _old in _unused_definitions(before, after, lang, shown):
        if _private(after[span[0]], name, lang):
            return (
                f"the merge removes the last use of {name!r} but keeps its definition (merged "
                f"line {span[0] + 1}) under a marker: the sketch does not say whether it goes too"
            )
    return None
