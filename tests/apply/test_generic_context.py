"""Wrong merges where a chunk's context before its edit is generic (`}` and a blank line) and
matches more than one place under the marker before it: the copy that leaves an original line
right beside the chunk's own edited version of it is not where the chunk starts."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

# The chunk's `}` matches the end of `if (cached)` and the end of `if (entry === root)`; read
# at the later one, the old `if (entry === root) {` stays just above the chunk that writes it
# again as `if (entry === root && !entry.id) {` further down.
ORIGINAL = """\
export function makeRef(entry: Entry, root: Entry, cache: Map<string, Ref>) {
  const refFor = (name: string): Ref => {
    const cached = cache.get(name);
    if (cached) {
      return cached;
    }

    if (entry === root) {
      return { ref: "#" };
    }

    // self-contained schema
    const prefix = `#`;
    const defPrefix = `${prefix}/defs/`;
    const defId = entry.id ?? `schema${counter++}`;
    return { defId, ref: defPrefix + defId };
  };
  return refFor;
}
"""

SKETCH = """\
export function makeRef(entry: Entry, root: Entry, cache: Map<string, Ref>) {
  // ... existing code ...
    }

    const prefix = `#`;
    const defPrefix = `${prefix}/defs/`;

    // an id-less root stays inline
    if (entry === root && !entry.id) {
      return { ref: prefix };
    }

    // self-contained schema
    const defId = entry.id ?? `schema${counter++}`;
    return { defId, ref: defPrefix + defId };
  };
  // ... existing code ...
"""

EXPECTED = """\
export function makeRef(entry: Entry, root: Entry, cache: Map<string, Ref>) {
  const refFor = (name: string): Ref => {
    const cached = cache.get(name);
    if (cached) {
      return cached;
    }

    const prefix = `#`;
    const defPrefix = `${prefix}/defs/`;

    // an id-less root stays inline
    if (entry === root && !entry.id) {
      return { ref: prefix };
    }

    // self-contained schema
    const defId = entry.id ?? `schema${counter++}`;
    return { defId, ref: defPrefix + defId };
  };
  return refFor;
}
"""


def test_a_generic_closer_starts_where_the_line_the_chunk_extends_goes() -> None:
    outcome = merge(ORIGINAL, SKETCH, path="refs.ts")
    assert isinstance(outcome, Merged)
    assert outcome.text == EXPECTED
