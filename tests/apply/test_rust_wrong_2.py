"""Wrong merges of Rust sketches (round 4): doc-comment lines read as markers, a
`#[cfg(...)]` variant's attribute dropped while the other variant stays, a snippet's new
code put on one side of a blank line it does not show, a blank line between two pieces of a
snippet lost; and, refused before, a sketch without edge markers whose outermost line recurs,
and a comment paragraph cut short after a blank line."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.languages import detect_language
from cursorish.apply.markers import is_marker
from cursorish.apply.result import Merged, Refused
from cursorish.apply.verify.rust_variants import _ungated_variant

RUST = detect_language("lib.rs")

# --- doc comments are documentation, not markers ------------------------------------------

GAUGE = """\
/// A gauge that reads a level.
///
/// ```
/// let g = Gauge::new();
/// ...
/// assert_eq!(g.level(), 0);
/// ```
pub struct Gauge {
    level: u32,
}

impl Gauge {
    /// Equivalent to `Gauge { level: 0 }`.
    pub fn new() -> Self {
        Gauge { level: 0 }
    }
}
"""

# The whole struct's doc rewritten: its `/// ...` elides code in the documented example, and
# the HTML-tagged line holds `\\...` and the word "code" inside a tag.
GAUGE_DOCS = """\
/// A gauge that reads a level.
///
/// ```
/// let g = Gauge::new();
/// ...
/// assert_eq!(g.level(), 0);
/// ```
pub struct Gauge {
    level: u32,
}

impl Gauge {
    /// Equivalent to <code>Gauge { level: 0, \\... }</code>.
    pub fn new() -> Self {
        Gauge { level: 0 }
    }
}
"""


def test_rust_doc_comment_bare_dots_is_no_marker() -> None:
    assert not is_marker("/// ...", RUST)
    assert not is_marker("    //!     ...", RUST)
    assert is_marker("// ...", RUST)
    assert is_marker("/// ... existing docs ...", RUST)


def test_words_inside_markup_do_not_make_a_marker() -> None:
    assert not is_marker("/// Equivalent to <code>Gauge { level: 0, \\... }</code>.", RUST)
    assert not is_marker("// see `code...here`", RUST)
    assert is_marker("// ... existing code <b>here</b> ...", RUST)
    assert is_marker("// ... existing code ...", RUST)


def test_doc_lines_with_dots_merge_as_code() -> None:
    outcome = merge(GAUGE, GAUGE_DOCS, path="gauge.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == GAUGE_DOCS


# --- cfg variants -----------------------------------------------------------------------

VARIANTS = """\
/// Logs a line.
#[cfg(feature = "quiet")]
#[macro_export]
macro_rules! say {
    ($msg:expr) => {};
}

/// Logs a line.
#[cfg(not(feature = "quiet"))]
#[macro_export]
macro_rules! say {
    ($msg:expr) => {
        println!("{}", $msg)
    };
}

pub fn run() {
    say!("run");
}
"""

# The sketch shows the first variant without its cfg line and the second variant's body, so
# it replaces both with one macro; read as dropping the cfg line only, `say` clashes.
ONE_MACRO = """\
// ... existing code ...
/// Logs a line.
#[macro_export]
macro_rules! say {
    ($msg:expr) => {
        println!("{}", $msg)
    };
}
// ... existing code ...
"""


def test_dropping_one_cfg_variants_attribute_is_refused() -> None:
    outcome = merge(VARIANTS, ONE_MACRO, path="say.rs")
    assert isinstance(outcome, Refused), outcome


def test_ungated_variant_check() -> None:
    before = VARIANTS.splitlines()
    after = [line for line in before if line != '#[cfg(feature = "quiet")]']
    assert _ungated_variant(before, after, "rust") is not None
    # Both variants still gated, or only one left: fine; other languages are not checked.
    assert _ungated_variant(before, before, "rust") is None
    alone = before[:6] + before[15:]
    assert _ungated_variant(before, [x for x in alone if not x.startswith("#[cfg")], "rust") is None
    assert _ungated_variant(before, after, "go") is None


def test_ungated_clash_already_in_the_original_is_not_blamed() -> None:
    lines = ["fn f() {}", "", "#[cfg(test)]", "fn f() {}"]
    assert _ungated_variant(lines, [*lines, "", "fn g() {}"], "rust") is None


# --- snippets and the blank line between two original lines ------------------------------

STEPS = """\
use std::fmt;

pub struct Steps {
    count: usize,
}

impl Steps {
    pub fn run(&mut self) -> usize {
        let start = self.count;
        self.count += 1;

        if self.count > 10 {
            self.count = 0;
        }
        start
    }
}

impl fmt::Display for Steps {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} steps", self.count)
    }
}
"""

# New statements between `self.count += 1;` and the `if`, which a blank line separates: a
# snippet (no markers) drops blank lines at will, so they may go before or after the blank.
NEW_STATEMENTS = """\
        self.count += 1;
        log::debug!("step {}", self.count);

        if self.count > 10 {
            self.count = 0;
"""

# A comment right on the `if`: it belongs with the line it sits on, after the blank line.
NEW_COMMENT = """\
        self.count += 1;

        // wrap around past ten
        if self.count > 10 {
            self.count = 0;
"""


def test_snippet_code_next_to_a_blank_line_is_refused() -> None:
    outcome = merge(STEPS, NEW_STATEMENTS, path="steps.rs")
    assert isinstance(outcome, Refused), outcome
    assert "which a blank line separates" in outcome.reason


def test_snippet_comment_on_the_next_line_goes_after_the_blank_line() -> None:
    outcome = merge(STEPS, NEW_COMMENT, path="steps.rs")
    assert isinstance(outcome, Merged), outcome
    comment = "\n        // wrap around past ten"
    wanted = STEPS.replace("\n        if self.count > 10", comment + "\n        if self.count > 10")
    assert outcome.text == wanted


# --- a blank line between two chunks that the original holds back to back ----------------

CLEANUP = """\
use std::fs;
use std::io;

/// Removes a path, a file or an empty directory.
pub fn cleanup(path: &str) -> io::Result<()> {
    let info = fs::metadata(path)?;
    if info.is_dir() {
        return fs::remove_dir(path);
    }
    fs::remove_file(path)
}

/// Whether a path names a directory.
pub fn is_dir(path: &str) -> bool {
    fs::metadata(path).map(|info| info.is_dir()).unwrap_or(false)
}

/// The size of a file, or zero.
pub fn size(path: &str) -> u64 {
    fs::metadata(path).map(|info| info.len()).unwrap_or(0)
}
"""

# The snippet adds a log line and a blank line after it: the blank line splits it in two
# pieces that the original holds back to back, so it is new spacing, not a marker's.
LOGGED = """\
    if info.is_dir() {
        return fs::remove_dir(path);
    }
    log::debug!("removing {}", path);

    fs::remove_file(path)
"""


def test_blank_line_between_back_to_back_pieces_is_kept() -> None:
    outcome = merge(CLEANUP, LOGGED, path="cleanup.rs")
    assert isinstance(outcome, Merged), outcome
    logged = '    log::debug!("removing {}", path);\n\n'
    wanted = CLEANUP.replace("    fs::remove_file(path)\n", logged + "    fs::remove_file(path)\n")
    assert outcome.text == wanted


# --- a sketch without edge markers whose last line recurs ----------------------------------

STORE = """\
use std::fs;
use std::io;

fn load(path: &str) -> io::Result<String> {
    fs::read_to_string(path)
}

fn save(path: &str, text: &str) -> io::Result<()> {
    let text = text.trim();
    fs::write(path, text)?;
    flush_all()
}

fn exists(path: &str) -> bool {
    fs::metadata(path).is_ok()
}

fn remove(path: &str) -> io::Result<()> {
    fs::remove_file(path)?;
    flush_all()
}

fn size(path: &str) -> io::Result<u64> {
    Ok(fs::metadata(path)?.len())
}

fn touch(path: &str) -> io::Result<()> {
    fs::write(path, "")
}
"""

# No marker at either edge: the sketch leaves out the file's head and tail. Its last line,
# `flush_all()`, recurs, but it sits right after `fs::remove_file(path)?;`, found once, as in the
# file: it is held there.
TRIMMED = """\
fn save(path: &str, text: &str) -> io::Result<()> {
    let text = text.trim_end();
    fs::write(path, text)?;
    flush_all()
}
// ... existing code ...
fn remove(path: &str) -> io::Result<()> {
    let path = path.trim();
    fs::remove_file(path)?;
    flush_all()
"""

# `}` recurs everywhere: it holds on to nothing, even right next to a line found once...
CLOSER_LAST = """\
fn save(path: &str, text: &str) -> io::Result<()> {
    let text = text.trim_end();
    fs::write(path, text)?;
    flush_all()
}
// ... existing code ...
    let path = path.trim();
    Ok(fs::metadata(path)?.len())
}
"""

# ...but a `}` that closes the block whose opening line the chunk shows (found once) ends that
# block: no other copy of it is where the sketch stops (round 7, test_refusals_6).
CLOSER_OF_SHOWN = """\
fn save(path: &str, text: &str) -> io::Result<()> {
    let text = text.trim_end();
    fs::write(path, text)?;
    flush_all()
}
// ... existing code ...
fn size(path: &str) -> io::Result<u64> {
    let path = path.trim();
    Ok(fs::metadata(path)?.len())
}
"""


def test_recurring_edge_line_held_by_its_neighbour_leaves_the_edges_out() -> None:
    outcome = merge(STORE, TRIMMED, path="store.rs")
    assert isinstance(outcome, Merged), outcome
    wanted = STORE.replace("text.trim();", "text.trim_end();").replace(
        "    fs::remove_file(path)?;", "    let path = path.trim();\n    fs::remove_file(path)?;"
    )
    assert outcome.text == wanted


def test_recurring_closer_at_the_edge_holds_nothing() -> None:
    outcome = merge(STORE, CLOSER_LAST, path="store.rs")
    assert isinstance(outcome, Refused), outcome


def test_closer_of_a_shown_block_at_the_edge_leaves_the_tail_out() -> None:
    outcome = merge(STORE, CLOSER_OF_SHOWN, path="store.rs")
    assert isinstance(outcome, Merged), outcome
    wanted = STORE.replace("text.trim();", "text.trim_end();").replace(
        "    Ok(fs::metadata(path)?.len())",
        "    let path = path.trim();\n    Ok(fs::metadata(path)?.len())",
    )
    assert outcome.text == wanted


# --- a comment paragraph cut short after a blank line ------------------------------------

READER = """\
use std::io::Read;

pub struct Reader<R> {
    inner: R,

    // Bytes read but not yet handed out. The standard reader cannot give them back once
    // read, so the struct keeps them itself until the next call asks for more; a later
    // version of the standard library may offer a way to peek, and then this field and
    // the copying around it can go.
    pending: Vec<u8>,
}

impl<R: Read> Reader<R> {
    pub fn new(inner: R) -> Self {
        Reader { inner, pending: Vec::new() }
    }
}
"""

# The sketch shows the field's comment as one short line: it rewrites the whole paragraph
# that opens the same way, not a new line put under the old comment.
SHORT_COMMENT = """\
// ... existing code ...

    // Bytes read but not yet handed out.
    pending: Vec<u8>,
// ... existing code ...
"""


def test_comment_paragraph_rewritten_from_its_opening_words() -> None:
    outcome = merge(READER, SHORT_COMMENT, path="reader.rs")
    assert isinstance(outcome, Merged), outcome
    old = (
        "    // Bytes read but not yet handed out. The standard reader cannot give them back once\n"
        "    // read, so the struct keeps them itself until the next call asks for more; a later\n"
        "    // version of the standard library may offer a way to peek, and then this field and\n"
        "    // the copying around it can go.\n"
    )
    assert outcome.text == READER.replace(old, "    // Bytes read but not yet handed out.\n")
