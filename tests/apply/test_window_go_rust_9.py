"""Window-style refusals of round 9 (helper h82): a sketch that deletes a helper together with
the last call of it, shown by the closing brace of the definition before the helper and the
line after it written next to each other. A lone `}` could close any block, so it counts only
with the kept lines that lead from it back to a telling line, all shown in the sketch."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

CHECKS = """\
package rules

import "strings"

// Check reports whether the name is allowed.
func Check(name string) bool {
	if blank(name) {
		return false
	}
	return !strings.HasPrefix(name, "_")
}

func blank(name string) bool {
	trimmed := strings.TrimSpace(name)
	return trimmed == ""
}

// Normalize lowers the name.
func Normalize(name string) string {
	return strings.ToLower(name)
}
"""

CHECKS_SKETCH = """\
// ... existing code ...
func Check(name string) bool {
	if strings.TrimSpace(name) == "" {
		return false
	}
	return !strings.HasPrefix(name, "_")
}

// Normalize lowers the name.
// ... existing code ...
"""

CHECKS_EXPECTED = """\
package rules

import "strings"

// Check reports whether the name is allowed.
func Check(name string) bool {
	if strings.TrimSpace(name) == "" {
		return false
	}
	return !strings.HasPrefix(name, "_")
}

// Normalize lowers the name.
func Normalize(name string) string {
	return strings.ToLower(name)
}
"""


def test_a_helper_dropped_with_its_last_call_between_shown_lines_merges() -> None:
    outcome = merge(CHECKS, CHECKS_SKETCH, path="rules.go")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == CHECKS_EXPECTED


def test_a_marker_between_the_shown_lines_keeps_the_deletion_unclear() -> None:
    sketch = CHECKS_SKETCH.replace("}\n\n// Normalize", "}\n// ... existing code ...\n// Normalize")
    outcome = merge(CHECKS, sketch, path="rules.go")
    assert not (isinstance(outcome, Merged) and outcome.text == CHECKS_EXPECTED), outcome


SPANS = """\
pub fn total(items: &[Item]) -> u64 {
    let mut sum = 0;
    for item in items {
        if counted(item) {
            sum += item.size;
        }
    }
    sum
}

fn counted(item: &Item) -> bool {
    item.size > 0 && !item.hidden
}

pub fn largest(items: &[Item]) -> Option<&Item> {
    items.iter().max_by_key(|item| item.size)
}
"""

SPANS_SKETCH = """\
// ... existing code ...
    for item in items {
        if item.size > 0 && !item.hidden {
            sum += item.size;
        }
    }
    sum
}

pub fn largest(items: &[Item]) -> Option<&Item> {
// ... existing code ...
"""


def test_a_run_of_closing_lines_back_to_a_telling_line_places_the_deletion() -> None:
    outcome = merge(SPANS, SPANS_SKETCH, path="spans.rs")
    assert isinstance(outcome, Merged), outcome
    expected = SPANS.replace("if counted(item) {", "if item.size > 0 && !item.hidden {")
    expected = expected.replace(
        "fn counted(item: &Item) -> bool {\n    item.size > 0 && !item.hidden\n}\n\n", ""
    )
    assert outcome.text == expected


def test_a_helper_still_called_elsewhere_is_not_dropped() -> None:
    user = "\npub fn any_counted(items: &[Item]) -> bool {\n    items.iter().any(counted)\n}\n"
    source = SPANS + user
    outcome = merge(source, SPANS_SKETCH, path="spans.rs")
    assert isinstance(outcome, Refused) or "fn counted" in outcome.text, outcome
