"""Rust and TypeScript specifics of the deterministic apply engine and its verifier."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

STORE = """\
export function makeStore(name: string) {
  const prefix = name.toUpperCase()
  return {
    read: (key: string) => {
      return localStorage.getItem(prefix + key)
    },
    write: (key: string, value: string) => {
      localStorage.setItem(prefix + key, value)
    },
  }
}

export function makeCounter() {
  let count = 0
  return {
    bump: () => {
      count += 1
    },
  }
}
"""

# The edit ends on the brackets that close the object and the function the gone lines sit
# in: the nearest copy of them is the one meant, not the second function's.
STORE_SKETCH = """\
// ... existing code ...
      return localStorage.getItem(prefix + key)
    },
    write: (key: string, value: string) =>
      localStorage.setItem(prefix + key, value),
  }
}
// ... existing code ...
"""


def test_closing_brackets_of_the_block_the_edit_sits_in_place_themselves() -> None:
    outcome = merge(STORE, STORE_SKETCH, path="store.ts")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == STORE.replace(
        "    write: (key: string, value: string) => {\n"
        "      localStorage.setItem(prefix + key, value)\n"
        "    },\n",
        "    write: (key: string, value: string) =>\n"
        "      localStorage.setItem(prefix + key, value),\n",
    )


ENTRIES = """\
export const shelf = () => {
  const books = [
    {
      title: "Dune",
      author: "Herbert",
      year: 1965,
    },
    {
      title: "Emma",
      author: "Austen",
      year: 1815,
    },
  ]
  return books
}
"""

# A new first entry: its `{` and `},` are bare brackets, so whether it replaces the old first
# entry or goes in before it is not told by the brackets.
ENTRIES_SKETCH = """\
export const shelf = () => {
  const books = [
    {
      title: "Ubik",
      author: "Dick",
      year: 1969,
    },
    {
      // ... existing code ...
"""


def test_bare_entry_brackets_do_not_place_a_replacement() -> None:
    outcome = merge(ENTRIES, ENTRIES_SKETCH, path="shelf.ts")
    assert isinstance(outcome, Refused), outcome
