"""Issue 17, round 7: refusals whose intended reading a general rule tells.

A tie is broken by the one reading that parses where every other reading breaks the file's
syntax; a reading the validator rejects for deleting a whole definition the sketch never
mentions is no reading of the sketch, so its parsing does not keep that tie. A reading
rejected for another cause (a name it loses) still counts.

A sketch line the original holds once, written as new code elsewhere, is no sign of a chunk
placed beside its lines where the chunk is, line for line, a copy of the original around that
line (placed there it would change nothing) and every line it replaces where it was placed
occurs once in the file; a replaced line the file repeats keeps the doubt.
"""

from __future__ import annotations

import pytest

from cursorish.apply.align import Index
from cursorish.apply.deterministic import merge
from cursorish.apply.guard import UnmentionedDefinition
from cursorish.apply.languages import detect_language
from cursorish.apply.lazy_doubts import _replaces_unique
from cursorish.apply.lazy_rivals import _settle
from cursorish.apply.lazy_sketch import Merge, RefusedMerge, split_sketch
from cursorish.apply.lines import SourceFile
from cursorish.apply.result import Merged, Refused

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


READER = """from . import colors
from .colors import ParseError


class Reader:
    def read(self, text):
        words = iter(text.split())
        for word in words:
            if word == "on":
                word = next(words, "")
                try:
                    colors.parse(word) is None
                except ParseError as error:
                    raise ValueError(f"bad background {word!r}") from error
                self.seen.append(("bg", word))
            elif word == "bold":
                self.seen.append(("bold", True))
            elif word == "link":
                word = next(words, "")
                if not word:
                    raise ValueError("link expects a target")
                self.seen.append(("link", word))
            else:
                try:
                    colors.parse(word)
                except ParseError as error:
                    raise ValueError(f"bad color {word!r}") from error
                self.seen.append(("fg", word))
        return self.seen
"""

READER_SKETCH = """# ...
    def read(self, text):
        # ...
                try:
                    colors.parse(word)
                except ParseError as error:
                    # ...
"""


def test_a_chunk_that_copies_the_lines_around_its_line_edits_the_other_place() -> None:
    # Over the `else` branch the chunk changes nothing; over the `on` branch it drops the
    # `is None` the file has there alone.
    result = merge(READER, READER_SKETCH, path="reader.py")
    assert isinstance(result, Merged)
    expected = READER.replace("colors.parse(word) is None", "colors.parse(word)")
    assert result.text == expected


def test_a_replaced_line_the_file_repeats_keeps_the_doubt() -> None:
    twice = READER.replace(
        '            elif word == "bold":\n',
        '            elif word == "under":\n'
        "                try:\n"
        "                    colors.parse(word) is None\n"
        "                except ParseError as error:\n"
        "                    raise ValueError(word) from error\n"
        '            elif word == "bold":\n',
    )
    assert twice.count("colors.parse(word) is None") == 2
    assert isinstance(merge(twice, READER_SKETCH, path="reader.py"), Refused)


def test_only_a_replaced_line_the_file_holds_once_lifts_the_doubt() -> None:
    lines = READER.splitlines()
    index = Index([" ".join(line.split()) for line in lines], lines)
    at = lines.index("                    colors.parse(word) is None")
    matched = {0: at - 1, 2: at + 1}  # `try:` and `except ...:` kept, the line between replaced
    kept = set(range(len(lines))) - {at}
    assert _replaces_unique(index, kept, matched)
    doubled = [*lines, lines[at]]
    index = Index([" ".join(line.split()) for line in doubled], doubled)
    assert not _replaces_unique(index, kept, matched)
