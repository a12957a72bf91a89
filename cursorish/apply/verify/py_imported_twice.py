"""Python: a name two import statements of one block of the merged file bind where no block of
the original binds it twice. Nobody imports a name twice in the same scope: the sketch wrote
the import again where it now belongs (moved it), and the old one, under a marker, stayed.
Which of the lines around the old import went with it the sketch does not say."""

from __future__ import annotations

import re
from collections import Counter

from cursorish.apply.lines import indent_width

_NAME = r"[\w.]+(?:\s+as\s+\w+)?"
_PY_IMPORT = re.compile(
    rf"^(?:from\s+([\w.]+)\s+)?import\s+({_NAME}(?:\s*,\s*{_NAME})*)\s*(?:#.*)?$"
)
_QUOTES = ('"""', "'''")


def _bound(statement: re.Match[str]) -> list[str]:
    """The names one import statement binds (`import a.b` binds the dotted module: a file may
    also `import a`)."""
    names: list[str] = []
    for part in statement.group(2).split(","):
        words = part.split()
        names.append(words[-1] if len(words) == 3 else words[0])
    return names


def _scoped_imports(lines: list[str]) -> Counter[tuple[int, str]]:
    """The names each block's own import statements bind, counted per (block, name): a block is
    the nearest line before the import that is less indented (-1: the module)."""
    counts: Counter[tuple[int, str]] = Counter()
    stack: list[tuple[int, int]] = []  # (indentation, line) of the open blocks' headers
    in_text = ""
    for j, line in enumerate(lines):
        text = line.strip()
        if in_text:
            if in_text in text:
                in_text = ""
            continue
        if not text or text.startswith("#"):
            continue
        quote = next((q for q in _QUOTES if q in text), "")
        if quote and text.count(quote) == 1:
            in_text = quote  # a string that goes on past this line: its lines are no code
        width = indent_width(line)
        while stack and stack[-1][0] >= width:
            stack.pop()
        block = stack[-1][1] if stack else -1
        stack.append((width, j))
        if "import" not in text:
            continue
        statement = _PY_IMPORT.match(text)
        if statement:
            counts.update((block, name) for name in _bound(statement))
    return counts


def _repeats_a_name(lines: list[str]) -> bool:
    """Whether two import statements anywhere in the file bind one name (a pass over the import
    lines alone: the walk over every line's block is needed only then)."""
    seen: set[str] = set()
    for line in lines:
        if "import" not in line:
            continue
        statement = _PY_IMPORT.match(line.strip())
        for name in _bound(statement) if statement else []:
            if name in seen:
                return True
            seen.add(name)
    return False


def _imported_twice(before: list[str], after: list[str], lang: str) -> str | None:
    """A name one block of the merged Python file imports twice where no block of the original
    imports it twice."""
    if lang != "python" or not _repeats_a_name(after):
        return None
    twice = {name for (_, name), count in _scoped_imports(after).items() if count >= 2}
    if not twice:
        return None
    old = {name for (_, name), count in _scoped_imports(before).items() if count >= 2}
    name = next((x for x in sorted(twice) if x not in old), None)
    if name is None:
        return None
    return (
        f"the merged file imports {name!r} twice in one block where the original imports it "
        "once: the sketch moved the import, and the old one under a marker was meant to go"
    )
