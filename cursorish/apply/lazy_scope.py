"""Ties between readings of a lazy sketch told by scope: the new lines use a local name (a
variable the file declares inside a function, `let dir = ...`, `x := ...`), and only one
reading puts them where that name is declared. A careful reader places `res.sendFile(path.join(
dir, file))` in the one callback that declares `dir` and `file`, not in a look-alike callback
that does not: code placed outside the function that declares a name it uses does not compile.

A name counts only where the file tells its scope for certain: every use of it lies inside a
function that declares it (`let`/`const`/`var`/`mut`, `:=`, `=`), and no declaration is at the
top level (a global is visible everywhere). A name the new lines declare themselves tells
nothing, and so does one a new line may bind (`for dir in`, `dir, err :=`, `|dir|`,
`(dir) =>`, a new function's parameter): only a name used on the right of an assignment, or
on a line that binds nothing, is a use. The one reading that sees every such name it uses,
while each rival uses one it cannot see, is the reading; where the original parses cleanly
(else its scopes are not told), where the reading leaves a file that parses, and where it does
not itself remove a declaration whose name kept lines in that function still use (it would
strand them).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cursorish.apply.blankless import dropped_every_blank
from cursorish.apply.languages import Language
from cursorish.apply.lazy_sketch import _COMMON_WORDS, LazySketch, Merge
from cursorish.apply.lines import STRING_LITERAL, SourceFile, shared_ends
from cursorish.apply.structure import _DEFINITION_KINDS
from cursorish.apply.syntax import new_errors, parse

# Nodes whose body is a scope of its own: named definitions (not the declarations of a single
# variable, which tree-sitter also names) and anonymous functions.
_SCOPE_KINDS = (
    _DEFINITION_KINDS - {"lexical_declaration", "var_declaration", "const_declaration"}
) | {
    "arrow_function",
    "function_expression",
    "function",
    "closure_expression",
    "func_literal",
    "lambda",
}
# A sketch this long with no blank line has likely dropped them (see `blankless`).
_LONG = 10
_COMMENT = {"python": re.compile(r"#.*$")}
_SLASHES = re.compile(r"//.*$")
# A name, not a member (`x.name`); a spread (`...name`) is a use of the name itself.
_NAME = re.compile(r"(?<![\w$])(?:(?<=\.\.\.)|(?<!\.))[A-Za-z_$][\w$]*")
# A name that labels a value rather than uses one: a keyword argument or attribute (`dir=`),
# a key (`dir:`; not a `::` path, nor the colon that ends a line opening a Python block).
_LABELS = re.compile(r"[A-Za-z_$][\w$]*\s*(?:=(?![=>])|:(?![:=])(?!\s*$))")
# An assignment (`=`, `:=`, `+=`), not a comparison or an arrow.
_ASSIGN = re.compile(r"(?<![=!<>])(?:[-+*/%&|^]|<<|>>|\?\?|:)?=(?![=>])")
# What binds a name without an assignment: a loop, `as`, a closure, an arrow, a function or
# method header (`name(params) {`).
_BINDS = re.compile(
    r"\b(?:for|as|let|const|var|fn|def|func|function|lambda|catch|except|with|match|case)\b"
    r"|=>|\|[^|]+\||^\s*[\w$]+\s*\(.*\)\s*(?::[^=]*)?\{\s*$"
)


@dataclass(frozen=True)
class _Hunk:
    """Original lines [a, b) replaced by `new` (an insertion where a == b)."""

    a: int
    b: int
    new: tuple[str, ...]

    def places(self, before: list[str]) -> list[tuple[int, int]] | None:
        """The (first, last) original lines the new lines may take the place of: for an
        insertion before line p, (p, p), at each point a diff could as well give it (`}`, new
        lines, `}` reads as inserted before the first `}` or after it); for a replacement, the
        lines it replaces. None where a replacement's edge lines repeat its neighbours (which
        lines it replaces is not told) or where it writes no line."""
        new = self.new
        if not new:
            return None
        if self.a != self.b:
            if (self.a > 0 and before[self.a - 1] == new[0]) or (
                self.b < len(before) and before[self.b] == new[-1]
            ):
                return None
            return [(self.a, self.b - 1)]
        low = high = self.a
        while low > 0 and before[low - 1] == new[(low - 1 - self.a) % len(new)]:
            low -= 1
        while high < len(before) and before[high] == new[(high - self.a) % len(new)]:
            high += 1
        return [(p, p) for p in range(low, high + 1)]


def scoped_reading(
    source: SourceFile, readings: list[Merge], sketch: LazySketch, lang: Language
) -> int | None:
    """The one reading under which every local name its own new lines use (those of the lines
    no other reading writes there) is declared in a function around them, where each rival
    places some of them outside every function that declares a name they use; None where no
    reading or more than one does, where the winner tells no name, or where it removes a
    declaration whose name kept lines still use. Nor where the sketch shows no blank line and
    may have dropped them (`blankless`: it shows it did, it is long, or the new lines stand by
    a blank line), so that where its lines go among the file's blank lines is a guess."""
    if len(readings) < 2 or not lang.has_grammar:
        return None
    shown = [line for chunk in sketch.chunks for line in chunk.lines]
    if dropped_every_blank(shown, lang, source.lines):
        return None
    owns = _own_hunks(source, readings)
    if owns is None:
        return None
    scopes = _scopes("\n".join(source.lines), lang)
    if scopes is None:
        return None  # the original does not parse cleanly: its scopes are not told
    names = _Names(source.lines, scopes, lang, _uses(shown, lang)[1])
    sees = [
        names.sees(hunks, reading.removed) for hunks, reading in zip(owns, readings, strict=True)
    ]
    found = [index for index, seen in enumerate(sees) if seen is not False]
    if len(found) != 1 or sees[found[0]] is not True:
        return None
    if all(line.strip() for line in shown) and (
        len(shown) >= _LONG or _beside_blank(source.lines, owns[found[0]])
    ):
        return None
    winner = readings[found[0]]
    if names.strands(winner.removed, [line for hunk in owns[found[0]] for line in hunk.new]):
        return None
    original = "\n".join(source.lines)
    if new_errors(original, source.render(winner.pieces), lang.name) is not None:
        return None  # a reading that breaks the file's syntax is no safer a guess
    return found[0]


def _beside_blank(lines: list[str], hunks: list[_Hunk]) -> bool:
    """Whether a change replaces a blank line or stands next to one."""
    return any(
        not lines[j].strip()
        for hunk in hunks
        for j in range(max(hunk.a - 1, 0), min(hunk.b + 1, len(lines)))
    )


def _own_hunks(source: SourceFile, readings: list[Merge]) -> list[list[_Hunk]] | None:
    """Each reading's changes that not every reading makes; None where a reading has none."""
    every = [_hunks(source.lines, source.render(m.pieces).split("\n")) for m in readings]
    common = set.intersection(*(set(hunks) for hunks in every))
    owns = [[hunk for hunk in hunks if hunk not in common] for hunks in every]
    return None if any(not own for own in owns) else owns


def _hunks(before: list[str], after: list[str]) -> list[_Hunk]:
    """The changes from `before` to `after` (past their common head and tail)."""
    head, tail = shared_ends(before, after)
    old, new = before[head : len(before) - tail], after[head : len(after) - tail]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [
        _Hunk(head + i1, head + i2, tuple(new[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _scopes(text: str, lang: Language) -> list[tuple[int, int]] | None:
    """The (first, last) lines of every function-like node of the file; None where it does not
    parse cleanly."""
    tree = parse(text, lang.name)
    if tree is None or tree.root_node.has_error:
        return None
    found: list[tuple[int, int]] = []
    stack: list[Any] = [tree.root_node]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in _SCOPE_KINDS:
                found.append((child.start_point[0], child.end_point[0]))
            stack.append(child)
    return found


def _code(line: str, lang: Language) -> str:
    """The line without its strings and its comment."""
    line = STRING_LITERAL.sub('""', line)
    return _COMMENT.get(lang.name, _SLASHES).sub("", line)


def _code_names(line: str, lang: Language) -> set[str]:
    """The names a line uses as code (not in a string or comment, not after a `.`)."""
    return set(_NAME.findall(_code(line, lang)))


def _uses(lines: Sequence[str], lang: Language) -> tuple[set[str], set[str]]:
    """(the names lines use, the names they may bind): a use stands on the right of an
    assignment whose right side binds nothing, or on a line that neither assigns nor binds;
    every other name of a line that assigns or binds may be bound there. Comment lines and the
    lines of a block comment or docstring are prose: their words are neither."""
    used: set[str] = set()
    bound: set[str] = set()
    prose = False
    for line in lines:
        text = line.strip()
        fences = text.count("/*") + text.count("*/") + text.count('"""') + text.count("'''")
        if prose or fences or text.startswith(lang.comments):
            prose = prose != (fences % 2 == 1)
            continue
        code = _code(line, lang)
        assign = _ASSIGN.search(code)
        head, tail = (code[: assign.start()], code[assign.end() :]) if assign else (code, "")
        if _BINDS.search(tail) or (not assign and _BINDS.search(head)):
            bound |= set(_NAME.findall(code))
            continue
        bound |= set(_NAME.findall(head)) if assign else set()
        text = tail if assign else head
        used |= set(_NAME.findall(_LABELS.sub("", text)))
    return used - _COMMON_WORDS, bound


def _declares(line: str, name: str) -> bool:
    """Whether the line declares (or assigns) the name: `let name`, `name :=`, `name =`."""
    escaped = re.escape(name)
    return (
        re.search(
            rf"\b(?:let|const|var|mut)\s+{escaped}\b|(?<![\w.$]){escaped}\s*:?=(?!=)",
            line,
        )
        is not None
    )


class _Names:
    """Where each name of the file is used and the scopes its declarations open."""

    def __init__(
        self,
        lines: list[str],
        scopes: list[tuple[int, int]],
        lang: Language,
        bound: set[str],
    ) -> None:
        self.lines = lines
        self.bound = bound  # names some line of the sketch may bind
        self.scopes = scopes
        self.lang = lang
        self.uses: dict[str, list[int]] = {}
        for j, line in enumerate(lines):
            for name in _code_names(line, lang):
                self.uses.setdefault(name, []).append(j)

    def _scope(self, j: int) -> tuple[int, int] | None:
        """The innermost function-like node around line j; None at the top level."""
        around = [s for s in self.scopes if s[0] <= j <= s[1]]
        return max(around) if around else None

    def local(self, name: str) -> list[tuple[int, tuple[int, int]]] | None:
        """(declaring line, its scope) for each declaration of a name the file uses only within
        the scopes it declares it in; None where that is not told (no declaration seen, one at
        the top level, or a use outside them: a parameter or a global)."""
        uses = self.uses.get(name, [])
        found: list[tuple[int, tuple[int, int]]] = []
        for j in uses:
            if _declares(self.lines[j], name):
                scope = self._scope(j)
                if scope is None:
                    return None
                found.append((j, scope))
        if not found:
            return None
        if not all(any(s[0] <= j <= s[1] for _d, s in found) for j in uses):
            return None
        return found

    def sees(self, hunks: list[_Hunk], removed: set[int]) -> bool | None:
        """False where some local name the new lines only use (`_uses`), and no line of the
        sketch may bind (another chunk may declare it), is visible
        nowhere they may stand (no line the reading keeps declares it before them, in a
        function around them); True where some is visible wherever they may stand and none
        fails; None where no name tells."""
        told: bool | None = None
        for hunk in hunks:
            places = hunk.places(self.lines)
            if places is None:
                continue
            used, bound = _uses(hunk.new, self.lang)
            for name in used - bound - self.bound:
                declared = self.local(name)
                if declared is None:
                    continue
                kept = [(d, s) for d, s in declared if d not in removed]
                seen = [
                    any(self._visible(d, s, first, last) for d, s in kept) for first, last in places
                ]
                if not any(seen):
                    return False
                told = told or all(seen)
        return told

    def _visible(self, d: int, scope: tuple[int, int], first: int, last: int) -> bool:
        """Whether a name declared at line d (in `scope`) is visible to new lines standing at
        original lines first..last: within the scope, after the declaration, or in a function
        nested in the scope (a closure may use a name its enclosing function declares later)."""
        if not (scope[0] < first and last <= scope[1]):
            return False
        return d < first or self._scope(first) != scope

    def strands(self, removed: set[int], new: list[str]) -> bool:
        """Whether the reading removes a line that declares a name the new lines do not
        declare again, while a kept line in that declaration's scope still uses it."""
        for j in removed:
            for name in _code_names(self.lines[j], self.lang):
                if not _declares(self.lines[j], name) or any(_declares(x, name) for x in new):
                    continue
                low, high = self._scope(j) or (0, len(self.lines) - 1)
                if any(low <= k <= high and k not in removed for k in self.uses.get(name, [])):
                    return True
        return False
