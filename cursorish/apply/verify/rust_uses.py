"""Rust: a top-level `use` the merge removes while the merged file still uses the name it
bound. The sketch took the import out because the code using it goes too (or moves into a
block that imports it itself), and under a marker that code stayed."""

from __future__ import annotations

import re

_RUST_DECLARATION = re.compile(
    r"^(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern(?:\s+\"[^\"]*\")?)\s+)*"
    r"(?:fn|struct|enum|union|trait|type|const|static(?:\s+mut)?|mod)\s+([A-Za-z_]\w*)"
)
_RUST_MACRO = re.compile(r"^(?:#\[macro_export\]\s*)?macro_rules!\s*([A-Za-z_]\w*)")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


def _rust_use_names(text: str) -> list[str]:
    """The names a `use` declaration (`text`, its lines joined) binds."""
    body = re.sub(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+", "", text).split(";")[0]
    names: list[str] = []
    for piece in re.split(r"[{},]", body):
        part = piece.strip()
        if not part:
            continue
        alias = re.search(r"\bas\s+(\w+)$", part)
        last = alias.group(1) if alias else part.split("::")[-1].strip()
        if _NAME.fullmatch(last) and last not in ("self", "super", "crate", "_"):
            names.append(last)
    return names


def _bindings(lines: list[str]) -> list[tuple[str, int, bool]]:
    """(name, line index, whether a `use` binds it) for every name bound at the file's top
    level: items starting at column 0 and the names `use` declarations bind (each at the line
    it is written on)."""
    found: list[tuple[str, int, bool]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line or line[0].isspace():
            i += 1
            continue
        if line.startswith(("use ", "pub use ", "pub(crate) use ")):
            end = i
            while end < len(lines) - 1 and end - i < 200 and ";" not in lines[end]:
                end += 1
            for name in _rust_use_names("\n".join(lines[i : end + 1])):
                at = next(
                    (
                        j
                        for j in range(i, end + 1)
                        if re.search(rf"\b{re.escape(name)}\b", lines[j])
                    ),
                    i,
                )
                found.append((name, at, True))
            i = end + 1
            continue
        match = _RUST_DECLARATION.match(line) or _RUST_MACRO.match(line)
        if match:
            found.append((match.group(1), i, False))
        i += 1
    return found


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`(?:[^`\\]|\\.)*`')


def _orphaned_binding(before: list[str], after: list[str], lang: str) -> str | None:
    """An import the merge removes (Rust) while the merged file still uses the name it bound,
    outside any block that imports the name itself: the sketch took the import out because
    the code using it goes too (or moves), and under a marker it stayed. (In TypeScript a
    parameter or a local of the same name hides an import often, and lines do not tell
    where; Rust's locals are snake_case values, its imports mostly types and modules.)"""
    if lang != "rust":
        return None
    imported_before = {name for name, _, is_import in _bindings(before) if is_import}
    if not imported_before:
        return None
    bound_after = {name for name, _, _ in _bindings(after)}
    gone = [name for name in imported_before if name not in bound_after]
    if not gone:
        return None
    # After `::` a name is a path's segment (`core::mem::swap`), not the import's binding.
    used = re.compile(rf"(?<![\w$.])(?<!::)({'|'.join(map(re.escape, gone))})(?![\w$])")
    local = _local_imports(after, gone)
    in_comment = False
    for r, line in enumerate(after):
        text = line.strip()
        if in_comment:
            in_comment = "*/" not in text
            continue
        if text.startswith("/*") and "*/" not in text:
            in_comment = True
            continue
        if not text or text.startswith(("//", "*", "/*", "#[", "import ", "use ", "pub use ")):
            continue
        if text.startswith("}") and "from" in text:
            continue  # the end of a multi-line import
        for match in used.finditer(_STRING.sub("", line.split("//")[0])):
            name = match.group(1)
            if any(low <= r <= high for low, high in local.get(name, [])):
                continue
            return (
                f"the merge removes the import of {name!r} while the file still uses it "
                f"(merged line {r + 1}, {text[:50]!r}): the code using it was meant to go too"
            )
    return None


def _local_imports(lines: list[str], names: list[str]) -> dict[str, list[tuple[int, int]]]:
    """For each name, the row ranges of the blocks that import it themselves (a `use` inside a
    function binds the name there only)."""
    ranges: dict[str, list[tuple[int, int]]] = {}
    wanted = set(names)
    for r, line in enumerate(lines):
        if not line[:1].isspace() or not line.lstrip().startswith("use "):
            continue
        bound = wanted.intersection(_rust_use_names(line.strip()))
        if not bound:
            continue
        depth = len(line) - len(line.lstrip())
        low = r
        while low > 0 and (not lines[low - 1].strip() or _depth(lines[low - 1]) >= depth):
            low -= 1
        high = r
        while high + 1 < len(lines) and (
            not lines[high + 1].strip() or _depth(lines[high + 1]) >= depth
        ):
            high += 1
        for name in bound:
            ranges.setdefault(name, []).append((low, high))
    return ranges


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip())
