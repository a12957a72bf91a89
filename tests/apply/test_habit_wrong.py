"""Wrong merges of sketches written in planners' habits (whole functions, loose snippets,
pasted or terse context), and the rules that refuse or place them (issue 17, round 4)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused
from cursorish.apply.snippet_blanks import guessed_blanks
from cursorish.apply.verify.go_imports import _imported_twice

# -- a snippet's new code where the original had blank lines ---------------------------------

SETTINGS = """\
import os

timeout = 30
retries = 2

# Logging -------------------------------------------------------------
log_level = "info"
log_file = os.path.join("var", "app.log")
"""

# A snippet without markers: two new settings, then a blank line, then the next section. It
# may drop blank lines (the one after `retries` too), so the new lines may belong after a kept
# blank line or before it.
NEW_SETTINGS = """\
retries = 2
backoff = 1.5
jitter = True

# Logging -------------------------------------------------------------
"""


def test_a_snippet_that_moves_a_blank_line_around_its_new_code_is_refused() -> None:
    outcome = merge(SETTINGS, NEW_SETTINGS, path="settings.py")
    assert isinstance(outcome, Refused)
    assert "blank line" in outcome.reason


LOADER = """\
def load(path):
    text = read(path)

    text = text.lower()

    return parse(text)


def parse(text):
    words = text.split()
    return [word for word in words if word]


def save(path, words):
    with open(path, "w") as handle:
        handle.write(" ".join(words))


def count(words):
    return len(words)
"""


def test_a_snippet_spaced_as_the_original_is_merged() -> None:
    sketch = """\
def load(path):
    text = read(path)

    text = text.casefold()

    return parse(text)
"""
    outcome = merge(LOADER, sketch, path="loader.py")
    assert isinstance(outcome, Merged)
    assert outcome.text == LOADER.replace("lower", "casefold")


def test_blank_lines_the_new_code_replaces_are_counted() -> None:
    before = ["def f():", "    a = 1", "", "    b = 2", "    return a + b"]
    # The two middle lines rewritten without the blank line between them: dropped or deleted?
    after = ["def f():", "    a = 10", "    b = 20", "    return a + b"]
    assert guessed_blanks(before, after, spaced=False) is not None
    # A snippet that writes blank lines elsewhere spaces its new code itself.
    assert guessed_blanks(before, after, spaced=True) is None
    spaced = ["def f():", "    a = 10", "", "    b = 20", "    return a + b"]
    assert guessed_blanks(before, spaced, spaced=False) is None


def test_a_new_comment_right_on_a_kept_line_goes_with_it() -> None:
    before = ["x = 1", "", "y = 2"]
    assert guessed_blanks(before, ["x = 1", "", "# the second", "y = 2"], spaced=True) is None
    assert guessed_blanks(before, ["x = 1", "z = 0", "", "y = 2"], spaced=True) is not None


def test_a_deletion_between_kept_lines_is_no_guess() -> None:
    before = ["x = 1", "", "y = 2", "", "z = 3"]
    assert guessed_blanks(before, ["x = 1", "", "z = 3"], spaced=False) is None


# -- Go: a package imported twice -------------------------------------------------------------

CLOCK = """\
package clock

import (
	"fmt"
	"os"
)

import "time"

func Now() string {
	return fmt.Sprint(time.Now(), os.Getpid())
}

func Zero() int {
	return 0
}
"""

# The import block rewritten whole with "time" in it, the function after it edited: the lone
# `import "time"` under the marker between them stays, and Go refuses a package imported twice.
CLOCK_SKETCH = """\
// ... existing code ...
import (
	"fmt"
	"os"
	"time"
)
// ... unchanged code ...
func Zero() int {
	return 1
}
// ... rest of the file unchanged ...
"""


def test_a_go_package_imported_twice_is_refused() -> None:
    outcome = merge(CLOCK, CLOCK_SKETCH, path="clock.go")
    assert isinstance(outcome, Refused)
    assert "imports 'time' twice" in outcome.reason


def test_go_imports_counted_by_path_and_alias() -> None:
    before = ["package p", "", 'import "strings"']
    twice = ["package p", "", "import (", '\t"strings"', ")", "", 'import "strings"']
    assert _imported_twice(before, twice) is not None
    # Two aliases of one path bind two names; blank imports and strings elsewhere are no imports.
    aliased = ["package p", "", "import (", '\ts "strings"', '\tstr "strings"', '\t_ "embed"']
    aliased += [")", "", 'import _ "embed"', "", "var names = []string{", '\t"strings"', "}"]
    assert _imported_twice(before, aliased) is None


# -- a sketch that opens with a new import, without a marker before it ------------------------

BUILD = '''\
import os
import sys


def here(*parts):
    """A path next to this file."""
    base = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(base, *parts)


# -- Settings ----------------------------------------------------------
version = here("VERSION")
debug = "-d" in sys.argv
'''

# `from … import` and `import` are one kind of line: a sketch opening with a new import and
# no marker, on a file that opens with imports, may replace the file's head or go after it.
BUILD_SKETCH = """\
from pathlib import Path


# -- Settings ----------------------------------------------------------
version = Path("VERSION").read_text()
# ... existing code ...
"""


def test_a_new_from_import_opening_a_sketch_without_marker_is_refused() -> None:
    outcome = merge(BUILD, BUILD_SKETCH, path="build.py")
    assert isinstance(outcome, Refused)
    assert "unclear whether they replace those lines" in outcome.reason


# -- new imports after a blank line, before a marker that keeps more imports -----------------

TOOL = '''\
"""A small tool."""
from __future__ import annotations

import hashlib
import typing as t


def main() -> str:
    return hashlib.sha1(b"tool").hexdigest() + str(t.TYPE_CHECKING)


def usage() -> str:
    return "usage: tool"
'''


def _tool_sketch(new: str) -> str:
    return f"""\
\"\"\"A small tool.\"\"\"
from __future__ import annotations

{new}
# ... existing code ...
def main() -> str:
    return hashlib.sha1(NAME.encode()).hexdigest() + str(t.TYPE_CHECKING)
# ... rest of the file unchanged ...
"""


def test_new_imports_spaced_like_the_import_group_the_marker_keeps_are_refused() -> None:
    # The new import may join `import hashlib` / `import typing` (the sketch's blank line being
    # the original's after the `__future__` import), or open a group of its own.
    outcome = merge(TOOL, _tool_sketch("import collections.abc as cabc"), path="tool.py")
    assert isinstance(outcome, Refused)
    assert "make a group of their own" in outcome.reason


def test_new_code_of_another_kind_before_the_imports_is_merged() -> None:
    outcome = merge(TOOL, _tool_sketch('NAME = "tool"'), path="tool.py")
    assert isinstance(outcome, Merged), outcome
    assert 'annotations\n\nNAME = "tool"\n\nimport hashlib\n' in outcome.text
