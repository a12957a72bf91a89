"""Sketches that dropped every blank line (markers kept), second round: where the original says
what the spacing of the new lines is, the merge gives it to them (`blankless_respace.respace`)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

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


STORE = """\
use std::fs;

fn load(path: &str) -> String {
    fs::read_to_string(path).unwrap()
}

fn save(path: &str, text: &str) {
    fs::write(path, text).unwrap();
}

fn size(path: &str) -> u64 {
    fs::metadata(path).unwrap().len()
}
"""

# A snippet without markers: a marked sketch with no blank line at all is refused wherever its
# new lines meet blank lines (`test_blankless_4.py`), as it shows nothing of the spacing.
EXISTS = """\
fn size(path: &str) -> u64 {
    fs::metadata(path).unwrap().len()
}
fn exists(path: &str) -> bool {
    fs::metadata(path).is_ok()
}
"""

NEW_FN = "fn exists(path: &str) -> bool {\n    fs::metadata(path).is_ok()\n}\n"


def test_a_new_definition_gets_the_spacing_the_file_gives_every_definition() -> None:
    # Every function in the file is one blank line from the next: the new one after the last,
    # which the sketch glues to it, is spaced the same.
    outcome = merge(STORE, EXISTS, path="store.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == STORE + "\n" + NEW_FN


def test_no_spacing_is_made_up_where_the_file_has_no_single_one() -> None:
    # Two functions glued, one pair spaced: the file has no convention, nothing is added.
    glued = STORE.replace("}\n\nfn save", "}\nfn save")
    outcome = merge(glued, EXISTS, path="store.rs")
    assert isinstance(outcome, Merged), outcome
    assert "}\nfn exists" in outcome.text


SPACED = """\
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

# A new line next to a blank one, from a sketch without a single blank line that writes two
# lines the original spaces apart one after the other (`count`, then `result = 0`).
ROUNDED = """\
# ... existing code ...
def total(items):
    count = len(items)
    result = 0
    for item in items:
        result += item
    result = round(result, 2)
    return result / count
# ... existing code ...
"""


def test_one_joined_place_in_a_sketch_without_any_blank_line_is_a_sign_of_dropping() -> None:
    outcome = merge(SPACED, ROUNDED, path="stats.py")
    assert isinstance(outcome, Refused), outcome
    assert "no blank line at all" in outcome.reason


def test_one_joined_place_in_a_sketch_with_a_blank_line_is_an_edit() -> None:
    # The sketch writes a blank line (before `count`): it shows its spacing, so the blank line
    # it leaves out after `count` is deleted.
    outcome = merge(SPACED, ROUNDED.replace("    count", "\n    count"), path="stats.py")
    assert isinstance(outcome, Merged), outcome
