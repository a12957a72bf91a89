"""Issue 17 (H22): refusals that have a safe reading.

A sketch that leaves out both edge markers, its chunks split by markers inside it, writes no
edge markers at all (a snippet without any marker does not either): the lines it leaves out at
the start and at the end of the file are kept, not deleted. That reading stands only where the
sketch says clearly where its edge chunks lie (their outermost lines occur once in the file)
and that they edit something within themselves; and since such a loosely written sketch may
drop blank lines too, a merge that would have to guess where blank lines go is refused.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

ORIGINAL = '''"""Shapes and their measures."""
import math
import sys
from typing import Any

UNIT = "m"


def area(r):
    r = float(r)
    check(r)
    return math.pi * r * r


def perimeter(r):
    r = float(r)
    return 2 * math.pi * r


def volume(r):
    r = float(r)
    check(r)
    return 4 / 3 * math.pi * r ** 3


def describe(r):
    text = f"r={r}"
    sys.stdout.write(text)
    return text
'''

# Two edits in the middle of the file, framed by lines of their own functions, no edge markers.
BARE = """def area(r):
    r = float(r)
    check_radius(r)
    return math.pi * r * r
# ... existing code ...
def volume(r):
    r = float(r)
    check_radius(r)
    return 4 / 3 * math.pi * r ** 3
"""


def test_sketch_without_edge_markers_keeps_both_edges_of_the_file() -> None:
    result = merge(ORIGINAL, BARE, path="shapes.py")
    assert isinstance(result, Merged), result
    assert result.text == ORIGINAL.replace("check(r)", "check_radius(r)")


def test_edge_chunk_opening_on_a_repeated_line_is_refused() -> None:
    # `r = float(r)` is in every function: the chunk may start at an earlier copy.
    sketch = BARE.removeprefix("def area(r):\n")
    result = merge(ORIGINAL, sketch, path="shapes.py")
    assert isinstance(result, Refused)


def test_edge_chunk_that_edits_nothing_is_refused() -> None:
    # The last chunk only shows an unchanged line: a deletion after it would not show.
    sketch = BARE.partition("# ... existing code ...\n")[0] + "# ... existing code ...\n"
    sketch += "def describe(r):\n"
    result = merge(ORIGINAL, sketch, path="shapes.py")
    assert isinstance(result, Refused)
    assert "no marker" in result.reason


def test_one_edge_marker_left_out_is_still_refused() -> None:
    result = merge(ORIGINAL, BARE + "# ... existing code ...\n", path="shapes.py")
    assert isinstance(result, Refused)
    assert "no marker" in result.reason


def test_sketch_without_edge_markers_that_drops_a_blank_line_is_refused() -> None:
    # `return math.pi * r * r` then `def perimeter(r):` with the two blank lines between left
    # out: dropped or deleted, the sketch does not tell.
    sketch = BARE.replace("r * r\n", "r * r\ndef perimeter(r):\n")
    result = merge(ORIGINAL, sketch, path="shapes.py")
    assert isinstance(result, Refused)
    assert "blank line" in result.reason


def test_sketch_without_edge_markers_writing_new_lines_over_a_blank_line_is_refused() -> None:
    # New code between `return 2 * math.pi * r` and `def volume(r):`, which the original
    # separates by blank lines: before them, after them, or instead of them?
    sketch = BARE.replace(
        "def volume(r):\n",
        "    return 2 * math.pi * r\nTAU = 2 * math.pi\ndef volume(r):\n",
    )
    result = merge(ORIGINAL, sketch, path="shapes.py")
    assert isinstance(result, Refused)
    assert "blank line" in result.reason
