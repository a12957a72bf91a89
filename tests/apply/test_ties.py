"""Issue 17: tie-breakers for sketches that seem to fit two places equally well.

Each rule names evidence the sketch carries beyond the lines it matches (a closing bracket's
block, the depth the sketch writes its lines at, whether a reading edits anything at all), and
each keeps refusing where that evidence is even.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# Two copies of the same statement at different depths, in different functions.
TWO_DEPTHS = """package m

func first(items []int) {
	total := compute(items)
}

func second(items []int) {
	if len(items) > 0 {
		total := compute(items)
	}
}
"""


def test_a_closing_bracket_closes_the_block_its_opener_opens() -> None:
    original = """package m

func scale(x int) int {
	if x > 0 {
		x = x * 2
	}
	if x < 0 {
		x = -x
	}
	return x
}
"""
    # The new body is longer than both candidate spans, so deletions do not tell which `}`
    # the sketch's is; the `if x > 0 {` it closes does.
    sketch = """// ... existing code ...
	if x > 0 {
		x = x * 3
		x = x + 1
		x = x - 2
		x = x / 2
		x = x % 7
	}
// ... existing code ...
"""
    result = merge(original, sketch, path="m.go")
    assert isinstance(result, Merged), result
    assert result.text == original.replace(
        "\t\tx = x * 2\n",
        "\t\tx = x * 3\n\t\tx = x + 1\n\t\tx = x - 2\n\t\tx = x / 2\n\t\tx = x % 7\n",
    )


def test_the_depth_the_sketch_writes_its_lines_at_picks_the_copy() -> None:
    sketch = """// ... existing code ...
	total := compute(items)
	total += 1
}
// ... existing code ...
"""
    result = merge(TWO_DEPTHS, sketch, path="m.go")
    assert isinstance(result, Merged), result
    assert result.text == TWO_DEPTHS.replace(
        "\ttotal := compute(items)\n}", "\ttotal := compute(items)\n\ttotal += 1\n}"
    )


def test_a_snippet_written_flush_left_says_nothing_by_its_depth() -> None:
    # Pasted at column 0: either copy may be meant, re-indented.
    sketch = """// ... existing code ...
total := compute(items)
total += 1
// ... existing code ...
"""
    result = merge(TWO_DEPTHS, sketch, path="m.go")
    assert isinstance(result, Refused)
    assert "equally well" in result.reason


def test_a_reading_that_changes_nothing_is_no_rival() -> None:
    original = """import os

total = compute(items)
print(total)


def helper(value):
    first = value * 2
    second = first + 3
    third = second - 4
    fourth = third * 5
    fifth = fourth + 6
    sixth = fifth - 7
    return sixth


def main(items):
    total = compute(items)
    total += 1
    print(total)
"""
    # Flush left, so its depth says nothing; but in main() the lines are already there.
    sketch = """# ... existing code ...
total = compute(items)
total += 1
print(total)
# ... existing code ...
"""
    result = merge(original, sketch, path="m.py")
    assert isinstance(result, Merged), result
    assert result.text == original.replace(
        "total = compute(items)\nprint(total)\n",
        "total = compute(items)\ntotal += 1\nprint(total)\n",
        1,
    )


def test_two_readings_that_both_edit_stay_a_tie() -> None:
    original = """def first(items):
    total = compute(items)
    print(total)


def second(items):
    total = compute(items)
    print(total)
"""
    sketch = """# ... existing code ...
    total = compute(items)
    total += 1
    print(total)
# ... existing code ...
"""
    result = merge(original, sketch, path="m.py")
    assert isinstance(result, Refused)
    assert "equally well" in result.reason


NEAR_COPY = """def first(config):
    start = config.begin
    value = compute(config.lenght)
    finish = config.end


def second(config):
    start = config.begin
    total = summarize(config.items)
    finish = config.end
"""
TYPO_FIXED = """# ... existing code ...
    start = config.begin
    value = compute(config.length)
    finish = config.end
# ... existing code ...
"""


def test_a_new_line_like_exactly_one_original_line_replaces_it() -> None:
    # Both functions hold the context lines; only first() holds the line the new one fixes.
    result = merge(NEAR_COPY, TYPO_FIXED, path="m.py")
    assert isinstance(result, Merged), result
    assert result.text == NEAR_COPY.replace("config.lenght", "config.length")


def test_a_new_line_like_lines_in_both_places_stays_a_tie() -> None:
    original = NEAR_COPY.replace("total = summarize(config.items)", "value = compute(config.lenth)")
    result = merge(original, TYPO_FIXED, path="m.py")
    assert isinstance(result, Refused)
    assert "equally well" in result.reason


def test_a_likeness_guess_that_strands_a_helper_is_refused() -> None:
    # Replacing the private check would leave _is_private() unused: the sketch likely hides
    # more of the edit than it shows, so no guess is safe.
    original = """def _is_private(ip):
    return ip.startswith("10.")


def trust(checker, ip):
    if checker.loopback and ip.is_loopback:
        return True
    if checker.private and _is_private(ip):
        return True
    return False
"""
    sketch = """# ... existing code ...
    if checker.private and ip.is_private:
        return True
# ... existing code ...
"""
    result = merge(original, sketch, path="m.py")
    assert isinstance(result, Refused)
    assert "equally well" in result.reason


def test_of_several_like_lines_the_one_nearly_the_same_is_the_edited_one() -> None:
    # second() holds a line written alike (another attribute); first() the same line with a
    # typo: only that one is nearly the new line.
    original = NEAR_COPY.replace("total = summarize(config.items)", "value = compute(config.items)")
    result = merge(original, TYPO_FIXED, path="m.py")
    assert isinstance(result, Merged), result
    assert result.text == original.replace("config.lenght", "config.length")


def test_a_line_rewritten_in_place_counts_as_its_near_copy_replaced() -> None:
    # Placed by the `/**` and a line it edits (no exact anchor): the typo'd doc line is the
    # one the sketch's line fixes, the other doc line only reads alike.
    original = """export type Hooks = {
	/**
	This hook runs before the request is sent, so you can change its headres here.

	@default []
	*/
	beforeRequest?: Hook[];

	/**
	This hook runs before a retry is made, so you can change the options here.

	@default []
	*/
	beforeRetry?: Hook[];
};
"""
    sketch = """// ... existing code ...
	/**
	This hook runs before the request is sent, so you can change its headers here.

	// ... existing code ...
"""
    result = merge(original, sketch, path="hooks.ts")
    assert isinstance(result, Merged), result
    assert result.text == original.replace("its headres here", "its headers here")


SERVE = """package m

func handle(w Writer, ok bool) {
	if !ok {
		serve(w)
	}
	if ready(w) {
		serve(w)
		return
	}
	finish(w)
}
"""
SERVE_RETURNS = """// ... existing code ...
		serve(w)
		return
	}
// ... existing code ...
"""


def test_a_copy_the_file_already_holds_yields_to_the_place_the_sketch_changes() -> None:
    # The sketch's lines occur verbatim in the second `if`: read there it is no edit at all.
    result = merge(SERVE, SERVE_RETURNS, path="m.go")
    assert isinstance(result, Merged), result
    assert result.text == SERVE.replace("\t\tserve(w)\n\t}", "\t\tserve(w)\n\t\treturn\n\t}", 1)


def test_a_copy_yields_only_to_a_place_about_as_good() -> None:
    # Reading it in the first `if` would also delete two lines the sketch never shows.
    original = SERVE.replace("\t\tserve(w)\n\t}", "\t\tserve(w)\n\t\tlog(w)\n\t\tflush(w)\n\t}", 1)
    result = merge(original, SERVE_RETURNS, path="m.go")
    assert isinstance(result, Refused)
    assert "unchanged" in result.reason
