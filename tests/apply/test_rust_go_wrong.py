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
