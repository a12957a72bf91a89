"""Wrong merges of Rust and Go sketches that the deterministic engine now refuses."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

MARKER = """\
pub struct Marker {
    label: String,
    offset: usize,
}

impl Marker {
    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn describe(&self) -> String {
        format!(
            "{} at {}",
            self.label.trim(),
            self.offset,
        )
    }
}

impl Default for Marker {
    fn default() -> Self {
        Marker { label: String::new(), offset: 0 }
    }
}
"""

# After a marker, the chunk opens on a bare `}`: it may close `label` (and rename `describe`
# into `summary`, whose body it resembles) or close `describe` (and add `summary` after it).
CLOSER_LED = """\
// ... existing code ...
impl Marker {
    // ... existing code ...
    }

    pub fn summary(&self) -> String {
        format!(
            "{} near {}",
            self.label.trim(),
            self.offset,
        )
    }
}
// ... existing code ...
"""


def test_closer_led_chunk_read_as_a_rename_is_refused() -> None:
    outcome = merge(MARKER, CLOSER_LED, path="marker.rs")
    assert isinstance(outcome, Refused), outcome
    assert "renaming a definition" in outcome.reason


def test_new_function_shown_after_the_one_it_follows_still_merges() -> None:
    sketch = """\
// ... existing code ...
    pub fn describe(&self) -> String {
        format!(
            "{} at {}",
            self.label.trim(),
            self.offset,
        )
    }

    pub fn summary(&self) -> String {
        format!(
            "{} near {}",
            self.label.trim(),
            self.offset,
        )
    }
}
// ... existing code ...
"""
    outcome = merge(MARKER, sketch, path="marker.rs")
    assert isinstance(outcome, Merged), outcome
    assert "pub fn describe(&self)" in outcome.text
    assert "pub fn summary(&self)" in outcome.text


CACHE = """\
//! A small cache.
//!
//! Entries live in a map keyed by their name. The cache evicts the oldest entry
//! once it holds more than [`LIMIT`] entries, and
//! [`Cache::touch`] moves an entry to the front so that it is kept longer than
//! the others.
//!
//! Nothing here is thread safe.

pub const LIMIT: usize = 64;
"""

# The paragraph is reflowed: its last new line ends where the old paragraph ended, so the
# old lines after the last shown one are the ones the new lines replace.
REFLOW = """\
//! A small cache.
//!
//! Entries live in a map keyed by their name. The cache evicts the oldest entry
//! once it holds more than [`LIMIT`] entries, and [`Cache::touch`] moves an
//! entry to the front so that it is kept longer than the others.
// ... rest of the file unchanged ...
"""


def test_reflowed_comment_paragraph_at_a_marker_replaces_the_old_one() -> None:
    outcome = merge(CACHE, REFLOW, path="cache.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text.count("the others.") == 1
    assert "//! entry to the front so that it is kept longer than the others.\n//!\n" in (
        outcome.text
    )


def test_new_comment_line_at_a_marker_keeps_the_rest_of_the_paragraph() -> None:
    sketch = """\
//! A small cache.
//!
//! Entries live in a map keyed by their name. Names are case sensitive.
// ... rest of the file unchanged ...
"""
    outcome = merge(CACHE, sketch, path="cache.rs")
    if isinstance(outcome, Merged):
        assert "[`Cache::touch`] moves an entry" in outcome.text


REGISTRY = """\
package registry

import "strings"

type Registry struct {
	defaults  map[string]string
	overrides map[string]string
	aliases   map[string]string
}

// Keys lists every key the registry knows, lower-cased.
func (r *Registry) Keys() []string {
	m := map[string]struct{}{}
	for key := range r.defaults {
		m[strings.ToLower(key)] = struct{}{}
	}

	for key := range r.overrides {
		m[strings.ToLower(key)] = struct{}{}
	}

	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}
"""

# The chunk opens on a loop body both loops hold: the marker may end after the first loop
# (the second one replaced) or after the second (a third loop added).
REPEATED_OPENER = """\
// ... existing code ...
func (r *Registry) Keys() []string {
	// ... existing code ...
		m[strings.ToLower(key)] = struct{}{}
	}

	for key := range r.aliases {
		m[strings.ToLower(key)] = struct{}{}
	}

	out := []string{}
	// ... existing code ...
"""


def test_chunk_opening_on_a_line_two_loops_hold_is_refused() -> None:
    outcome = merge(REGISTRY, REPEATED_OPENER, path="registry.go")
    assert isinstance(outcome, Refused), outcome
    assert "recurs" in outcome.reason


def test_chunk_opening_on_the_telling_loop_header_still_merges() -> None:
    sketch = """\
// ... existing code ...
	for key := range r.overrides {
		m[strings.ToLower(key)] = struct{}{}
	}

	for key := range r.aliases {
		m[strings.ToLower(key)] = struct{}{}
	}

	out := []string{}
	// ... existing code ...
"""
    outcome = merge(REGISTRY, sketch, path="registry.go")
    assert isinstance(outcome, Merged), outcome
    assert "range r.overrides" in outcome.text
    assert "range r.aliases" in outcome.text
