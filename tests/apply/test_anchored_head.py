"""A chunk right after a marker opens on an original line held once: it starts there.

The chunk copies the doc comment above that line onto a new function further down; matched to
those doc lines instead, the chunk would write its first line anew and delete the kept doc
comment between the marker and it (`lazy_head`), and the verifier refuses such a result
(`verify/head_written_again`)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged
from cursorish.apply.verify import verify_merge

ORIGINAL = """\
use std::path::{Path, PathBuf};

pub struct CommandError;

fn other() -> u32 {
    1
}

/// Resolves a program to a path by searching for it in `PATH`.
///
/// If the program could not be resolved, then an error is returned.
///
/// The purpose of doing this instead of passing the path to the program
/// directly to Command::new is that Command::new will hand relative paths
/// to CreateProcess on Windows, which will implicitly search the current
/// working directory for the executable. This could be undesirable for
/// security reasons: running the tool on a tree nobody trusts could run
/// programs from that tree.
///
/// This could still return a relative path if PATH holds one: the user
/// set it explicitly, and thus desires this behavior.
///
/// On non-Windows, this is a no-op.
pub fn resolve_binary<P: AsRef<Path>>(
    prog: P,
) -> Result<PathBuf, CommandError> {
    use std::env;

    let prog = prog.as_ref();
    if !cfg!(windows) || prog.is_absolute() {
        return Ok(prog.to_path_buf());
    }
    match env::var_os("PATH") {
        Some(_) => Ok(prog.to_path_buf()),
        None => Err(CommandError),
    }
}
"""

# `resolve_binary` becomes a wrapper over a new `try_resolve_binary`, which gets the original
# body and most of the doc comment: the sketch shows the wrapper's header right after a marker.
SKETCH = """\
// ... keep existing code ...
pub fn resolve_binary<P: AsRef<Path>>(
    prog: P,
) -> Result<PathBuf, CommandError> {
    if !cfg!(windows) {
        return Ok(prog.as_ref().to_path_buf());
    }
    try_resolve_binary(prog)
}

/// Resolves a program to a path by searching for it in `PATH`.
///
/// If the program could not be resolved, then an error is returned.
///
/// The purpose of doing this instead of passing the path to the program
/// directly to Command::new is that Command::new will hand relative paths
/// to CreateProcess on Windows, which will implicitly search the current
/// working directory for the executable. This could be undesirable for
/// security reasons: running the tool on a tree nobody trusts could run
/// programs from that tree.
///
/// This could still return a relative path if PATH holds one: the user
/// set it explicitly, and thus desires this behavior.
fn try_resolve_binary<P: AsRef<Path>>(
    prog: P,
) -> Result<PathBuf, CommandError> {
    use std::env;

    let prog = prog.as_ref();
    if prog.is_absolute() {
// ... keep existing code ...
"""

WRAPPER = """\
    if !cfg!(windows) {
        return Ok(prog.as_ref().to_path_buf());
    }
    try_resolve_binary(prog)
}
"""


def _expected() -> str:
    doc_start = ORIGINAL.index("/// Resolves a program")
    doc_end = ORIGINAL.index("///\n/// On non-Windows")
    copied_doc = ORIGINAL[doc_start:doc_end]
    head, body = ORIGINAL.split("    use std::env;\n", 1)
    new_function = (
        "\n" + copied_doc + "fn try_resolve_binary<P: AsRef<Path>>(\n    prog: P,\n"
        ") -> Result<PathBuf, CommandError> {\n    use std::env;\n"
    )
    body = body.replace("if !cfg!(windows) || prog.is_absolute() {", "if prog.is_absolute() {")
    return head + WRAPPER + new_function + body


def test_a_chunk_starts_at_its_first_line_held_once_after_a_marker() -> None:
    outcome = merge(ORIGINAL, SKETCH, path="bin.rs")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == _expected()


def test_the_verifier_refuses_a_first_line_written_anew_over_its_deleted_copy() -> None:
    # The merge that matched the copied doc lines: the doc comment above `resolve_binary` is
    # gone and the header written again above the doc lines it kept.
    doc_start = ORIGINAL.index("/// Resolves a program")
    moved = _expected()
    kept_doc_end = moved.index("pub fn resolve_binary")
    wrong = moved[:doc_start] + moved[kept_doc_end:]
    problem = verify_merge(ORIGINAL, SKETCH, wrong, path="bin.rs")
    assert problem is not None
    assert "opens a chunk right after a marker" in problem


RESIZE = """\
package screen

func (s *Screen) Clear() {
	s.mu.Lock()
	s.buf.Clear()
	s.mu.Unlock()
}

func (s *Screen) Resize(w, h int) {
	s.mu.Lock()
	s.buf.Touched = nil

	s.scr.Resize(s.width, s.height)
	s.width, s.height = w, h
	s.mu.Unlock()
}
"""

# Two lines swapped, the chunk opening on the one moved up: every original line between the
# marker's last one and its old place is shown right after it, so nothing kept goes.
SWAP_SKETCH = """\
// ... unchanged code ...

	s.width, s.height = w, h
	s.scr.Resize(s.width, s.height)
	s.mu.Unlock()
// ... rest of the file unchanged ...
"""


def test_a_line_moved_up_over_its_neighbour_is_a_swap() -> None:
    outcome = merge(RESIZE, SWAP_SKETCH, path="screen.go")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == RESIZE.replace(
        "\ts.scr.Resize(s.width, s.height)\n\ts.width, s.height = w, h\n",
        "\ts.width, s.height = w, h\n\ts.scr.Resize(s.width, s.height)\n",
    )
