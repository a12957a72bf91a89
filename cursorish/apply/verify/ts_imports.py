"""TypeScript and JavaScript: an import the merge removes while a top-level statement of the
merged file still uses the name it bound. The sketch took the import out because that code goes
too, and under a marker it stayed. Only column-0 lines are read for uses: inside functions a
parameter or a local of the same name may hide the import, and lines do not tell where."""

from __future__ import annotations

import re

_TS_DECLARATION = re.compile(
    r"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(?:const\s+enum|function\s*\*?|class|interface|namespace|type|enum|const|let|var)\s+"
    r"([A-Za-z_$][\w$]*)"
)
_DESTRUCTURING = re.compile(r"^(?:export\s+)?(?:const|let|var)\s*[{\[]([^=]*)[}\]]\s*(?::[^=]*)?=")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`(?:[^`\\]|\\.)*`')


def _ts_import_names(text: str) -> list[str]:
    """The names an import statement (`text`, its lines joined) binds."""
    head = re.sub(r"\bfrom\s*['\"].*$", "", text, flags=re.DOTALL)
    head = re.sub(r"^\s*import\s+(?:type\s+)?", "", head)
    if head.lstrip().startswith(("'", '"')):
        return []  # a side-effect import binds nothing
    names: list[str] = []
    braces = re.search(r"\{(.*)\}", head, re.DOTALL)
    if braces:
        for part in braces.group(1).split(","):
            words = part.replace("type ", " ").split()
            if words:
                names.append(words[-1])
        head = head[: braces.start()] + head[braces.end() :]
    star = re.search(r"\*\s+as\s+([A-Za-z_$][\w$]*)", head)
    if star:
        names.append(star.group(1))
        head = head[: star.start()] + head[star.end() :]
    default = re.match(r"\s*([A-Za-z_$][\w$]*)", head)
    if default:
        names.append(default.group(1))
    return [n for n in names if _NAME.fullmatch(n)]


def _top_bindings(lines: list[str]) -> tuple[set[str], set[str]]:
    """(names imports bind, names bound at the top level otherwise) in a file."""
    imported: set[str] = set()
    declared: set[str] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("import "):
            end = i
            while (
                end < len(lines) - 1
                and end - i < 200
                and "from" not in lines[end]
                and not re.match(r"import\s+['\"]", line)
            ):
                end += 1
            imported.update(_ts_import_names("\n".join(lines[i : end + 1])))
            i = end + 1
            continue
        match = _TS_DECLARATION.match(line)
        if match:
            declared.add(match.group(1))
        else:
            spread = _DESTRUCTURING.match(line)
            if spread:
                for part in spread.group(1).split(","):
                    words = re.split(r"[:=]", part)[-1 if ":" in part else 0].split()
                    if words and _NAME.fullmatch(words[0].lstrip(".")):
                        declared.add(words[0].lstrip("."))
        i += 1
    return imported, declared


def _orphaned_ts_import(before: list[str], after: list[str], lang: str) -> str | None:
    """An import the merge removes while a top-level statement of the merged file (a line at
    column 0) still uses the name it bound."""
    if lang not in ("typescript", "tsx", "javascript"):
        return None
    imported, _ = _top_bindings(before)
    if not imported:
        return None
    kept, declared = _top_bindings(after)
    gone = sorted(imported - kept - declared)
    if not gone:
        return None
    used = re.compile(rf"(?<![\w$.])({'|'.join(map(re.escape, gone))})(?![\w$])")
    for r, line in enumerate(after):
        if not line[:1].isalpha() or line.startswith("import ") or " from " in line:
            continue
        code = _STRING.sub("", line.split("//")[0])
        # A name followed by `:` or `?:` is declared there (a parameter, a key), not used.
        match = next(
            (m for m in used.finditer(code) if not re.match(r"\s*\??:", code[m.end() :])), None
        )
        if match:
            return (
                f"the merge removes the import of {match.group(1)!r} while the file still "
                f"uses it (merged line {r + 1}, {line.strip()[:50]!r}): the code using it was "
                "meant to go too"
            )
    return None


_SIDE_EFFECT = re.compile(r"import\s+['\"]")


def _statements(lines: list[str]) -> tuple[list[tuple[str, list[str]]], set[int]]:
    """The column-0 import statements ((their first line stripped, the names they bind)) and
    the rows they take."""
    found: list[tuple[str, list[str]]] = []
    rows: set[int] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("import ") or _SIDE_EFFECT.match(line):
            i += 1
            continue
        end = i
        while end < len(lines) - 1 and end - i < 200 and "from" not in lines[end]:
            end += 1
        text = "\n".join(lines[i : end + 1])
        found.append((line.strip(), _ts_import_names(text)))
        rows.update(range(i, end + 1))
        i = end + 1
    return found, rows
