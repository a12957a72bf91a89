"""Go wrong merges of round 7 (helper h60): blank lines and comment lines around edits."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# A marked sketch without any blank line that writes two lines one after the other, where the
# original had lines after the first that a blank line ended before the second: the merge
# deletes those lines, and whether the blank line that ended them goes too the sketch, which
# shows no blank line anywhere, cannot say.
SHAPE = """\
package shapes

type Shape interface {
	Area() float64
	Scale(f float64)

	Name() string
}

func Describe(s Shape) string {
	return s.Name()
}
"""

SHAPE_SKETCH = """\
// ... existing code ...
type Shape interface {
	Area() float64
	Name() string
}
// ... rest of the file unchanged ...
"""


def test_lines_deleted_with_the_blank_line_that_ended_them_unclear_is_refused() -> None:
    outcome = merge(SHAPE, SHAPE_SKETCH, path="shapes.go")
    assert isinstance(outcome, Refused), outcome
    assert "cannot say whether it stays" in outcome.reason


def test_a_deleted_line_after_the_blank_line_leaves_it_in_place() -> None:
    original = SHAPE.replace("\tScale(f float64)\n\n", "\n\tScale(f float64)\n")
    outcome = merge(original, SHAPE_SKETCH, path="shapes.go")
    assert isinstance(outcome, Merged), outcome
    assert "\tArea() float64\n\n\tName() string\n" in outcome.text


def test_a_deleted_inner_block_end_keeps_the_blank_line_before_the_outer_code() -> None:
    original = """\
def total(items):
    for item in items:
        if item:
            count(item)
            log(item)

    return len(items)
"""
    sketch = """\
# ... existing code ...
            count(item)
    return len(items)
"""
    outcome = merge(original, sketch, path="shapes.py")
    assert isinstance(outcome, Merged), outcome
    assert "count(item)\n\n    return len(items)\n" in outcome.text


# A chunk that ends, at a marker, on a new comment paragraph written after an empty comment
# line it anchors, where the original's comment goes on with its next paragraph: the merge
# glues the new paragraph to that one, while the empty comment line may as well be new, the
# new paragraph going in before the original one, which still parts the two.
DOC = """\
package widget

// Frob turns the widget.
//
// It spins the widget once.
//
// See also Spin.
func Frob() {
}
"""


def test_a_new_comment_paragraph_after_an_empty_comment_line_at_a_marker_is_refused() -> None:
    sketch = """\
// ... existing code ...
// Frob turns the widget.
//
// It spins the widget once.
//
// It panics on a nil widget.
// ... rest of the file unchanged ...
"""
    outcome = merge(DOC, sketch, path="widget.go")
    assert isinstance(outcome, Refused), outcome
    assert "empty comment line parts the two" in outcome.reason


def test_a_new_comment_line_ending_a_paragraph_at_a_marker_merges() -> None:
    sketch = """\
// ... existing code ...
// Frob turns the widget.
//
// It spins the widget once.
// It panics on a nil widget.
// ... rest of the file unchanged ...
"""
    outcome = merge(DOC, sketch, path="widget.go")
    assert isinstance(outcome, Merged), outcome
    assert "once.\n// It panics on a nil widget.\n//\n// See also Spin.\n" in outcome.text


# A Go local the merged file keeps declared with no read of it left in its function, while
# the function read it in the original: Go does not compile it, though the name is read
# elsewhere in the file (here a method's receiver of the same name).
NAMES = """\
package items

type Item struct{ name string }

func (it *Item) Name() string {
	return it.name
}

func Names(items []*Item) []string {
	var it *Item
	out := []string{}
	for _, x := range items {
		it = x
		out = append(out, it.Name())
	}
	return out
}
"""


def test_a_local_left_unread_in_its_function_is_refused_though_read_elsewhere() -> None:
    sketch = """\
// ... existing code ...
	for _, x := range items {
		out = append(out, x.Name())
	}
	return out
}
"""
    outcome = merge(NAMES, sketch, path="items.go")
    assert isinstance(outcome, Refused), outcome
    assert "no longer uses 'it'" in outcome.reason


def test_the_same_edit_deleting_the_declaration_merges() -> None:
    sketch = """\
// ... existing code ...
func Names(items []*Item) []string {
	out := []string{}
	for _, x := range items {
		out = append(out, x.Name())
	}
	return out
}
"""
    outcome = merge(NAMES, sketch, path="items.go")
    assert isinstance(outcome, Merged), outcome
    assert "var it" not in outcome.text
