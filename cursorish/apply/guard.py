"""Refusing merges that delete more than the sketch plausibly asked for."""

from __future__ import annotations

import re
from collections import Counter

from cursorish.apply.dropped_definitions import dropped_with_last_use
from cursorish.apply.languages import Language
from cursorish.apply.lazy import RefusedMerge
from cursorish.apply.lazy_dead_edge import dead_prefix, leading_units
from cursorish.apply.lines import SourceFile, key, weight
from cursorish.apply.spans import similar
from cursorish.apply.structure import Definition, definitions
from cursorish.apply.twin_copies import (
    doc_of_new_definition,
    in_other_function,
    innermost_function,
)

_UNSTRUCTURED_LIMIT = 25  # deleted non-blank lines in one run, where there is no grammar
_SMALL_DEFINITION = 2
_NEAR = 8  # lines between two copies of a line that are one line placed twice
_TELLING_LENGTH = 12  # a shorter line (`return x`, `else {`) may well repeat
# Kinds a file may legitimately repeat (overloads, variable declarations, reopened classes).
_REPEATABLE = frozenset(
    {
        "lexical_declaration",
        "var_declaration",
        "const_declaration",
        "method_declaration",
        "class",
        "module",
        "impl_item",
        "decorated_definition",
    }
)  # lines: one-line definitions (a field, a constant) may go unmentioned
_HEADER = re.compile(
    r"\b(def|class|func|function|fn|type|interface|struct|enum|trait|impl|module|const|let|var|"
    r"static|public|private|protected|async)\b|^\s*\w+\s*\([^)]*\)\s*[{:]"
)


class UnmentionedDefinition(RefusedMerge):
    """The merge deletes a definition the sketch never mentions."""


def check_deletions(
    source: SourceFile,
    original: str,
    merged: str,
    sketch: list[str],
    deleted: list[int],
    lang: Language,
) -> None:
    """Raise `RefusedMerge` when the merge loses a definition the sketch never mentions (or,
    without a grammar, deletes a long run of lines the sketch does not show).

    A renamed definition is not lost: the sketch writes a header like the original's (same
    depth, a similar line) with a name the original does not define, and some of the old
    body's lines stay (they anchored the sketch there), one of them at most twice in the file
    (the boilerplate of look-alikes anchors nothing).
    """
    _check_copied_lines(source, merged, sketch, deleted, lang)
    if not lang.has_grammar:
        _check_runs(source, set(deleted))
        return
    _check_duplicates(original, merged, lang)
    gone = set(deleted)
    if not gone:
        return
    headers = [line for line in sketch if _HEADER.search(line)]
    found = definitions(original, lang.name)
    names = {d.name for d in found}
    lost: list[Definition] = []
    dropped: list[Definition] = []
    for definition in found:
        if definition.end - definition.start + 1 <= _SMALL_DEFINITION:
            continue
        if definition.start not in gone or _mentioned(definition, headers):
            continue
        still_used = _named_anywhere(definition.name, [*sketch, merged])
        if not still_used and _renamed(definition, source.lines, headers, names, gone):
            continue
        if not still_used and dropped_with_last_use(definition, source.lines, sketch, gone, lang):
            dropped.append(definition)
            continue
        lost.append(definition)
    for definition in lost:
        if any(_belongs(definition, owner, source.lines) for owner in dropped):
            continue
        if definition.depth == 0 and _dead_head(source.lines, merged, found, gone, lang):
            continue
        raise UnmentionedDefinition(
            f"the merge would delete {definition.kind.replace('_', ' ')} "
            f"{definition.name!r} (original lines {definition.start + 1}-"
            f"{definition.end + 1}), which the sketch never mentions"
        )


# A Go method's receiver type: `func (r codecRegistry) Name(`, `func (r *List[T]) Name(`,
# `func (*List[T]) Name(`.
_RECEIVER = re.compile(r"^func\s*\(\s*(?:\w+\s+)?\*?\s*(\w+)")


def _belongs(definition: Definition, owner: Definition, lines: list[str]) -> bool:
    """Whether a definition is part of one the sketch deletes with its last use: written inside
    it (a method of a deleted class), or a Go method of a deleted type. It cannot outlive its
    owner, so it goes with it; the owner was judged on its own (the sketch shows the lines
    around the deleted lines and no longer uses its name), and a method name the file uses
    elsewhere (`Encoder` of an interface the type implemented) is no use of this one."""
    if owner.start < definition.start and definition.end <= owner.end:
        return True
    receiver = _RECEIVER.match(lines[definition.start])
    return (
        definition.kind == "method_declaration"
        and receiver is not None
        and receiver.group(1) == owner.name
    )


def _dead_head(
    lines: list[str], merged: str, found: list[Definition], gone: set[int], lang: Language
) -> bool:
    """Whether the merge deletes a Python file's leading imports and definitions whole, all of
    them dead in the merged file (`dead_prefix`): the sketch's new head took their place."""
    if lang.name != "python":
        return False
    units = leading_units(lines, found)
    if not units or any(j not in gone for _names, r in units for j in r if lines[j].strip()):
        return False
    defined = {d.name for d in found if d.depth == 0}
    return dead_prefix(lines, units, merged.split("\n"), defined)


def _named_anywhere(name: str, sketch: list[str]) -> bool:
    """A name the sketch or the merge still uses (a call, a reference) was not renamed away."""
    named = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    return any(named.search(line) for line in sketch)


def _renamed(
    definition: Definition, lines: list[str], headers: list[str], names: set[str], gone: set[int]
) -> bool:
    body = range(definition.start + 1, definition.end + 1)
    kept = [key(lines[j]) for j in body if lines[j].strip() and j not in gone]
    if not kept:
        return False
    # Kept lines the file writes three times or more (the boilerplate of look-alikes) anchor
    # no rename: the sketch wrote a new definition over one of its look-alikes.
    counts = Counter(key(line) for line in lines)
    if not any(counts[k] <= 2 and weight(k) == 1.0 for k in kept):
        return False
    old = lines[definition.start]
    for header in headers:
        if not similar(header, old):
            continue
        words = set(re.findall(r"[A-Za-z_$][\w$]*", header))
        fresh = [word for word in words if word not in names and word not in old]
        # A new name that only lengthens the old one (`check` -> `check_empty`) names a
        # variant written beside it, as often as a rename: the sketch does not tell which.
        if fresh and not all(_lengthens(word, definition.name) for word in fresh):
            return True
    return False


def _lengthens(word: str, name: str) -> bool:
    """Whether `word` is `name` with more written after it (`limit_to_0` for `limit`)."""
    return len(word) > len(name) and word.startswith(name)


def _mentioned(definition: Definition, headers: list[str]) -> bool:
    named = re.compile(rf"(?<!\w){re.escape(definition.name)}(?!\w)")
    return any(named.search(line) for line in headers)


def _check_copied_lines(
    source: SourceFile, merged: str, sketch: list[str], deleted: list[int], lang: Language
) -> None:
    """A telling line the original and the sketch each have once but the merge has twice, near
    each other and near lines the merge deleted: the sketch's copy was written over the wrong
    lines, next to the original one instead of over it. Not where the sketch writes its copy
    into another function than the original's, which the merge keeps whole, or a doc comment
    onto a new definition (`twin_copies`)."""
    if not deleted:
        return
    source_keys = [key(line) for line in source.lines]
    before = Counter(source_keys)
    shown = Counter(key(line) for line in sketch)
    where: dict[str, list[int]] = {}
    merged_rows = merged.split("\n")
    merged_keys = [key(line) for line in merged_rows]
    parsed: list[list[Definition]] = []

    def functions() -> list[Definition]:  # parsed once, and only where a copy is found
        if not parsed:
            parsed.append(definitions("\n".join(source.lines), lang.name))
        return parsed[0]

    for number, text in enumerate(merged_keys):
        if before[text] == 1 and shown[text] == 1:
            where.setdefault(text, []).append(number)
    for text, places in where.items():
        # Far apart, the copy is deliberate (code copied into a new function).
        near = len(places) == 2 and places[1] - places[0] <= _NEAR
        if not near or not _telling(text):
            continue
        at = source_keys.index(text)
        if any(abs(j - at) <= _NEAR for j in deleted) and not _twin_function(
            source,
            source_keys,
            at,
            (merged_rows, merged_keys),
            places,
            where,
            set(deleted),
            functions(),
        ):
            raise RefusedMerge(
                f"the sketch's line {text[:60]!r} would appear twice: the original has it once "
                "and the sketch's copy was not placed over it"
            )


def _twin_function(
    source: SourceFile,
    source_keys: list[str],
    at: int,
    merged: tuple[list[str], list[str]],
    places: list[int],
    where: dict[str, list[int]],
    gone: set[int],
    found: list[Definition],
) -> bool:
    """Whether one of the two copies of a line (merged rows `places`) sits between lines that
    the original, the sketch and the merge each hold once, lying in another function than the
    original's copy, which the merge keeps whole; and the merge shows a telling line of that
    function held once (`twin_copies.in_other_function`). The original's own copy never
    passes: the lines around it lie in its own function. `at` is the original's copy, among
    `source_keys`; `merged` the merged rows and their keys."""
    once = {text for text, rows in where.items() if len(rows) == 1}
    if not found or not once:
        return False
    merged_rows, merged_keys = merged
    line_of = {text: j for j, text in enumerate(source_keys) if text in once}
    pins = [line_of[text] for text in once if _telling(text)]
    rows = [merged_rows[row:] for row in places]
    if any(doc_of_new_definition(lines, source.lines, at) for lines in rows):
        return True
    for row in places:
        up = next((x for x in range(row - 1, -1, -1) if merged_keys[x] in once), None)
        down = next((x for x in range(row + 1, len(merged_keys)) if merged_keys[x] in once), None)
        if up is None or down is None:
            continue
        home = innermost_function(found, [line_of[merged_keys[up]], line_of[merged_keys[down]]])
        if in_other_function(source.lines, found, at, home, pins, lambda x: x not in gone):
            return True
    return False


def _telling(text: str) -> bool:
    return len(text) >= _TELLING_LENGTH and weight(text) >= 1.0


def _check_runs(source: SourceFile, gone: set[int]) -> None:
    run = 0
    for j, line in enumerate(source.lines):
        if j not in gone:
            run = 0
        elif line.strip():
            run += 1
        if run > _UNSTRUCTURED_LIMIT:
            raise RefusedMerge(
                f"the merge would delete more than {_UNSTRUCTURED_LIMIT} lines around original "
                f"line {j + 1} that the sketch does not show"
            )


def _check_duplicates(original: str, merged: str, lang: Language) -> None:
    """A definition the original has once and the merge has twice was added, not replaced."""
    if lang.name in _NAMESPACES and _new_top_header(original, merged):
        _check_top_names(original, merged, lang)
    if not _header_repeated(original, merged):
        return  # parsing is the costly part: skip it when no header line got a second copy
    before = Counter(_qualified(definitions(original, lang.name)))
    after = Counter(_qualified(definitions(merged, lang.name)))
    for ident, count in after.items():
        if count > before[ident] >= 1 and not _repeatable(ident):
            kind, name, _depth = ident
            raise RefusedMerge(
                f"the merge would define {kind.replace('_', ' ')} {name!r} a second time: the "
                "sketch's version was not placed over the original one"
            )


# Languages where a file's top-level name may be declared once per namespace, whatever the
# kind of declaration (Go: `var engine` and `func engine` clash); kinds to namespaces.
_NAMESPACES: dict[str, dict[str, str]] = {
    "go": {
        "function_declaration": "value",
        "var_declaration": "value",
        "const_declaration": "value",
        "type_declaration": "value",
    },
    "rust": {
        "function_item": "value",
        "const_item": "value",
        "static_item": "value",
        "struct_item": "type",
        "enum_item": "type",
        "trait_item": "type",
        "type_item": "type",
        "union_item": "type",
        "mod_item": "type",
    },
}
_ANY_NUMBER = frozenset({"init", "_"})  # Go: a file may have several `init` and blank names


def _new_top_header(original: str, merged: str) -> bool:
    """Whether the merge has a top-level definition line the original does not."""
    before = set(original.split("\n"))
    return any(
        line[:1].isalpha() and line not in before and _HEADER.search(line)
        for line in merged.split("\n")
    )


def _check_top_names(original: str, merged: str, lang: Language) -> None:
    """A top-level name the original declares once, declared again by the merge under
    another kind (`var engine = ...` beside the `func engine()` it replaces): the sketch's
    declaration was meant to replace the original's, which stays."""
    kinds = _NAMESPACES[lang.name]

    def names(text: str) -> Counter[tuple[str, str]]:
        return Counter(
            (kinds[d.kind], d.name)
            for d in definitions(text, lang.name)
            if d.depth == 0 and d.kind in kinds and d.name not in _ANY_NUMBER
        )

    before = names(original)
    for (space, name), count in names(merged).items():
        if count > before[(space, name)] >= 1:
            raise RefusedMerge(
                f"the merge would declare {name!r} twice at the top of the file: the sketch's "
                "declaration was not placed over the original one"
            )


def _repeatable(ident: tuple[str, str, int]) -> bool:
    """Whether a file may define this twice: JavaScript or Go functions may not, except Go's
    `init` (a file may have several)."""
    kind, name, _depth = ident
    return kind in _REPEATABLE or (kind == "function_declaration" and name == "init")


def _qualified(found: list[Definition]) -> list[tuple[str, str, int]]:
    """(kind, name with its enclosing definitions' names, depth): methods of two classes
    may share a name."""
    out: list[tuple[str, str, int]] = []
    stack: list[tuple[Definition, str]] = []
    for d in found:  # sorted by start, outer first
        while stack and stack[-1][0].end < d.start:
            stack.pop()
        name = f"{stack[-1][1]}.{d.name}" if stack else d.name
        stack.append((d, name))
        out.append((d.kind, name, d.depth))
    return out


def _header_repeated(original: str, merged: str) -> bool:
    """Whether some definition-like line occurs more often in the merge than in the original."""
    before = Counter(map(str.strip, original.split("\n")))
    after = Counter(map(str.strip, merged.split("\n")))
    return any(count > before[line] >= 1 and _HEADER.search(line) for line, count in after.items())
