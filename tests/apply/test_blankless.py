"""Sketches that dropped every blank line (markers kept): new code where the original has blank
lines is refused, since the sketch cannot say where the blank lines go; the same edit shown with
its blank lines, or a blank-less sketch that gives no sign of having dropped any, merges."""

from __future__ import annotations

from cursorish.apply.blankless import dropped_every_blank
from cursorish.apply.deterministic import merge
from cursorish.apply.languages import detect_language
from cursorish.apply.result import Merged, Refused

STORE = """\
import os


def load(path):
    return open(path).read()


def save(path, text):
    open(path, "w").write(text)


def size(path):
    return os.path.getsize(path)
"""

# A new function between `load` and `save`, from a planner that dropped every blank line: it
# joins lines the original spaces apart (the import and `load`, `save` and `size`), and nothing
# says how the new function is spaced.
DROPPED = """\
import os
def load(path):
    return open(path).read()
def exists(path):
    return os.path.exists(path)
def save(path, text):
    open(path, "w").write(text)
def size(path):
# ... existing code ...
"""


def test_new_code_from_a_sketch_that_dropped_every_blank_line_is_refused() -> None:
    outcome = merge(STORE, DROPPED, path="store.py")
    assert isinstance(outcome, Refused), outcome
    assert "no blank line at all" in outcome.reason


def test_the_same_edit_with_its_blank_lines_merges() -> None:
    spaced = (
        DROPPED.replace("def load", "\n\ndef load")
        .replace("def exists", "\n\ndef exists")
        .replace("def save", "\n\ndef save")
        .replace("def size", "\n\ndef size")
    )
    outcome = merge(STORE, spaced, path="store.py")
    assert isinstance(outcome, Merged), outcome
    new = "def exists(path):\n    return os.path.exists(path)\n\n\n"
    assert outcome.text == STORE.replace("def save", new + "def save")


def test_one_joined_place_is_no_sign_of_dropping() -> None:
    # Two lines shown together that the original spaces apart, once: the edit may delete
    # that blank line, as a sketch that shows every line as it is would show it.
    lang = detect_language("store.py")
    original = STORE.split("\n")
    once = ["def load(path):", "    return open(path).read()", "def save(path, text):"]
    assert not dropped_every_blank(once, lang, original)
    twice = [*once, '    open(path, "w").write(text)', "def size(path):"]
    assert dropped_every_blank(twice, lang, original)


def test_a_sketch_with_a_blank_line_has_not_dropped_them() -> None:
    lang = detect_language("store.py")
    lines = DROPPED.replace("def save", "\ndef save").split("\n")
    assert not dropped_every_blank(lines, lang, STORE.split("\n"))
