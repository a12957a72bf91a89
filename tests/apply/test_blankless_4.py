"""Blank-less sketches, fourth round: a new line at a marker that edits the line the marker
keeps past blank lines, and a block body rewritten as one statement, are decided by the
original; a body rewritten as several statements is still doubted.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

ROUTER = """package router

// Get registers a handler for GET.
func Get(path string) {
	add("GET", path)
}

// Post registers a hanlder for POST.
func Post(path string) {
	add("POST", path)
}
"""

# Every blank line dropped: the last line, right before the marker, edits the comment that
# follows `Get` past a blank line (a typo fixed); the blank line stays where it was.
FIXED_COMMENT = """// ... existing code ...
func Get(path string) {
	add("GET", path)
}
// Post registers a handler for POST.
// ... existing code ...
"""


def test_a_new_line_before_a_marker_edits_the_line_past_the_blank_lines() -> None:
    outcome = merge(ROUTER, FIXED_COMMENT, path="router.go")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == ROUTER.replace("a hanlder", "a handler")


RUN = """import time


def run(job):
    start = time.time()

    job.execute()
    return time.time() - start
"""

# The mirror: the first line, right after the marker, edits the line the marker keeps last,
# past the blank line before the kept line that follows it.
PRECISE = """# ... existing code ...
    start = time.perf_counter()
    job.execute()
    return time.perf_counter() - start
"""


def test_a_new_line_after_a_marker_edits_the_line_before_the_blank_lines() -> None:
    outcome = merge(RUN, PRECISE, path="run.py")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == RUN.replace("time.time()", "time.perf_counter()")


CONFIG = """package config

func Load(path string) string {
	data := read(path)

	if data == "" {
		return "default"
	}

	return data
}

func Save(path string) {
	write(path)
}
"""

# No blank line at all, and `Load`'s closer glued to `Save`, which the original spaces apart:
# a sketch that dropped its blank lines, rewriting `Load`'s whole body as one statement. A
# body of one statement has no place for a blank line: the body's blank lines go with it.
ONE_STATEMENT = """// ... existing code ...
func Load(path string) string {
	return readOr(path, "default")
}
func Save(path string) {
// ... existing code ...
"""


def test_a_body_rewritten_as_one_statement_takes_its_blank_lines_with_it() -> None:
    outcome = merge(CONFIG, ONE_STATEMENT, path="config.go")
    assert isinstance(outcome, Merged), outcome
    body = CONFIG[CONFIG.index("\tdata :=") : CONFIG.index("}\n\nfunc Save")]
    assert outcome.text == CONFIG.replace(body, '\treturn readOr(path, "default")\n')


def test_a_body_rewritten_as_two_statements_is_still_doubted() -> None:
    sketch = ONE_STATEMENT.replace(
        '\treturn readOr(path, "default")\n',
        '\tdata := readOr(path, "default")\n\treturn strings.TrimSpace(data)\n',
    )
    outcome = merge(CONFIG, sketch, path="config.go")
    assert isinstance(outcome, Refused), outcome
    assert "with blank lines among them" in outcome.reason


# A marked sketch with no blank line at all, none of whose lines the original spaces apart:
# two new statements after `total`'s first line, in a function whose statements the original
# spaces in groups. Where the blank lines go among them the sketch cannot tell.
GROUPED = """\
def total(items):
    count = len(items)

    result = 0
    for item in items:
        result += item

    return result / count
"""

TWO_NEW = """\
def total(items):
    count = len(items)
    if not count:
        return 0.0
    # ... existing code ...
"""


def test_a_marked_sketch_without_blank_lines_is_doubted_where_new_lines_meet_blank_ones() -> None:
    outcome = merge(GROUPED, TWO_NEW, path="stats.py")
    assert isinstance(outcome, Refused), outcome
    assert "no blank line at all" in outcome.reason


def test_the_same_sketch_showing_a_blank_line_merges() -> None:
    sketch = TWO_NEW.replace("        return 0.0\n", "        return 0.0\n\n")
    outcome = merge(GROUPED, sketch, path="stats.py")
    assert isinstance(outcome, Merged), outcome
    assert "        return 0.0\n\n    result = 0" in outcome.text
