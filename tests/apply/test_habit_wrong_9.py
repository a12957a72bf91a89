"""Wrong merges of sketches written in planners' habits (issue 17, round 9): a chunk whose
edges sit at the file's depth while the lines it re-indents anchor it at another, and the
lines a chunk ends with written again in front of the original's own copy."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused
from cursorish.apply.verify import verify_merge

# -- a chunk that re-indents the lines between its edges ---------------------------------------

STREAM = """\
export function readStream(event: Event): Stream | undefined {
  if (!event.hasBody) {
    return;
  }
  return (
    event.body ||
    new Stream({
      start: (sink) => {
        event.on("data", (piece) => {
          sink.push(piece);
        });
        event.on("end", () => {
          sink.close();
        });
      },
    })
  );
}

export function other(): number {
  return 1;
}
"""

# The nested `new Stream({...})` becomes the function's own return: the sketch writes it two
# columns shallower. Its lines match the original only at their old depth, while the chunk's
# first line (`}` closing the `if`) and last line (the function's `}`) sit where they were.
FLATTENED = """\
  // ... existing code ...
  }

  const body = event.body;
  if (body) {
    return body;
  }

  return new Stream({
    start: (sink) => {
      event.on("data", (piece) => {
        sink.push(piece);
      });
      event.on("end", () => {
        sink.close();
      });
    },
  });
}
// ... rest of the file unchanged ...
"""


def test_a_chunk_whose_edges_sit_at_their_own_depth_is_not_shifted_by_its_inner_anchors() -> None:
    outcome = merge(STREAM, FLATTENED, path="stream.ts")
    assert isinstance(outcome, Merged), outcome
    lines = outcome.text.splitlines()
    assert "  return new Stream({" in lines
    assert "    start: (sink) => {" in lines
    assert "  const body = event.body;" in lines
    assert "export function other(): number {" in lines


# -- the lines a chunk ends with, written again in front of the original's copy ----------------

DOCS = """\
impl Sampler {
    /// Draw one value.
    ///
    /// # Example
    ///
    /// ```
    /// let x = s.draw();
    /// ```
    fn draw(&mut self) -> u32 {
        self.next()
    }

    /// Draw many values.
    ///
    /// Note that this takes the sampler by value, so a borrowed
    /// sampler has to be passed as `&mut s` instead.
    ///
    /// # Example
    ///
    /// ```
    /// let v: Vec<u32> = s.draw_many().take(3).collect();
    /// ```
    fn draw_many(self) -> Many<Self> {
        Many(self)
    }
}
"""

# The merge wrote the chunk's new note and its closing `///`, `/// # Example`, `///` lines,
# then kept the old note and the original's own `/// # Example` lines after them.
DOCS_SKETCH = """\
// ... existing code ...
    /// Draw many values.
    ///
    /// Note: this consumes the sampler.
    ///
    /// # Example
    ///
// ... existing code ...
"""

WRITTEN_TWICE = DOCS.replace(
    """\
    /// Draw many values.
    ///
""",
    """\
    /// Draw many values.
    ///
    /// Note: this consumes the sampler.
    ///
    /// # Example
    ///
""",
)

REPLACED = DOCS.replace(
    """\
    /// Note that this takes the sampler by value, so a borrowed
    /// sampler has to be passed as `&mut s` instead.
""",
    """\
    /// Note: this consumes the sampler.
""",
)


def test_lines_a_chunk_ends_with_written_again_before_the_originals_copy_are_refused() -> None:
    reason = verify_merge(DOCS, DOCS_SKETCH, WRITTEN_TWICE, path="sampler.rs")
    assert reason is not None and "further on" in reason


def test_a_chunk_that_ends_on_the_originals_copy_passes() -> None:
    assert verify_merge(DOCS, DOCS_SKETCH, REPLACED, path="sampler.rs") is None


def test_the_deterministic_merge_does_not_write_the_tail_twice() -> None:
    outcome = merge(DOCS, DOCS_SKETCH, path="sampler.rs")
    if isinstance(outcome, Merged):
        assert outcome.text == REPLACED
    else:
        assert isinstance(outcome, Refused)
