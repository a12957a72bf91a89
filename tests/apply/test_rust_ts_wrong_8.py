"""Wrong merges of Rust and TypeScript code, eighth round: causes found on set 12, each with a
made-up example."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

EVENTS = """\
import { noop } from './shared'

export function load(path: string) {
  return read(path)
}

export function save(path: string, data: string) {
  return write(path, data)
}

export function drop(path: string) {
  return remove(path)
}

const onOpen = (hasWindow && addEventListener) || noop
const onClose = (hasWindow && removeEventListener) || noop
const onFocus = hasWindow ? focus : noop

export function watch() {
  onOpen('x', noop)
}
"""

WRAPPED = """\
const onOpen = hasWindow
  ? (...args: Parameters<typeof addEventListener>) => addEventListener(...args)
  : noop
const onClose = hasWindow
  ? (...args: Parameters<typeof removeEventListener>) => removeEventListener(...args)
  : noop
"""


def test_rewritten_definitions_the_file_glues_stay_glued() -> None:
    # A sketch without blank lines rewrites two one-line constants, glued in the original, over
    # several lines each: the file spaces its functions apart, but these two it glues, and
    # rewriting them does not change that.
    sketch = "// ... existing code ...\n" + WRAPPED + "const onFocus = hasWindow ? focus : noop\n"
    sketch += "// ... existing code ...\n"
    old = (
        "const onOpen = (hasWindow && addEventListener) || noop\n"
        "const onClose = (hasWindow && removeEventListener) || noop\n"
    )
    outcome = merge(EVENTS, sketch, path="src/events.ts")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == EVENTS.replace(old, WRAPPED)
