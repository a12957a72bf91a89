"""Issue 17, round 7: refusals whose intended reading a general rule tells.

A tie is broken by the one reading that parses where every other reading breaks the file's
syntax; a reading the validator rejects for deleting a whole definition the sketch never
mentions is no reading of the sketch, so its parsing does not keep that tie. A reading
rejected for another cause (a name it loses) still counts.
"""

from __future__ import annotations

import pytest

from cursorish.apply.guard import UnmentionedDefinition
from cursorish.apply.languages import detect_language
from cursorish.apply.lazy_rivals import _settle
from cursorish.apply.lazy_sketch import Merge, RefusedMerge, split_sketch
from cursorish.apply.lines import SourceFile

BOX = """class Box:
    def __init__(self, size):
        self.size = size

    def grow(self):
        return Box(self.size + 1)


def helper(x):
    return x * 2


def main():
    box = Box(
        2,
    )
    return box.grow()
"""

NEW = ["", "    def shrink(self):", "        return Box(self.size - 1)"]

SKETCH = """    # ...
        return Box(self.size + 1)

    def shrink(self):
        return Box(self.size - 1)
# ...
"""


def _merge(source: SourceFile, deleted: list[int], at: int) -> Merge:
    """A merge deleting original lines `deleted` and writing NEW before original line `at`."""
    pieces: list[tuple[str, str | None]] = []
    for j, line in enumerate(source.lines):
        if j == at:
            pieces.extend((text, None) for text in NEW)
        if j not in deleted:
            pieces.append((line, None))
    return Merge(pieces, deleted, list(NEW))


def _readings() -> tuple[SourceFile, Merge, Merge, Merge]:
    source = SourceFile.from_text(BOX)
    inside = _merge(source, [], 6)  # after grow(): parses
    over_helper = _merge(source, [8, 9], 8)  # in place of helper(): parses, drops it
    in_call = _merge(source, [], 14)  # inside Box(...): breaks the syntax
    return source, inside, over_helper, in_call


def test_a_reading_that_drops_an_unmentioned_definition_keeps_no_tie() -> None:
    source, inside, over_helper, in_call = _readings()

    def validate(merge: Merge) -> None:
        if merge is over_helper:
            raise UnmentionedDefinition("the merge would delete function 'helper'")

    lang = detect_language("box.py")
    sketch = split_sketch(SKETCH.splitlines(), lang)
    rivals = [(over_helper, "tie at helper"), (in_call, "tie in main")]
    chosen = _settle(source, inside, rivals, validate, lang, True, sketch)
    assert chosen is inside


def test_a_reading_rejected_for_a_lost_name_still_keeps_the_tie() -> None:
    source, inside, over_helper, in_call = _readings()

    def validate(merge: Merge) -> None:
        if merge is over_helper:
            raise RefusedMerge("the merge removes 'helper' while the file still uses it")

    lang = detect_language("box.py")
    sketch = split_sketch(SKETCH.splitlines(), lang)
    rivals = [(over_helper, "tie at helper"), (in_call, "tie in main")]
    with pytest.raises(RefusedMerge):
        _settle(source, inside, rivals, validate, lang, True, sketch)
