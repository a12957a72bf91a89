"""Generated edits of the kinds the eval's real commits make, in Python and JavaScript: every
merge that answers is right.

Files have telling lines and common ones (`x = x + 1`), blank lines, duplicated bodies under
other names, tabs or spaces, CRLF or LF. Edits change, insert and delete lines, rename a
function, delete a whole function, and touch the file's first and last lines. Sketches keep
1-3 lines of context and elide the rest with markers in several wordings and comment syntaxes,
indented carefully or not. A refusal is always acceptable; a different file never is.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged
from cursorish.apply_cli import normalise


@dataclass(frozen=True)
class Style:
    """How one language writes what the generator needs."""

    path: str
    comment: tuple[str, str]  # opener, closer of a marker comment

    def header(self, name: str) -> str:
        if self.path.endswith(".py"):
            return f"def {name}(x):"
        return f"function {name}(x) {{"

    def line(self, text: str) -> str:
        return text if self.path.endswith(".py") else text + ";"

    def closer(self) -> str | None:
        return None if self.path.endswith(".py") else "}"


PY = Style("gen.py", ("#", ""))
JS = Style("gen.js", ("//", ""))
JS_BLOCK = Style("gen.js", ("/*", " */"))
WORDINGS = [
    "... existing code ...",
    "... rest of the function ...",
    "...",
    "rest of file unchanged",
    "... keep existing code ...",
    "… unchanged …",
]
NAMES = ["load", "save", "parse", "render", "check", "update", "fetch", "close"]
COMMON = ["x = x + 1", "x = x * 2", "return x"]


@st.composite
def sources(draw: st.DrawFn) -> tuple[Style, str, list[str]]:
    """A file: a head line, functions (some bodies copied under another name), a tail line."""
    style = draw(st.sampled_from([PY, JS, JS_BLOCK]))
    unit = draw(st.sampled_from(["    ", "  ", "\t"]))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=5, unique=True))
    gap = draw(st.integers(min_value=1, max_value=2))
    lines = [style.line("import os" if style is PY else "const os = require('os')")]
    bodies: list[list[str]] = []
    for f, name in enumerate(names):
        copy: bool = draw(st.booleans()) and draw(st.booleans())
        if bodies and copy:
            body = list(draw(st.sampled_from(bodies)))  # a duplicated block
        else:
            body = []
            for s in range(draw(st.integers(min_value=1, max_value=4))):
                if draw(st.booleans()):
                    body.append(style.line(draw(st.sampled_from(COMMON[:2]))))
                else:
                    body.append(style.line(f"x = {name}_step_{s}(x)"))
            body.append(style.line("return x"))
        bodies.append(body)
        lines.extend([""] * gap)
        lines.append(style.header(name))
        lines.extend(unit + b for b in body)
        closer = style.closer()
        if closer:
            lines.append(closer)
        del f
    lines.extend([""] * gap)
    lines.append(style.line(f"{names[0]}(1)"))
    return style, unit, lines


def _functions(lines: list[str], style: Style) -> list[tuple[int, int]]:
    """(header, one past the last line) of each function."""
    out: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        if line.startswith(("def ", "function ")):
            end = i + 1
            while end < len(lines) and (lines[end][:1] in (" ", "\t") or lines[end] == "}"):
                end += 1
                if lines[end - 1] == "}":
                    break
            out.append((i, end))
    return out


KINDS = ["change", "insert", "delete", "drop", "first", "last"]


@st.composite
def edits(
    draw: st.DrawFn, kinds: tuple[str, ...] = tuple(KINDS)
) -> tuple[Style, list[str], list[str], list[int | None]]:
    """The file, the edited file, and where each edited line comes from (None: new)."""
    style, unit, old = draw(sources())
    new = list(old)
    origin: list[int | None] = list(range(len(old)))
    for n in range(draw(st.integers(min_value=1, max_value=2))):
        kind = draw(st.sampled_from(kinds))
        body = [i for i, line in enumerate(new) if line[:1] in (" ", "\t") and line.strip()]
        tag = draw(st.integers(min_value=0, max_value=99))
        if kind == "change" and body:
            at = draw(st.sampled_from(body))
            new[at] = unit + style.line(f"x = changed_{tag}(x)")
            origin[at] = None
        elif kind == "insert" and body:
            at = draw(st.sampled_from(body))
            added = [unit + style.line(f"y{n} = added_{tag}(x)")]
            if draw(st.booleans()):
                added.append(unit + style.line(f"x = x + y{n}"))
            new[at:at] = added
            origin[at:at] = [None] * len(added)
        elif kind == "delete" and len(body) > 1:
            at = draw(st.sampled_from(body))
            del new[at], origin[at]
        elif kind == "rename":
            heads = [i for i, line in enumerate(new) if line.startswith(("def ", "function "))]
            at = draw(st.sampled_from(heads))
            new[at] = new[at].replace("(x)", f"_v{tag}(x)")
            origin[at] = None
        elif kind == "drop":
            spans = _functions(new, style)
            if len(spans) > 2:
                a, b = draw(st.sampled_from(spans[1:]))
                while a > 0 and not new[a - 1].strip():
                    a -= 1
                del new[a:b], origin[a:b]
        elif kind == "first":
            new[0] = style.line("import sys" if style is PY else "const sys = require('sys')")
            origin[0] = None
        elif kind == "last":
            new[-1] = style.line(f"main_{tag}()")
            origin[-1] = None
    return style, old, new, origin


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def sketch_of(
    style: Style,
    old: list[str],
    new: list[str],
    origin: list[int | None],
    context: int,
    wording: str,
    careful: bool,
) -> list[str]:
    """Changed lines of `new` with `context` non-blank lines around them (and around each
    place where lines were deleted), the rest behind markers.

    A careful planner indents a marker like the first line it hides and adds a shallower one
    where the hidden lines leave that block; a careless one writes every marker at column 0."""
    keep: set[int] = set()
    points: list[tuple[int, int]] = []  # (first line after, last line before) a change
    for j, o in enumerate(origin):
        if o is None:
            keep.add(j)
            points.append((j, j))
        elif (j == 0 and o != 0) or (
            j > 0 and origin[j - 1] is not None and origin[j - 1] != o - 1
        ):
            points.append((j, j - 1))
    if origin and origin[-1] is not None and origin[-1] != len(old) - 1:
        points.append((len(new), len(new) - 1))
    counts = Counter(line.strip() for line in new)
    before = Counter(line.strip() for line in old)
    for a, b in points:
        # Where lines were deleted, only context the file holds once says so (`return x`
        # next to the gap reads as the copy that is there, as it would to anyone).
        telling = a > b
        for step, start in ((-1, a - 1), (1, b + 1)):
            seen, j = 0, start
            found = not telling
            while 0 <= j < len(new) and (seen < context or not found):
                keep.add(j)
                seen += 1 if new[j].strip() else 0
                found = found or counts[new[j].strip()] == before[new[j].strip()] == 1
                j += step
    opener, closer = style.comment
    out: list[str] = []
    hidden: list[str] = []

    def elide() -> None:
        shown = [line for line in hidden if line.strip()]
        if hidden:
            first = _indent(shown[0]) if shown and careful else ""
            out.append(f"{first}{opener} {wording}{closer}")
            least = min((_indent(line) for line in shown), key=len, default=first)
            if careful and len(least) < len(first):
                out.append(f"{least}{opener} {wording}{closer}")
        hidden.clear()

    for j, line in enumerate(new):
        if j in keep:
            elide()
            out.append(line)
        else:
            hidden.append(line)
    elide()
    return out


def _js(bodies: dict[str, list[str]]) -> list[str]:
    lines = ["const os = require('os');"]
    for name, body in bodies.items():
        lines += ["", f"function {name}(x) {{", *[f"    x = {s}(x);" for s in body]]
        lines += ["    return x;", "}"]
    return [*lines, "", "load(1);"]


def _py(names: list[str]) -> list[str]:
    lines = ["import os"]
    for name in names:
        lines += ["", f"def {name}(x):", f"    x = {name}_step_0(x)", "    return x"]
    return [*lines, "", "load(1)"]


def _case(
    style: Style, old: list[str], origin: list[int | None], changed: dict[int, str]
) -> tuple[Style, list[str], list[str], list[int | None]]:
    new = [old[o] if o is not None else "" for o in origin]
    for j, text in changed.items():
        new[j] = text
    return style, old, new, origin


# Once merged wrong: save dropped after a body line of load that occurs once; the chunk was
# placed at save's end and `x = x + 1;` written there as a new line.
_DROP_OLD = _js({"load": [], "save": ["save_step_0", "save_step_1", "save_step_2"], "parse": []})
_DROP_OLD[4:4] = ["    x = x + 1;"]
_DROP = _case(JS, _DROP_OLD, [j for j in range(len(_DROP_OLD)) if not 7 <= j < 15], {})
# Once merged wrong: render's last statement deleted and check dropped; the chunk's first
# line, held once by the file, was written as new code in check.
_TAIL_OLD = _js({"render": ["render_step_0", "render_step_1"], "check": ["save_step_0"]})
_TAIL = _case(JS, _TAIL_OLD, [j for j in range(len(_TAIL_OLD)) if j != 5 and not 7 <= j < 12], {})
# Once merged wrong: `import os` and `def load` renamed at the file's head; the body line did
# not anchor (a renamed definition sharing one line), so the chunk floated in as new code.
_HEAD_OLD = ["import os", "", "def load(x):", "    x = load_step_0(x)", "    return x"]
_HEAD_OLD += ["", "def save(x):", "    x = load_step_0(x)", "    return x", "", "load(1)"]
_HEAD = _case(
    PY,
    _HEAD_OLD,
    [None, 1, None, *range(3, 11)],
    {0: "import sys", 2: "def load_v0(x):"},
)

# Once merged wrong: render dropped and check's body changed; the chunk's `function check`
# line was written as new code after parse, so check was defined twice.
_TWICE_OLD = _js(
    {
        "load": ["load_step_0"],
        "save": ["save_step_0"],
        "parse": [f"parse_step_{s}" for s in range(4)],
        "render": ["render_step_0", "render_step_1"],
        "check": ["check_step_0"],
    }
)
_TWICE = _case(
    JS, _TWICE_OLD, [*range(19), 25, 26, None, *range(28, 32)], {21: "    x = changed_0(x);"}
)
# Once merged wrong: load's first `x = x + 1` changed and the line after it deleted; the chunk
# ended on the second, common `x = x + 1` and read the change as an insertion.
_REPEATED_OLD = ["import os", "", "def load(x):", "    x = x + 1", "    x = load_step_1(x)"]
_REPEATED_OLD += ["    x = x + 1", "    return x", "", "def save(x):", "    x = save_step_0(x)"]
_REPEATED_OLD += ["    return x", "", "def parse(x):", "    x = parse_step_0(x)", "    return x"]
_REPEATED_OLD += ["", "load(1)"]
_REPEATED = _case(PY, _REPEATED_OLD, [0, 1, 2, None, *range(5, 17)], {3: "    x = changed_0(x)"})
# A line inserted after the second of two `x = x + 1`: the first copy must not be read as the
# chunk's while the second is deleted.
_SECOND_OLD = ["import os", "", "def load(x):", "    x = load_step_0(x)", "    x = x + 1"]
_SECOND_OLD += ["    x = x + 1", "    return x", "", "def save(x):", "    x = save_step_0(x)"]
_SECOND_OLD += ["    return x", "", "load(1)"]
_SECOND = _case(PY, _SECOND_OLD, [*range(6), None, *range(6, 13)], {6: "    y0 = added_0(x)"})
# Once merged wrong: save dropped (which the deletion guard refuses); the chunk went into
# save instead, writing `x = load_step_2(x)` there as new code next to load's copy.
_MOVED_OLD = ["import os", "", "def load(x):", "    x = load_step_0(x)", "    x = x + 1"]
_MOVED_OLD += ["    x = load_step_2(x)", "    return x", "", "def save(x):", "    x = x + 1"]
_MOVED_OLD += ["    return x", "", "def parse(x):", "    x = parse_step_0(x)", "    return x"]
_MOVED_OLD += ["", "load(1)"]
_MOVED = _case(PY, _MOVED_OLD, [*range(7), *range(11, 17)], {})


# Once merged wrong (explore seed 1): check dropped, render's middle line edited; the chunk
# went into check, writing render's `x = render_step_2(x)` there as new (its neighbour before
# it new too) while render's copy stayed under the marker.
_NEIGHBOUR_NEW_OLD = ["import os", "", "def load(x):", "    x = load_step_0(x)", "    return x"]
_NEIGHBOUR_NEW_OLD += ["", "def render(x):", "    x = x + 1", "    x = render_step_1(x)"]
_NEIGHBOUR_NEW_OLD += ["    x = render_step_2(x)", "    return x", "", "def check(x):"]
_NEIGHBOUR_NEW_OLD += ["    x = x + 1", "    return x", "", "load(1)"]
_NEIGHBOUR_NEW = _case(
    PY, _NEIGHBOUR_NEW_OLD, [*range(8), None, 9, 10, 15, 16], {8: "    x = changed_0(x)"}
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits(),
    st.integers(min_value=1, max_value=3),
    st.sampled_from(WORDINGS),
    st.booleans(),
    st.booleans(),
)
@example(_DROP, 1, WORDINGS[0], False, False)
@example(_TAIL, 1, WORDINGS[0], False, False)
@example(_HEAD, 1, WORDINGS[0], False, False)
@example(_TWICE, 2, WORDINGS[0], False, False)
@example(_REPEATED, 1, WORDINGS[0], False, False)
@example(_SECOND, 1, WORDINGS[0], False, False)
@example(_MOVED, 3, WORDINGS[0], False, False)
@example(_NEIGHBOUR_NEW, 1, WORDINGS[0], False, False)
def test_real_edit_kinds_are_right_or_refused(
    data: tuple[Style, list[str], list[str], list[int | None]],
    context: int,
    wording: str,
    careful: bool,
    crlf: bool,
) -> None:
    style, old, new, origin = data
    if old == new or (style is PY and wording == "..."):
        return  # nothing to merge; a bare `...` is code in Python
    eol = "\r\n" if crlf else "\n"
    original = eol.join(old) + eol
    sketch = "\n".join(sketch_of(style, old, new, origin, context, wording, careful)) + "\n"
    outcome = merge(original, sketch, path=style.path)
    if isinstance(outcome, Merged):
        assert normalise(outcome.text) == normalise("\n".join(new))
        if crlf:
            assert "\n" not in outcome.text.replace("\r\n", "")


def test_renamed_function_body_is_not_duplicated() -> None:
    """`def check` renamed, with `return x` (repeated) and one body line as context: the body
    line does not anchor under the new name, `return x` anchors at another function, and the
    chunk replaced that function (found by the generator with renames; kept out of it). The
    chunk's first line shown next to its body's lines now reaches the renamed function."""
    names = ["load", "save", "parse", "render", "check"]
    old = _py(names)
    new = [line.replace("def check(", "def check_v0(") for line in old]
    origin: list[int | None] = [
        None if a != b else j for j, (a, b) in enumerate(zip(old, new, strict=True))
    ]
    sketch = "\n".join(sketch_of(PY, old, new, origin, 1, WORDINGS[0], False)) + "\n"
    outcome = merge("\n".join(old) + "\n", sketch, path="gen.py")
    assert not isinstance(outcome, Merged) or normalise(outcome.text) == normalise("\n".join(new))
