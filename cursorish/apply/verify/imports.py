"""Imports the merge removes while the merged file still uses the names they bound, and imports
it keeps under a marker although the sketch removed every use of the names they bind."""

from __future__ import annotations

import re

_GO_IMPORT = re.compile(r'^\s*(?:import\s+)?(?:(\w+|\.)\s+)?"([^"]+)"\s*$')
_PY_IMPORT = re.compile(r"^\s*(?:from\s+[\w.]+\s+)?import\s+(.+)$")


def _imported(lines: list[str], lang: str) -> dict[str, str]:
    """Names a file's imports bind, with the import line that binds each. A Python
    `from x import (...)` written over several lines binds each name on the line it is written
    on: the sketch drops a name from such an import as often as from a one-line one, and code
    still calling it must not be kept (nor a name moved into one read as no longer imported)."""
    names: dict[str, str] = {}
    if lang == "go":
        for line in lines:
            if '"' not in line:
                continue  # the pattern needs a quoted path; the test is much cheaper than it
            match = _GO_IMPORT.match(line)
            if match and match.group(1) != ".":
                parts = [p for p in match.group(2).split("/") if not re.fullmatch(r"v\d+", p)]
                name = match.group(1) or (parts[-1] if parts else "")
                if name and name != "_":
                    names[re.sub(r"\W", "_", name)] = line.strip()
        return names
    inside = False  # in the parentheses of a `from x import (...)` written over lines
    for line in lines:
        if inside:
            inside = ")" not in line
            _bind(line.split("#")[0].replace(")", ""), line, names)
            continue
        if "import" not in line:
            continue  # the pattern needs the word; the test is much cheaper than it
        match = _PY_IMPORT.match(line)
        if not match:
            continue
        bound = match.group(1).split("#")[0]
        if bound.lstrip().startswith("("):
            inside = ")" not in bound
            bound = bound.replace("(", "").replace(")", "")
        elif "(" in bound:
            continue
        _bind(bound, line, names)
    return names


def _bind(bound: str, line: str, names: dict[str, str]) -> None:
    """Record the names a Python import's text `bound` binds (`a, b as c`), each with the
    import `line` that holds it."""
    for part in bound.split(","):
        words = part.split()
        if words:
            name = words[-1] if " as " in part else words[0].split(".")[0]
            names[name] = line.strip()


def _orphaned_import(before: list[str], after: list[str], lang: str) -> str | None:
    """An import the merge removes while the file still uses the name it bound: the sketch
    removed the import because the code using it goes too (under a marker, it stayed)."""
    kept = _imported(after, lang)
    gone = {name: line for name, line in _imported(before, lang).items() if name not in kept}
    text = "\n".join(after)
    for name in list(gone):
        # A name the file binds itself (a class of that name, an assignment) is no import's.
        own = rf"^\s*(?:(?:async\s+)?def|class|func|type|var|const)\s+{re.escape(name)}\b"
        if re.search(own + rf"|^\s*{re.escape(name)}\s*(?::[^=]*)?=[^=]", text, re.MULTILINE):
            del gone[name]
    if not gone:
        return None
    used = _use_pattern(list(gone), lang)
    for line in _code(after, lang, set(gone.values())):
        match = used.search(line)
        if match:
            return (
                f"the merge removes {gone[match.group(1)]!r} while the file still uses "
                f"{match.group(1)!r} ({line.strip()[:50]!r}): the code using it was meant to go too"
            )
    return None


class _CodeText:
    """A file's text for counting a name outside its comment lines: the whole file's count
    less the comment lines' (a `in` test first: most lines hold no comment)."""

    def __init__(self, lines: list[str], comment: str) -> None:
        self.text = "\n".join(lines)
        self.notes = "\n".join(x for x in lines if comment in x and x.lstrip().startswith(comment))

    def count(self, name: str) -> int:
        return self.text.count(name) - self.notes.count(name)


def _stale_import(before: list[str], after: list[str], lang: str, shown: set[str]) -> str | None:
    """An import a marker kept (the sketch does not show it) whose name the original used and
    the merged file uses nowhere: the sketch took out its last use, and whether the import goes
    with it is not said (Go does not even compile an unused import). `shown`: the sketch's
    lines, stripped."""
    kept = _imported(after, lang)
    if not kept:
        return None
    # Only a name that occurs fewer times than before can have lost its last use (comment
    # lines left out: a new comment may name the package whose last use the sketch took out).
    comment = "//" if lang == "go" else "#"
    code_then, code_now = _CodeText(before, comment), _CodeText(after, comment)
    fewer = [
        name
        for name, line in kept.items()
        if line not in shown and code_now.count(name) < code_then.count(name)
    ]
    if not fewer:
        return None
    imports = set(kept.values())
    used = _use_pattern(fewer, lang)
    then = {m.group(1) for line in _code(before, lang, imports) for m in used.finditer(line)}
    now = {m.group(1) for line in _code(after, lang, imports) for m in used.finditer(line)}
    binds: dict[str, list[str]] = {}
    for bound, line in kept.items():
        binds.setdefault(line, []).append(bound)
    for name in fewer:
        # A line that binds other names still in use stays whatever the sketch meant.
        others = [x for x in binds[kept[name]] if x != name]
        if name in then and name not in now and all(x in fewer and x not in now for x in others):
            return (
                f"the merge keeps {kept[name]!r} though it removes every use of {name!r}: "
                "the sketch does not say whether the import goes too"
            )
    return None


def _use_pattern(names: list[str], lang: str) -> re.Pattern[str]:
    alternatives = "|".join(map(re.escape, names))
    return re.compile(rf"\b({alternatives})\." if lang == "go" else rf"\b({alternatives})\b")


def _code(lines: list[str], lang: str, skip: set[str]) -> list[str]:
    """The lines that are code (not comments, docstrings or the lines in `skip`), with their
    string literals blanked out."""
    comment = "//" if lang == "go" else "#"
    code: list[str] = []
    in_text = ""  # the quote of a Python docstring (or `/*` comment) the line sits in
    for line in lines:
        opener = "/*" if lang == "go" else ('"""' if '"""' in line else "'''")
        closer = "*/" if lang == "go" else opener
        if in_text:
            if in_text in line:
                in_text = ""
            continue
        if opener in line and line.count(opener) + line.count(closer) * (opener != closer) == 1:
            in_text = closer
            continue
        if not line.lstrip().startswith(comment) and line.strip() not in skip:
            code.append(
                re.sub(
                    r'"(?:[^"\\]|\\.)*"' + (r"|'(?:[^'\\]|\\.)*'" if lang == "python" else ""),
                    "",
                    line,
                )
            )
    return code
