"""Wrong merges of sketches written in planners' habits (issue 17, round 9): a chunk whose
edges sit at the file's depth while the lines it re-indents anchor it at another."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

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
