"""Sketches that dropped every blank line (markers kept), second round: where the original says
what the spacing of the new lines is, the merge gives it to them (`blankless.respace`)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

TOTAL = """\
import math


def total(items):
    count = len(items)

    result = 0
    for item in items:
        result += item
    return result / count


def spread(items):
    return max(items) - min(items)
"""


def test_replaced_lines_keep_the_blank_line_that_opened_them() -> None:
    # The lines after the blank line are rewritten; the sketch cannot show the blank line
    # before them, which the original has at that very spot.
    sketch = (
        "# ... existing code ...\n"
        "def total(items):\n"
        "    count = len(items)\n"
        "    result = math.fsum(items)\n"
        "    return result / max(count, 1)\n"
        "# ... existing code ...\n"
    )
    outcome = merge(TOTAL, sketch, path="stats.py")
    assert isinstance(outcome, Merged), outcome
    old = "    result = 0\n    for item in items:\n        result += item\n"
    old += "    return result / count"
    new = "    result = math.fsum(items)\n    return result / max(count, 1)"
    assert outcome.text == TOTAL.replace(old, new)


def test_a_sketch_that_shows_a_blank_line_means_the_ones_it_leaves_out() -> None:
    # The same edit, from a sketch that writes a blank line elsewhere: the blank line it does
    # not write after `count` is deleted, as it says.
    sketch = (
        "# ... existing code ...\n"
        "def total(items):\n"
        "    count = len(items)\n"
        "    result = math.fsum(items)\n"
        "    return result / max(count, 1)\n"
        "\n"
        "\n"
        "def spread(items):\n"
        "# ... existing code ...\n"
    )
    outcome = merge(TOTAL, sketch, path="stats.py")
    assert isinstance(outcome, Merged), outcome
    assert "count = len(items)\n    result = math.fsum" in outcome.text
