"""Rust refusals (round 4): new code written before the closers of the block it follows,
where the sketch ends on the first of those closers and a marker keeps the rest."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

METER = """\
pub struct Meter {
    ticks: u64,
}

impl Meter {
    pub fn new() -> Self {
        Meter { ticks: 0 }
    }

    pub fn ticks(&self) -> u64 {
        self.ticks
    }
}

/// A meter that has not ticked yet.
///
/// Clocks start from one: a meter read before any tick reads zero,
/// and `ticks` counts from there.
pub fn zero() -> Meter {
    let meter = Meter::new();
    assert_eq!(meter.ticks(), 0);
    meter
}

pub struct Clock {
    meter: Meter,
}
"""

# A new impl after `ticks`: the sketch shows `ticks`'s closers, the new impl, and ends on the
# method-level `}` (the new `from`'s own closer) with the marker keeping the impl's `}`.
METER_FROM = """\
// ... existing code ...
    pub fn ticks(&self) -> u64 {
        self.ticks
    }
}

impl From<Meter> for u64 {
    fn from(m: Meter) -> Self {
        m.ticks
    }
// ... existing code ...
"""

EXPECTED = METER.replace(
    """        self.ticks
    }
}
""",
    """        self.ticks
    }
}

impl From<Meter> for u64 {
    fn from(m: Meter) -> Self {
        m.ticks
    }
}
""",
    1,
)


def test_new_code_before_the_closers_ends_on_them() -> None:
    outcome = merge(METER, METER_FROM, path="meter.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == EXPECTED


# The same sketch in a brace language other than Rust (the rule is about brackets only).
GAUGE_JS = """\
class Gauge {
  constructor() {
    this.level = 0;
  }

  read() {
    return this.level;
  }
}

module.exports = { Gauge };
"""

GAUGE_JS_SKETCH = """\
// ... existing code ...
  read() {
    return this.level;
  }
}

class Dial {
  turn() {
    return 1;
  }
// ... existing code ...
"""


def test_the_same_in_javascript() -> None:
    outcome = merge(GAUGE_JS, GAUGE_JS_SKETCH, path="gauge.js")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == GAUGE_JS.replace(
        "    return this.level;\n  }\n}\n",
        "    return this.level;\n  }\n}\n\nclass Dial {\n  turn() {\n    return 1;\n  }\n}\n",
    )


# New lines that close what they open: the chunk's closer is new code's own, the matched run
# stays where it is and nothing moves.
METER_CLOSED = """\
// ... existing code ...
    pub fn ticks(&self) -> u64 {
        self.ticks
    }
}

fn helper() -> u64 {
    1
}
// ... existing code ...
"""


def test_new_code_closing_its_own_blocks_is_left_alone() -> None:
    outcome = merge(METER, METER_CLOSED, path="meter.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == METER.replace(
        "        self.ticks\n    }\n}\n",
        "        self.ticks\n    }\n}\n\nfn helper() -> u64 {\n    1\n}\n",
        1,
    )


# Twin methods in two impls: the sketch shows one without a line the other copy has. Read at
# the copy that already lacks it, the sketch changes nothing; the one reading that edits the
# file is meant.
TWINS = """\
impl Source for Local {
    fn origin(&self) -> Option<&str> {
        Some(&self.path)
    }

    fn describe(&self, out: &mut Report) {
        self.inner.describe(out);
    }
}

impl Source for Remote {
    fn origin(&self) -> Option<&str> {
        Some(self.url.as_str())
    }

    fn describe(&self, out: &mut Report) {
        out.note(self.url.as_str());
        self.inner.describe(out);
    }
}
"""

TWINS_SKETCH = """\
    // ... existing code ...
    fn describe(&self, out: &mut Report) {
        self.inner.describe(out);
    // ... existing code ...
"""


def test_the_one_reading_that_edits_the_file_is_meant() -> None:
    outcome = merge(TWINS, TWINS_SKETCH, path="source.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == TWINS.replace("        out.note(self.url.as_str());\n", "")


def test_two_readings_that_edit_the_file_stay_a_tie() -> None:
    three = TWINS + "\n" + TWINS.replace("Local", "Cached").replace("Remote", "Mirror")
    outcome = merge(three, TWINS_SKETCH, path="source.rs")
    assert not isinstance(outcome, Merged) or outcome.text == three, outcome
