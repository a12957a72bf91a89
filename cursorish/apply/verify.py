"""An independent check of a merged file against its original and the sketch it came from.

Written apart from the merge engines (it shares only what a marker is and the tree-sitter
check), so that a flaw in how a merge places a sketch is not repeated in how it is judged. It
runs after every deterministic merge and on every model answer. A result stands only when
every change it makes is explained by the sketch:

- the sketch's code lines (everything but its "existing code" markers) are in the result, in
  order, each chunk between two markers as one unbroken run of non-blank lines, shifted as a
  whole by the same indentation (a shift other than none only where one of its lines is an
  original line there: the merge matched it, so the file says how deep the chunk sits);
- the lines between those runs are original lines, unchanged and in order (what the markers
  stand for), and new lines come only from the sketch;
- an original line that is gone was deleted between two sketch lines with no marker between
  them, or replaced by sketch lines in its place; at the file's edges only where the sketch
  does not say it stops there (no leading or trailing marker) and does not elide anything at all
  (a whole file), or where the cut is no more than a few lines;
- a telling line the sketch repeats from the original is not left twice in the result;
- a blank line the sketch shows between a marker and its chunk lands on a blank original line;
- indentation added in a file indented with tabs uses tabs (and spaces in a file of spaces);
- the result parses with no more syntax errors than the original.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass

from cursorish.apply.languages import Language, detect_language
from cursorish.apply.lines import indent_width as _width
from cursorish.apply.lines import key as _key
from cursorish.apply.markers import is_marker
from cursorish.apply.sketch import detect_format, strip_fences
from cursorish.apply.syntax import new_errors
from cursorish.apply.textio import sketch_lines

# Deleting this many non-blank lines at an edge of the file that the sketch's outermost line
# does not reach, with no marker there, reads as an edit from the edge; more reads as a planner
# that left the marker out.
EDGE_CUT = 3
_TELLING = 8  # a line this long is unlikely to be written twice on purpose
_BARE_GAP = 3  # original lines gone beside a chunk end of brackets only
_COPIED = 3  # telling lines kept beside their new copy elsewhere: a move, not an edit
_SHORT_DECLARATION = re.compile(r"^\s*(\w+(?:\s*,\s*\w+)*)\s*:=")
# A declaration a scope may not repeat: `x :=` (Go), `const x`/`let x` (JavaScript/TypeScript).
_LET_DECLARATION = re.compile(
    r"^\s*(?:export\s+)?(?:declare\s+)?(?:const|let|type|enum|class)\s+(\w+)\b"
)
# Python: a module-level `name = ...` or `name: T = ...` (a function may well reassign a local
# beside its first assignment; a module rarely rebinds a global a few lines on).
_PY_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)\s*(?::\s*[^=]+?)?\s=\s")
# A statement after which nothing more in its block runs, and lines that open another
# branch at the same depth (a `case` of the same `switch`) or close the block.
_TERMINAL = re.compile(r"^\s*(return|raise|throw|continue|break)\b")
_BRANCH = re.compile(r"^\s*([}\])]|(case|default|else|elif|except|finally|catch)\b|#|//|/\*|\*|@)")
_OPENERS = ("(", "[", "{", ",", "\\", "+", "-", "*", "/", "&&", "||", " and", " or", "=", ":")
_RUST_LET = re.compile(r"^\s*let\s+(?:mut\s+)?(\w+)\b")
_LET_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
_BESIDE = 6  # non-blank lines between a chunk and a copy of one of its lines that is 'beside' it
_ASSIGNMENTS = 24  # readings of where each chunk sits, tried before giving up
_DIFF_LIMIT = 400_000  # cells of the quadratic fallback diff; larger gaps are not aligned


def verify_merge(original: str, sketch: str, result: str, *, path: str = "") -> str | None:
    """None when `result` is explained by `sketch` applied to `original`, else the reason."""
    try:
        return _verify(original, sketch, result, path)
    except RecursionError:
        return "the merge could not be verified (the files are too large to compare)"


def _verify(original: str, sketch: str, result: str, path: str) -> str | None:
    lang = detect_language(path)
    lines = strip_fences(sketch_lines(sketch))
    fmt = detect_format(lines, lang)
    if fmt == "empty":
        return "the sketch is empty"
    before = _lines(original)
    after = _lines(result)
    problem: str | None = None
    changed: list[int] | None = None
    if fmt in ("lazy", "plain"):
        shape = _shape(lines, lang, fmt)
        if shape is not None:
            check = _Check(before, after, shape, lang.name)
            problem = check.run()
            changed = check.changed_rows()
    if problem is None and lang.name in ("go", "python"):
        problem = _orphaned_import(before, after, lang.name)
    if problem is None and lang.has_grammar:
        problem = new_errors(original, result, lang.name, changed)
    return problem


_GO_IMPORT = re.compile(r'^\s*(?:import\s+)?(?:(\w+|\.)\s+)?"([^"]+)"\s*$')
_PY_IMPORT = re.compile(r"^\s*(?:from\s+[\w.]+\s+)?import\s+(.+)$")


def _imported(lines: list[str], lang: str) -> dict[str, str]:
    """Names a file's imports bind, with the import line that binds each."""
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
    for line in lines:
        if "import" not in line:
            continue  # the pattern needs the word; the test is much cheaper than it
        match = _PY_IMPORT.match(line)
        if not match or "(" in line:
            continue
        for part in match.group(1).split(","):
            words = part.split()
            if words:
                name = words[-1] if " as " in part else words[0].split(".")[0]
                names[name] = line.strip()
    return names


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
    comment = "//" if lang == "go" else "#"
    code: list[str] = []
    in_text = ""  # the quote of a Python docstring (or `/*` comment) the line sits in
    for line in after:
        opener = "/*" if lang == "go" else ('"""' if '"""' in line else "'''")
        closer = "*/" if lang == "go" else opener
        if in_text:
            if in_text in line:
                in_text = ""
            continue
        if opener in line and line.count(opener) + line.count(closer) * (opener != closer) == 1:
            in_text = closer
            continue
        if not line.lstrip().startswith(comment) and line.strip() not in gone.values():
            code.append(line)
    used = re.compile(
        r"\b(" + "|".join(map(re.escape, gone)) + r")\."
        if lang == "go"
        else r"\b(" + "|".join(map(re.escape, gone)) + r")\b"
    )
    for line in code:
        text = re.sub(
            r'"(?:[^"\\]|\\.)*"' + (r"|'(?:[^'\\]|\\.)*'" if lang == "python" else ""), "", line
        )
        match = used.search(text)
        if match:
            return (
                f"the merge removes {gone[match.group(1)]!r} while the file still uses "
                f"{match.group(1)!r} ({line.strip()[:50]!r}): the code using it was meant to go too"
            )
    return None


@dataclass
class _Chunk:
    lines: list[str]  # the chunk's non-blank sketch lines
    first: int  # sketch line number (0-based) of lines[0]
    # A blank line between the chunk and the marker before (after) it: the original line
    # next to the chunk's place on that side is blank.
    blank_before: bool = False
    blank_after: bool = False


@dataclass
class _Shape:
    chunks: list[_Chunk]
    leading: bool  # a marker (or an implied one) before the first chunk
    trailing: bool
    whole: bool  # a sketch without markers, read as the whole new file


def _shape(lines: list[str], lang: Language, fmt: str) -> _Shape | None:
    if fmt == "plain":
        return _plain_shape(lines)
    chunks: list[_Chunk] = []
    current: list[str] = []
    first = 0
    leading = trailing = False
    after_marker = False  # the last non-blank sketch line was a marker
    blank_before = False
    blank = False  # a blank line since the last non-blank sketch line
    for number, line in enumerate(lines):
        if is_marker(line, lang):
            if current:
                chunks.append(_Chunk(current, first, blank_before, blank_after=blank))
                current = []
            elif not chunks:
                leading = True
            trailing = True
            after_marker = True
            blank = False
            continue
        if line.strip():
            if not current:
                first = number
                blank_before = after_marker and blank
            current.append(line)
            trailing = False
            after_marker = False
            blank = False
        else:
            blank = True
    if current:
        chunks.append(_Chunk(current, first, blank_before))
    if not chunks:
        return None
    return _Shape(chunks, leading, trailing, whole=False)


def _plain_shape(lines: list[str]) -> _Shape:
    """A sketch without markers: the whole file, or top-level pieces (a definition after a
    blank line at the snippet's least depth) each standing for its own original."""
    nonblank = [line for line in lines if line.strip()]
    depth = min(_width(line) for line in nonblank)
    chunks: list[_Chunk] = []
    current: list[str] = []
    first = 0
    previous_blank = False
    for number, line in enumerate(lines):
        if not line.strip():
            previous_blank = True
            continue
        starts = previous_blank and _width(line) == depth and not _is_closer(line)
        if current and starts:
            chunks.append(_Chunk(current, first))
            current = []
        if not current:
            first = number
        current.append(line)
        previous_blank = False
    chunks.append(_Chunk(current, first))
    return _Shape(chunks, leading=True, trailing=True, whole=True)


def _is_closer(line: str) -> bool:
    return line.strip().startswith(("}", ")", "]", "end", "else", "elif", "except", "finally"))


def _lines(text: str) -> list[str]:
    """The text's lines without their endings (a final newline ends the last line)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" not in text:
        return lines
    return [x[:-1] if x.endswith("\r") else x for x in lines]


def _indent_unit(lines: list[str]) -> tuple[bool, int]:
    """(indented with tabs, the space unit) of a file, from its indented lines."""
    tabs = spaced = 0
    widths: set[int] = set()
    for line in lines:  # one pass: this runs on every line of the original and the result
        first = line[:1]
        if first == "\t":
            tabs += 1
        elif first == " " and not line.isspace():
            spaced += 1
            widths.add(len(line) - len(line.lstrip(" ")))
    smallest = min(widths, default=0)
    unit = smallest if smallest in (2, 3, 4, 8) else 4
    spaces = spaced if tabs else 0
    return tabs > spaces, unit


class _Check:
    """One verification: the original's lines, the result's, and the sketch's chunks."""

    def __init__(self, before: list[str], after: list[str], shape: _Shape, lang: str = "") -> None:
        self.declaration = (
            _LET_DECLARATION
            if lang in _LET_LANGUAGES
            else _PY_ASSIGNMENT
            if lang == "python"
            else _RUST_LET
            if lang == "rust"
            else _SHORT_DECLARATION
        )
        # Rust shadows a name on purpose by deriving it from itself (`let x = x.trim();`).
        self.shadows = lang == "rust"
        self.before = before
        self.after = after
        self.shape = shape
        self.old_of: list[int] = []  # result row -> original line (or -1: new), per reading
        self.before_keys = [" ".join(x.split()) for x in before]
        self.after_keys = [" ".join(x.split()) for x in after]
        self.rows = [r for r, k in enumerate(self.after_keys) if k]
        self.row_keys = [self.after_keys[r] for r in self.rows]
        tabs, unit = _indent_unit(before)
        self.tabs = tabs
        self.unit = unit
        self.sketch_unit = _indent_unit([x for c in shape.chunks for x in c.lines])[1]

    def run(self) -> str | None:
        shape = self.shape
        if shape.whole and [_key(x) for c in shape.chunks for x in c.lines] == self.row_keys:
            self.old_of = _diff(self.before, self.after)
            return self._indentation_style(set(range(len(self.after))))
        first_failure: str | None = None
        for places in self._placements():
            problem = self._judge(places)
            if problem is None:
                return None
            first_failure = first_failure or problem
        if first_failure is None:
            return self._missing()
        return first_failure

    def changed_rows(self) -> list[int] | None:
        """Result rows the merge wrote, and both rows around each deletion (None: unknown)."""
        if len(self.old_of) != len(self.after):
            return None
        rows: list[int] = []
        previous = -1
        for r, j in enumerate(self.old_of):
            if j < 0:
                rows.append(r)
                continue
            if j != previous + 1:
                rows.extend((r - 1, r) if r > 0 else (r,))
            previous = j
        if previous != len(self.before) - 1 and self.after:
            rows.append(len(self.after) - 1)
        return rows

    # -- where each chunk sits in the result -------------------------------------------------

    def _occurrences(self, chunk: _Chunk, start: int) -> list[int]:
        """Indexes into the result's non-blank rows where the chunk's lines run unbroken."""
        keys = [_key(x) for x in chunk.lines]
        found: list[int] = []
        size = len(keys)
        for at in range(start, len(self.row_keys) - size + 1):
            if self.row_keys[at] == keys[0] and self.row_keys[at : at + size] == keys:
                found.append(at)
        return found

    def _placements(self) -> list[list[int]]:
        """Readings of where the chunks sit (index of each chunk's first non-blank row), in
        order, none skipping a new result line that only an earlier chunk could explain."""
        # Rows whose text the original does not have at all: only a chunk can explain them.
        known = set(self.before_keys)
        new_rows = [k for k, key in enumerate(self.row_keys) if key not in known]
        out: list[list[int]] = []
        chunks = self.shape.chunks

        def walk(i: int, start: int, taken: list[int]) -> None:
            if len(out) >= _ASSIGNMENTS:
                return
            if i == len(chunks):
                out.append(list(taken))
                return
            # A new row skipped before this chunk's place could be explained by no chunk.
            later = bisect_left(new_rows, start)
            first_new = new_rows[later] if later < len(new_rows) else None
            for at in self._occurrences(chunks[i], start):
                if first_new is not None and at > first_new:
                    break
                taken.append(at)
                walk(i + 1, at + len(chunks[i].lines), taken)
                taken.pop()

        walk(0, 0, [])
        return out

    def _missing(self) -> str:
        """Which sketch lines the result lacks (no reading of the chunks fits)."""
        start = 0
        for chunk in self.shape.chunks:
            places = self._occurrences(chunk, start)
            if not places:
                return (
                    f"the sketch lines from line {chunk.first + 1} on are not in the merged file "
                    "where the sketch puts them (each run between markers must appear unbroken, "
                    "in order)"
                )
            start = places[0] + len(chunk.lines)
        return "a line of the merged file comes neither from the sketch nor from the original"

    # -- judging one reading -----------------------------------------------------------------

    def _judge(self, places: list[int]) -> str | None:
        shape = self.shape
        chunk_of: dict[int, int] = {}  # result row -> chunk index
        spans: list[tuple[int, int]] = []  # each chunk's first and last result row
        for i, (chunk, at) in enumerate(zip(shape.chunks, places, strict=True)):
            rows = self.rows[at : at + len(chunk.lines)]
            for r in range(rows[0], rows[-1] + 1):
                chunk_of[r] = i
            spans.append((rows[0], rows[-1]))
        self.old_of = self._structured(spans)
        for chunk, at in zip(shape.chunks, places, strict=True):
            problem = self._indentation(chunk, self.rows[at : at + len(chunk.lines)])
            if problem:
                return problem
        for r, line in enumerate(self.after):
            if self.old_of[r] < 0 and line.strip() and r not in chunk_of:
                return (
                    f"merged line {r + 1} ({line.strip()[:60]!r}) comes neither from the sketch "
                    "nor from the original"
                )
        problem = self._indentation_style(set(chunk_of))
        if problem:
            return problem
        problem = self._blank_edges(spans)
        if problem:
            return problem
        problem = self._deletions(chunk_of, spans)
        if problem:
            return problem
        problem = self._empty_markers(spans)
        if problem:
            return problem
        problem = self._duplicates(chunk_of, spans)
        if problem:
            return problem
        problem = self._copied(chunk_of)
        if problem:
            return problem
        problem = self._repeated_block(spans)
        if problem:
            return problem
        problem = self._unreachable(chunk_of)
        if problem:
            return problem
        return self._redeclared(chunk_of, spans)

    def _unreachable(self, chunk_of: dict[int, int]) -> str | None:
        """A `return` (`raise`, `throw`, ...) the sketch writes anew, followed at its own depth
        by an original line the merge keeps: that line would never run. The sketch wrote the
        block's new end and left out the old lines after it, meaning them gone (or the chunk
        sits in the wrong place); which, the merge cannot tell."""
        for r in sorted(chunk_of):
            if self.old_of[r] >= 0 or not _TERMINAL.match(self.after[r]):
                continue
            if self.after[r].rstrip().endswith(_OPENERS):
                continue  # the statement goes on over the next lines
            nxt = next((x for x in range(r + 1, len(self.after)) if self.after[x].strip()), None)
            if nxt is None or self.old_of[nxt] < 0:
                continue
            line = self.after[nxt]
            if _width(line) != _width(self.after[r]) or _BRANCH.match(line):
                continue
            return (
                f"merged line {r + 1} ({self.after[r].strip()[:40]!r}) ends its block, yet "
                f"original line {self.old_of[nxt] + 1} ({line.strip()[:40]!r}) stays after it "
                "at the same depth and would never run: unclear whether the sketch deletes the "
                "old lines after its new code or places it wrong"
            )
        return None

    def _empty_markers(self, spans: list[tuple[int, int]]) -> str | None:
        """A marker stands for original lines that stay: where the merge keeps none for it
        (the next chunk, or the file's end, follows at once) while original lines there are
        gone, the lines the marker stood for were deleted."""
        chunks = self.shape.chunks
        if self.shape.whole:
            return None  # a snippet's markers are implied, not written: nothing to hold them to
        for i, (first, last) in enumerate(spans):
            if i == len(spans) - 1 and not self.shape.trailing:
                continue
            end = spans[i + 1][0] if i + 1 < len(spans) else len(self.after)
            if any(self.old_of[r] >= 0 and self.after[r].strip() for r in range(last + 1, end)):
                continue
            lo = next((self.old_of[r] for r in range(last, -1, -1) if self.old_of[r] >= 0), -1)
            hi = next(
                (self.old_of[r] for r in range(end, len(self.after)) if self.old_of[r] >= 0),
                len(self.before),
            )
            gone = [j for j in range(lo + 1, hi) if self.before[j].strip()]
            # New lines ending the chunk may be what replaced as many of those lines.
            written = 0
            for r in range(last, first - 1, -1):
                if self.old_of[r] >= 0:
                    break
                written += 1 if self.after[r].strip() else 0
            if len(gone) <= written:
                continue
            if gone and (i + 1 == len(spans) or not self._inside_chunk(gone, spans[i + 1])):
                return (
                    f"the marker after sketch line {chunks[i].first + len(chunks[i].lines)} "
                    f"keeps no original line, yet original line(s) {gone[0] + 1}-{gone[-1] + 1} "
                    "are gone there: the lines it stands for were deleted"
                )
        return None

    def _inside_chunk(self, gone: list[int], span: tuple[int, int]) -> bool:
        """Whether the next chunk itself replaced those lines (they sat before its first
        original line, with new lines of it written there)."""
        first, last = span
        return any(self.old_of[r] < 0 for r in range(first, last + 1))

    def _blank_edges(self, spans: list[tuple[int, int]]) -> str | None:
        """A blank line the sketch shows between a marker and a chunk that edits in context
        (some of its lines are original lines) stands for a blank original line there: the
        original line kept next to the chunk on that side is blank (else the chunk sits off
        by the lines between, kept that should have gone)."""
        for chunk, (first, last) in zip(self.shape.chunks, spans, strict=True):
            known = set(self.before_keys)
            if all(self.old_of[r] < 0 for r in range(first, last + 1)) and not any(
                _key(line) in known for line in chunk.lines
            ):
                continue  # all new code: its blank lines space it out, they are no context
            if chunk.blank_before:
                r = first - 1
                while r >= 0 and self.old_of[r] < 0:
                    r -= 1
                if r >= 0 and self.before[self.old_of[r]].strip():
                    return (
                        f"sketch line {chunk.first + 1} follows a blank line after a marker, but "
                        f"original line {self.old_of[r] + 1} before it in the merge is not blank"
                    )
            if chunk.blank_after:
                r = last + 1
                while r < len(self.after) and self.old_of[r] < 0:
                    r += 1
                if r < len(self.after) and self.before[self.old_of[r]].strip():
                    return (
                        f"the sketch lines from line {chunk.first + 1} end with a blank line "
                        "before a marker, but original line "
                        f"{self.old_of[r] + 1} after them in the merge is not blank"
                    )
        return None

    def _structured(self, spans: list[tuple[int, int]]) -> list[int]:
        """Which original line each result row is, given where the chunks sit: the rows
        between chunks are aligned first (they must be original lines), then each chunk
        against the original lines between its neighbours (its context lines)."""
        a = [x.rstrip() for x in self.before]
        real = [x.rstrip() for x in self.after]
        b = real.copy()
        for first, last in spans:
            for r in range(first, last + 1):
                b[r] = f"\x00{r}"
        old = [-1] * len(b)
        _align(a, b, 0, len(a), 0, len(b), old, 0)
        for first, last in spans:
            lo = next((old[r] for r in range(first - 1, -1, -1) if old[r] >= 0), -1) + 1
            hi = next((old[r] for r in range(last + 1, len(b)) if old[r] >= 0), len(a))
            _align(a, real, lo, max(lo, hi), first, last + 1, old, 0)
        return old

    def _indentation(self, chunk: _Chunk, rows: list[int]) -> str | None:
        """The chunk is shifted as a whole, and only as deep as a matched original line says.

        A line matched to the original keeps the original's own indentation; a planner that
        wrote it a column off is not a different shift of the chunk."""
        shifts = [
            (
                self._w(self.after[r], self.unit) - self._w(line, self.sketch_unit),
                self.old_of[r] >= 0,
            )
            for line, r in zip(chunk.lines, rows, strict=True)
        ]
        main = Counter(shift for shift, _anchored in shifts).most_common(1)[0][0]
        for shift, anchored in shifts:
            if shift != main and not (anchored and abs(shift - main) <= 1):
                return (
                    f"sketch lines {chunk.first + 1}-{chunk.first + len(chunk.lines)} were "
                    "re-indented unevenly in the merged file (their relative indentation changed)"
                )
        anchored_shifts = {shift for shift, anchored in shifts if anchored}
        if main and anchored_shifts and not _close(main, anchored_shifts):
            return (
                f"sketch lines {chunk.first + 1}-{chunk.first + len(chunk.lines)} were shifted by "
                f"{main} columns, which no matched original line justifies"
            )
        return None

    def _w(self, line: str, unit: int) -> int:
        return _width(line, unit)

    def _indentation_style(self, chunk_rows: set[int]) -> str | None:
        """New lines are indented the way the file is (tabs in a file of tabs)."""
        indented = [x for x in self.before if x[:1] in (" ", "\t") and x.strip()]
        if len(indented) < 3:
            return None
        with_tabs = sum(1 for x in indented if x.startswith("\t"))
        consistent = with_tabs in (0, len(indented))
        if not consistent:
            return None
        for r in sorted(chunk_rows):
            line = self.after[r]
            if self.old_of[r] >= 0 or not line.strip() or line[:1] not in (" ", "\t"):
                continue
            if self.tabs and line.startswith(" ") and _width(line) >= 2:
                return f"merged line {r + 1} is indented with spaces in a file indented with tabs"
            if not self.tabs and line.startswith("\t"):
                return f"merged line {r + 1} is indented with tabs in a file indented with spaces"
        return None

    def _deletions(self, chunk_of: dict[int, int], spans: list[tuple[int, int]]) -> str | None:
        """Every original line gone is explained by the sketch."""
        kept_row: dict[int, int] = {j: r for r, j in enumerate(self.old_of) if j >= 0}
        n = len(self.before)
        j = 0
        while j < n:
            if j in kept_row:
                j += 1
                continue
            end = j
            while end < n and end not in kept_row:
                end += 1
            # Original lines j..end-1 are gone; they sat between result rows r1 and r2.
            gone = [k for k in range(j, end) if self.before[k].strip()]
            if gone:
                r1 = kept_row[j - 1] if j > 0 else -1
                r2 = kept_row[end] if end < n else len(self.after)
                problem = self._explain(gone, r1, r2, chunk_of, spans)
                if problem:
                    return problem
            j = end
        return None

    def _explain(
        self,
        gone: list[int],
        r1: int,
        r2: int,
        chunk_of: dict[int, int],
        spans: list[tuple[int, int]],
    ) -> str | None:
        shape = self.shape
        first = gone[0] + 1
        what = f"original line{'s' if len(gone) > 1 else ''} {first}"
        if len(gone) > 1:
            what += f"-{gone[-1] + 1}"
        inside = [chunk_of[r] for r in range(r1 + 1, r2) if r in chunk_of]
        c1 = chunk_of.get(r1)
        c2 = chunk_of.get(r2)
        at_start = r1 < 0
        if (at_start or r2 >= len(self.after)) and (inside or c1 is not None or c2 is not None):
            # At an edge of the file the sketch reaches: with no marker there it may stop short
            # of the edge on purpose (deleting) or by omission (keeping). Only a whole file, a
            # cut of a few lines, or the rest of a block the sketch's last line opens is clear.
            marker = shape.leading if at_start else shape.trailing
            if not marker:
                if shape.whole or len(gone) <= EDGE_CUT or self._in_block(r1, gone):
                    return None
                side = "start" if at_start else "end"
                return (
                    f"{what} ({len(gone)} lines at the {side} of the file) would be deleted "
                    f"because the sketch stops before them without a marker: unclear whether "
                    "it deletes them or leaves them out"
                )
        if inside:
            # Replaced by sketch lines in the same place, if that place is certain: a chunk
            # whose only lines before (after) the gap are brackets could sit at any of the
            # file's many copies of them.
            if c1 is not None and self._bare_edge(spans[c1][0], r1, gone):
                return self._bare(what, spans[c1][0], r1)
            if c2 is not None and self._bare_edge(r2, spans[c2][1], gone):
                return self._bare(what, r2, spans[c2][1])
            return None
        if c1 is not None and c1 == c2:
            return None  # deleted between two sketch lines shown next to each other
        return (
            f"{what} ({self.before[gone[0]].strip()[:60]!r}) would be deleted, but the sketch "
            "neither replaces them nor shows the lines around them next to each other"
        )

    def _bare_edge(self, low: int, high: int, gone: list[int]) -> bool:
        """Whether result rows low..high, the chunk's end beside a gap, are two or more lines
        of brackets only (`},` and `{` between entries of a list)."""
        rows = [r for r in range(low, high + 1) if self.after[r].strip()]
        return (
            len(gone) >= _BARE_GAP
            and len(rows) >= 2  # one closing line is often the edit's own context
            and all(not any(ch.isalnum() for ch in self.after[r]) for r in rows)
        )

    def _bare(self, what: str, low: int, high: int) -> str:
        shown = " ".join(self.after[r].strip() for r in range(low, high + 1) if self.after[r])
        return (
            f"{what} would be replaced by a chunk placed only by its bracket lines "
            f"({shown[:40]!r}), which the file repeats: unclear which copy the sketch means"
        )

    def _in_block(self, r1: int, gone: list[int]) -> bool:
        """Whether the lines gone at the file's end are the rest of the block that the kept
        line before them opens (deeper than it, or its closing line)."""
        if r1 < 0 or self.old_of[r1] < 0:
            return False
        depth = _width(self.before[self.old_of[r1]])
        closers = ("}", ")", "]", "end")
        return all(
            _width(self.before[j]) > depth
            or (_width(self.before[j]) == depth and self.before[j].strip().startswith(closers))
            for j in gone
        )

    def _duplicates(self, chunk_of: dict[int, int], spans: list[tuple[int, int]]) -> str | None:
        """A telling line the sketch shows once, unique in the original, is not left twice with
        the original's copy right beside the chunk that shows it: the chunk was meant to
        replace that copy, not to sit next to it."""
        counts_sketch = Counter(_key(x) for c in self.shape.chunks for x in c.lines)
        telling = {k for k, count in counts_sketch.items() if count == 1 and len(k) >= _TELLING}
        counts_before = Counter(k for k in self.before_keys if k in telling)
        where: dict[str, list[int]] = {}
        for r, k in enumerate(self.after_keys):
            if k in telling and counts_before.get(k) == 1:
                where.setdefault(k, []).append(r)
        for k, rows in where.items():
            if len(rows) < 2:
                continue
            inside = [r for r in rows if r in chunk_of]
            outside = [r for r in rows if r not in chunk_of]
            if not inside or not outside:
                continue
            first, last = spans[chunk_of[inside[0]]]
            for r in outside:
                if r < first:
                    between = self._nonblank_between(r, first)
                    edge = self._nonblank_between(first - 1, inside[0])
                else:
                    between = self._nonblank_between(last, r)
                    edge = self._nonblank_between(inside[0], last + 1)
                # The copy at the chunk's own edge facing the original's copy.
                if between <= _BESIDE and edge <= 1:
                    return (
                        f"the merged file holds {k[:60]!r} twice, the original's copy right "
                        "beside the sketch's: the sketch's copy should have replaced it"
                    )
        return None

    def _repeated_block(self, spans: list[tuple[int, int]]) -> str | None:
        """Two or more telling lines a chunk writes anew, each the only copy of it in the
        original, kept in the same order right after the chunk under its marker and still in
        the chunk's block (no shallower line between): the chunk was meant to sit over them
        (its first line shown next to them deletes what lies between), not before them."""
        counts_sketch = Counter(_key(x) for c in self.shape.chunks for x in c.lines)
        counts_before = Counter(self.before_keys)
        for i, (first, last) in enumerate(spans):
            new = [
                r
                for r in range(first, last + 1)
                if self.old_of[r] < 0
                and len(self.after_keys[r]) >= _TELLING
                and counts_sketch[self.after_keys[r]] == 1
                and counts_before[self.after_keys[r]] == 1
            ]
            if len(new) < 2:
                continue
            end = spans[i + 1][0] if i + 1 < len(spans) else len(self.after)
            depth = min(_width(self.after[r]) for r in new)
            wanted = [self.after_keys[r] for r in new]
            found = 0
            for r in range(last + 1, end):
                if not self.after[r].strip():
                    continue
                if _width(self.after[r]) < depth:
                    break  # the block ends: a copy further on is another block's
                if (
                    self.old_of[r] >= 0
                    and found < len(wanted)
                    and self.after_keys[r] == wanted[found]
                ):
                    found += 1
            if found >= 2:
                return (
                    f"the merged file keeps {found} original lines, in the block of the chunk "
                    f"from sketch line {self.shape.chunks[i].first + 1}, that the chunk writes "
                    "again: it was meant to replace them, not to go before them"
                )
        return None

    def _copied(self, chunk_of: dict[int, int]) -> str | None:
        """Telling lines the sketch writes anew while the original's only copy of each stays
        elsewhere: code moved (its old place hidden under a marker) or copied on purpose.
        A few such lines are telling enough to refuse rather than guess."""
        counts_sketch = Counter(_key(x) for c in self.shape.chunks for x in c.lines)
        telling = {k for k, count in counts_sketch.items() if count == 1 and len(k) >= _TELLING}
        counts_before = Counter(k for k in self.before_keys if k in telling)
        new = {
            self.after_keys[r]
            for r in chunk_of
            if self.old_of[r] < 0 and counts_before.get(self.after_keys[r]) == 1
        }
        kept = [
            r
            for r, k in enumerate(self.after_keys)
            if k in new and r not in chunk_of and self.old_of[r] >= 0
        ]
        if len(kept) < _COPIED:
            return None
        # Only a copy that sits against a chunk: the sketch shows the lines around it, so it
        # would have shown that copy too had it stayed. A copy far from every chunk may be
        # code the edit duplicates on purpose.
        edges = [r for r in chunk_of if r - 1 not in chunk_of or r + 1 not in chunk_of]
        if not any(
            self._nonblank_between(min(r, e), max(r, e)) <= 1
            for r in (kept[0], kept[-1])
            for e in edges
        ):
            return None
        return (
            f"the merged file keeps {len(kept)} original lines (from merged line {kept[0] + 1}, "
            f"{self.after[kept[0]].strip()[:50]!r}) that the sketch writes again elsewhere: "
            "unclear whether it moves them (the old copy hidden under a marker) or copies them"
        )

    def _redeclared(self, chunk_of: dict[int, int], spans: list[tuple[int, int]]) -> str | None:
        """A name the chunk declares anew (`:=` in Go, `const`/`let` in JavaScript and
        TypeScript) while the original's declaration of
        it at the same depth stays right beside the chunk: the chunk's declaration was meant
        to replace it (the file would declare the name twice in one scope)."""
        for first, last in spans:
            for r in range(first, last + 1):
                if self.old_of[r] >= 0:
                    continue
                match = self.declaration.match(self.after[r])
                if not match:
                    continue
                value = self.after[r][match.end() :]
                if self.shadows and re.search(rf"\b{re.escape(match.group(1))}\b", value):
                    continue
                depth = _width(self.after[r])
                low = max(0, first - 2 * _BESIDE)
                high = min(len(self.after), last + 1 + 2 * _BESIDE)
                for other in range(low, high):
                    if other in chunk_of or self.old_of[other] < 0:
                        continue
                    again = self.declaration.match(self.after[other])
                    if (
                        again
                        and again.group(1) == match.group(1)
                        and _width(self.after[other]) == depth
                        and self._nonblank_between(min(other, r), max(other, r)) <= _BESIDE
                    ):
                        return (
                            f"merged line {r + 1} declares {match.group(1)!r} again while the "
                            f"original's declaration (merged line {other + 1}) stays beside it"
                        )
        return None

    def _nonblank_between(self, low: int, high: int) -> int:
        return bisect_left(self.rows, high) - bisect_left(self.rows, low + 1)


def _close(shift: int, anchored: set[int]) -> bool:
    return any(abs(shift - a) <= 1 for a in anchored)


def _diff(before: list[str], after: list[str]) -> list[int]:
    """For each result line, the original line it is (unchanged, in order), or -1 for new."""
    old_of = [-1] * len(after)
    a = [x.rstrip() for x in before]
    b = [x.rstrip() for x in after]
    _align(a, b, 0, len(a), 0, len(b), old_of, 0)
    return old_of


def _align(
    a: list[str],
    b: list[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[int],
    depth: int,
) -> None:
    """Patience alignment: common ends, then lines unique on both sides as anchors (their
    longest increasing run), recursing between them; a plain diff on what is left."""
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        out[blo] = alo
        alo += 1
        blo += 1
    while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
        out[bhi - 1] = ahi - 1
        ahi -= 1
        bhi -= 1
    if alo >= ahi or blo >= bhi:
        return
    seen_a: dict[str, int] = {}
    for i in range(alo, ahi):
        seen_a[a[i]] = -1 if a[i] in seen_a else i
    seen_b: dict[str, int] = {}
    for j in range(blo, bhi):
        seen_b[b[j]] = -1 if b[j] in seen_b else j
    pairs = [
        (i, seen_b[x]) for x, i in seen_a.items() if i >= 0 and seen_b.get(x, -1) >= 0 and x.strip()
    ]
    if pairs and depth < 200:
        pairs.sort(key=lambda p: p[1])
        chain = _longest_increasing(pairs)
        pa, pb = alo, blo
        for i, j in chain:
            if i > pa and j > pb:
                _align(a, b, pa, i, pb, j, out, depth + 1)
            out[j] = i
            pa, pb = i + 1, j + 1
        _align(a, b, pa, ahi, pb, bhi, out, depth + 1)
        return
    if (ahi - alo) * (bhi - blo) > _DIFF_LIMIT:
        return
    matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            out[blo + block.b + k] = alo + block.a + k


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest chain of pairs increasing in both coordinates (sorted by the second)."""
    tails: list[int] = []  # first coordinate at the end of the best chain of each length
    ends: list[int] = []  # index into pairs of that end
    back: list[int] = [-1] * len(pairs)
    for index, (i, _j) in enumerate(pairs):
        k = bisect_left(tails, i)
        if k == len(tails):
            tails.append(i)
            ends.append(index)
        else:
            tails[k] = i
            ends[k] = index
        back[index] = ends[k - 1] if k else -1
    chain: list[tuple[int, int]] = []
    index = ends[-1] if ends else -1
    while index >= 0:
        chain.append(pairs[index])
        index = back[index]
    chain.reverse()
    return chain
