"""Wrong merges of sketches in the shared eval's shape (changed lines plus a few lines of
context, markers between), turned into refusals or right answers by general rules."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

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
