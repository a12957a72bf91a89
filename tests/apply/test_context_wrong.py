"""Wrong merges of sketches in the shared eval's shape (changed lines plus a few lines of
context, markers between), turned into refusals or right answers by general rules."""

from __future__ import annotations

from cursorish.apply.align import Index
from cursorish.apply.deterministic import merge
from cursorish.apply.lazy import Chunk, _empty_comment_bounds
from cursorish.apply.lines import key
from cursorish.apply.result import Merged, Refused
from cursorish.apply.spans import Span
from cursorish.apply.verify.nested_redeclaration import _nested_redeclaration

# A chunk that changes nothing where it matches verbatim, whose first line
# (`config.check()`) recurs before that copy: read at the earlier copy it deletes the
# `prepare` step, which is how a context-shaped sketch shows a deletion (the line before it,
# then the lines after it).
RECURRING = """\
def other():
    return None


def build(config):
    config.load()
    config.check()

    config.prepare()
    config.check()

    config.publish()
    return config
"""

RECURRING_SKETCH = """\
def other():
    return 0
# ... existing code ...
    config.check()

    config.publish()
    # ... existing code ...
"""


def test_a_verbatim_chunk_whose_first_line_recurs_before_it_is_refused() -> None:
    outcome = merge(RECURRING, RECURRING_SKETCH, path="steps.py")
    assert isinstance(outcome, Refused)
    assert "change nothing where they are placed" in outcome.reason


def test_a_verbatim_chunk_whose_last_line_recurs_after_it_is_refused() -> None:
    sketch = """\
def other():
    return 0
# ... existing code ...
    config.load()
    config.check()
    # ... existing code ...
"""
    outcome = merge(RECURRING, sketch, path="steps.py")
    assert isinstance(outcome, Refused)
    assert "change nothing where they are placed" in outcome.reason


def test_a_verbatim_chunk_whose_edge_line_is_unique_stays() -> None:
    original = RECURRING.replace("prepare()\n    config.check()", "prepare()\n    config.confirm()")
    sketch = RECURRING_SKETCH.replace("    config.check()", "    config.confirm()")
    outcome = merge(original, sketch, path="steps.py")
    assert isinstance(outcome, Merged)
    assert outcome.text == original.replace("return None", "return 0")


def test_a_chunk_that_edits_where_it_is_placed_makes_no_such_rival() -> None:
    sketch = RECURRING_SKETCH.replace(
        "    config.publish()\n", "    config.publish()\n    return config.done()\n"
    )
    outcome = merge(RECURRING, sketch, path="steps.py")
    assert isinstance(outcome, Merged)
    assert outcome.text == RECURRING.replace("None", "0").replace("n config\n", "n config.done()\n")


# A chunk that rewrites the lines between two original lines and shows no blank line there.
# In a sketch with a marker at both edges (the shared eval's shape: every line of a changed
# stretch shown), the blank line before `return result` goes with the lines it replaces.
SPACED = """\
import sys


def run(args):
    result = []
    for arg in args:
        result.append(arg)

    return result


def main():
    return run(sys.argv)
"""

SPACED_SKETCH = """\
# ... existing code ...
def run(args):
    result = list(args)
    return result


def main():
# ... existing code ...
"""


def test_a_marked_sketch_replacing_a_spaced_stretch_deletes_its_blank_line() -> None:
    outcome = merge(SPACED, SPACED_SKETCH, path="run.py")
    assert isinstance(outcome, Merged)
    expected = SPACED.replace(
        "    result = []\n    for arg in args:\n        result.append(arg)\n\n",
        "    result = list(args)\n",
    )
    assert outcome.text == expected


def test_a_sketch_without_any_blank_line_keeps_the_stretchs_blank_line() -> None:
    # The same edit from a planner that dropped every blank line: the sketch cannot say that
    # the blank line before `return result` goes, so it stays (the blank lines between the
    # two functions, which the sketch also leaves out, stay too).
    dropped = SPACED_SKETCH.replace("\n\n\n", "\n")
    outcome = merge(SPACED, dropped, path="run.py")
    assert isinstance(outcome, Merged)
    expected = SPACED.replace(
        "    result = []\n    for arg in args:\n        result.append(arg)\n",
        "    result = list(args)\n",
    )
    assert outcome.text == expected


# The sketch's new version of a function whose old body sat one level deeper (under an `if`
# the edit removes): its body lines match the old ones one level deeper, and the new header
# would be left inside the old function of the same name.
NESTED = """\
import os


def load(path, force=False):
    if not force:
        data = cache.get(path)
        if data:
            return data
    return read(path)


def save(path, data):
    write(path, data)
"""

NESTED_SKETCH = """\
# ... existing code ...
def load(path):
    data = cache.get(path)
    if data:
        return data
# ... existing code ...
"""


def test_a_definition_left_inside_its_old_namesake_is_refused() -> None:
    outcome = merge(NESTED, NESTED_SKETCH, path="store.py")
    assert isinstance(outcome, Refused)
    assert "inside the original declaration of 'load'" in outcome.reason


def test_a_nested_definition_of_another_name_stands() -> None:
    before = ["def f(x):", "    return x"]
    after = ["def f(x):", "    def f(y):", "        return y", "    return x"]
    assert _nested_redeclaration(before, after, [0, -1, -1, 1]) is not None
    other = [line.replace("f(y)", "g(y)") for line in after]
    assert _nested_redeclaration(before, other, [0, -1, -1, 1]) is None


def test_a_header_closed_on_its_own_line_still_encloses() -> None:
    before = ["const f = (", "  x: number", "): number => {", "  return x", "}"]
    after = [*before[:3], "  const f = (y: number) => {", "    return y", "  }", *before[3:]]
    old_of = [0, 1, 2, -1, -1, -1, 3, 4]
    assert _nested_redeclaration(before, after, old_of) is not None
    assert _nested_redeclaration([*before, *before], after, old_of) is None


# A chunk whose last line, next to its marker, is an empty doc-comment line (`///`): matched
# to the second of two such lines, the merge deletes the telling line between them
# (`/// # Errors`), which the chunk would keep (only adding its lines) matched to the first.
DOC = ["/// - reads the body", "///", "/// # Errors", "///", "/// Fails on bad input."]


def _doc_doubts(chunk_lines: list[str], matched: dict[int, int]) -> list[str]:
    chunk = Chunk(chunk_lines, 0, 0)
    index = Index([key(line) for line in DOC], DOC)
    span = Span(min(matched.values()), max(matched.values()) + 1, matched)
    gone = [j for j in range(span.a, span.b) if j not in matched.values()]
    return _empty_comment_bounds(chunk, span, index, gone)


def test_a_telling_line_deleted_between_empty_comment_lines_at_the_edge_is_a_doubt() -> None:
    lines = ["/// - reads the body", "///", "/// Whitespace is ignored.", "///"]
    assert _doc_doubts(lines, {0: 0, 1: 1, 3: 3})


def test_a_rewritten_line_between_empty_comment_lines_is_no_doubt() -> None:
    lines = ["/// - reads the body", "///", "/// # Errors when it fails", "///"]
    assert not _doc_doubts(lines, {0: 0, 1: 1, 3: 3})


def test_empty_comment_lines_pinned_by_telling_lines_are_no_doubt() -> None:
    lines = ["/// - reads the body", "///", "/// Whitespace is ignored.", "///", DOC[-1]]
    assert not _doc_doubts(lines, {0: 0, 1: 1, 3: 3, 4: 4})


# A public helper whose last use the sketch rewrites, with a new helper written right after
# it: the new helper reads as its replacement, which the marker before it may or may not keep.
HELPER = """\
import re


def is_blank(text):
    # Whether a line holds nothing but whitespace.
    # Checked by hand: str.isspace() is false for an empty line.
    for char in text:
        if char not in WHITESPACE:
            return False
    return True


def clean(lines):
    return [line for line in lines if not is_blank(line)]
"""

HELPER_SKETCH = """\
# ... existing code ...


def empty(text):
    return not text or text.isspace()


def clean(lines):
    return [line for line in lines if not empty(line)]
"""


def test_a_new_helper_right_after_the_one_it_leaves_unused_is_refused() -> None:
    outcome = merge(HELPER, HELPER_SKETCH, path="text.py")
    assert isinstance(outcome, Refused)
    assert "last use of 'is_blank'" in outcome.reason


def test_a_new_helper_beside_one_still_used_stands() -> None:
    original = HELPER + "\n\ndef strip(lines):\n    return [x for x in lines if not is_blank(x)]\n"
    outcome = merge(original, HELPER_SKETCH + "# ... existing code ...\n", path="text.py")
    assert isinstance(outcome, Merged)
    assert "def is_blank(text):" in outcome.text
