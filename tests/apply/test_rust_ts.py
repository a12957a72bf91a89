"""Rust and TypeScript specifics of the deterministic apply engine and its verifier."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused
from cursorish.apply.verify.depth import _repasted
from cursorish.apply.verify.rust_uses import _orphaned_binding
from cursorish.apply.verify.ts_imports import _orphaned_ts_import

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

# A new first entry: its `{` and `},` are bare brackets, so the brackets alone do not tell
# whether it replaces the old first entry or goes in before it; the separator (`},` `{`) the
# sketch writes after it does: a new entry goes in, the old one stays (lazy_entries).
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
    assert isinstance(outcome, Merged), outcome
    new = '    {\n      title: "Ubik",\n      author: "Dick",\n      year: 1969,\n    },\n'
    assert outcome.text == ENTRIES.replace("  const books = [\n", "  const books = [\n" + new)


CACHE_RS = """\
use std::collections::HashMap;
use std::sync::Mutex;

pub struct Cache;

static TABLE: Mutex<Vec<u8>> = Mutex::new(Vec::new());

fn lookup(key: &str) -> usize {
    let map: HashMap<&str, usize> = HashMap::new();
    map.get(key).copied().unwrap_or(TABLE.lock().unwrap().len())
}
"""

# The sketch drops the `Mutex` import (the static goes, its deletion not shown): keeping the
# static under the marker would leave `Mutex` unbound.
CACHE_SKETCH = """\
use std::collections::HashMap;

pub struct Cache;
// ... existing code ...
fn lookup(key: &str) -> usize {
    let map: HashMap<&str, usize> = HashMap::new();
    map.get(key).copied().unwrap_or(0)
}
"""


def test_rust_import_removed_while_the_file_still_uses_it_is_refused() -> None:
    outcome = merge(CACHE_RS, CACHE_SKETCH, path="cache.rs")
    assert isinstance(outcome, Refused)
    assert "removes the import of 'Mutex'" in outcome.reason


def test_rust_import_moved_into_the_function_that_uses_it_is_not_doubted() -> None:
    before = ["use std::fmt::Write;", "", "fn show(out: &mut String) {", "    out.push('x');", "}"]
    after = [
        "fn show(out: &mut String) {",
        "    use std::fmt::Write;",
        "    write!(out, 'x').ok();",
        "    let _ = Write::write_str;",
        "}",
    ]
    assert _orphaned_binding(before, after, "rust") is None
    stays = ["fn keep(w: &mut dyn Write) {}", *after]
    reason = _orphaned_binding(before, stays, "rust")
    assert reason is not None and "'Write'" in reason


def test_a_chunk_that_rewrites_the_lines_it_replaces_at_another_depth_is_doubted() -> None:
    before = [
        "export function wire(api) {",
        "  api.onSave = () => {",
        "    const next = api.read()",
        "    if (next) {",
        "      api.store(next)",
        "    }",
        "  }",
        "}",
    ]
    # A snippet pasted flush left, written in place of the lines it repeats.
    after = [
        *before[:3],
        "if (next) {",
        "  api.store(next)",
        "  api.log(next)",
        "}",
        *before[6:],
    ]
    old_of = [0, 1, 2, -1, -1, -1, -1, 6, 7]
    reason = _repasted(before, after, old_of, [(3, 6)])
    assert reason is not None and "another indentation" in reason
    # The same edit at the file's depth: nothing to doubt (its lines are new or kept).
    deep = [
        *before[:3],
        "    if (next) {",
        "      api.store(next)",
        "      api.log(next)",
        *before[5:],
    ]
    assert _repasted(before, deep, [0, 1, 2, 3, 4, -1, 5, 6, 7], [(3, 6)]) is None


LIBS = """\
export const libraries = [
  {
    name: "alpha",
    url: "https://alpha.example",
    stars: 10,
  },
  {
    name: "beta",
    url: "https://beta.example",
    stars: 20,
  },
]
"""

# A new entry after "alpha": its `{` and `},` are bare brackets, so the new fields could
# replace beta's (the file's next `{` ... `},`) as well as go in before it.
LIBS_SKETCH = """\
// ... existing code ...
    stars: 10,
  },
  {
    name: "gamma",
    url: "https://gamma.example",
    stars: 30,
  },
// ... existing code ...
"""


def test_new_fields_between_bare_entry_brackets_do_not_replace_the_next_entry() -> None:
    outcome = merge(LIBS, LIBS_SKETCH, path="libs.ts")
    if isinstance(outcome, Merged):
        assert "beta" in outcome.text  # inserted, never written over the next entry
    else:
        assert "bracket lines" in outcome.reason


POLYFILL_TS = """\
import fetch from 'node-fetch'
import type { Client } from './client'

// older runtimes have no global fetch
globalThis.fetch ??= fetch

export function connect(client: Client) {
  return client.open()
}
"""

# The sketch drops the `fetch` import (the polyfill goes, its deletion not shown): keeping the
# polyfill under the marker would leave `fetch` unbound.
POLYFILL_SKETCH = """\
import type { Client } from './client'
// ... existing code ...
export function connect(client: Client) {
  return client.open(true)
}
"""


def test_ts_import_removed_while_top_level_code_still_uses_it_is_refused() -> None:
    outcome = merge(POLYFILL_TS, POLYFILL_SKETCH, path="connect.ts")
    assert isinstance(outcome, Refused)
    assert "removes the import of 'fetch'" in outcome.reason


def test_ts_import_replaced_by_a_destructuring_or_hidden_by_a_parameter_is_not_doubted() -> None:
    before = ["import { useStore } from 'zustand'", "", "export const a = useStore"]
    after = ["const { useStore } = shim", "", "export const a = useStore"]
    assert _orphaned_ts_import(before, after, "typescript") is None
    # Inside a function a parameter may hide the name: only top-level lines are read.
    inner = ["export function f(useStore: number) {", "  return useStore", "}"]
    assert _orphaned_ts_import(before, inner, "typescript") is None
