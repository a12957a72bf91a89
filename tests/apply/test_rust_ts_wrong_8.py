"""Wrong merges of Rust and TypeScript code, eighth round: causes found on set 12, each with a
made-up example."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.languages import detect_language
from cursorish.apply.lazy_rivals import _only_parsing
from cursorish.apply.lazy_sketch import Merge
from cursorish.apply.lines import SourceFile
from cursorish.apply.result import Merged, Refused
from cursorish.apply.syntax import new_errors

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


LIMITS = """\
use std::cmp;

fn limit(n: usize) -> usize {
    cmp::min(n, 10)
}

#[test]
fn test_other() {
    assert_eq!(limit(0), 0);
}

#[test]
fn test_limit() {
    use std::usize::MAX;
    let cap = limit(3);
    assert_eq!(cap, 3);
    let big = limit(MAX);
    assert!(big <= 10, "limit too high: {}", big);
}
"""


def test_a_new_test_named_after_an_old_one_is_no_rename_of_it() -> None:
    # `test_limit_of_zero` shares lines with `test_limit` and only lengthens its name: a
    # variant written beside it as well as a rename, so the merge does not delete the old one
    # on that guess.
    sketch = (
        "// ... existing code ...\n"
        "\n"
        "#[test]\n"
        "fn test_limit_of_zero() {\n"
        "    use std::usize::MAX;\n"
        "    let big = limit(MAX - 1);\n"
        '    assert!(big <= 10, "limit too high: {}", big);\n'
        "}\n"
    )
    outcome = merge(LIMITS, sketch, path="src/limit.rs")
    assert not isinstance(outcome, Merged) or "fn test_limit() {" in outcome.text
    if isinstance(outcome, Refused):
        assert "test_limit" in outcome.reason


HOOK = """\
export interface Hook {
  (
    key: string,
    options?: Options<
      Data
    >
  ): Response<Data>
  (
    key: string,
    options?: Options<
      Data
    > & { strict: true }
  ): Response<Data>
  (
    key: string,
    options?: Options<
      Data
    > & { strict: false }
  ): Response<Data> | undefined
}
"""


def test_a_new_line_that_extends_a_removed_one_is_an_edit_of_it_too() -> None:
    # `> & { strict?: boolean }` may extend the bare `>` of the first signature as well as
    # rewrite `> & { strict: true }` of the second: both readings edit what they remove, so
    # neither wins the tie.
    sketch = (
        "// ... existing code ...\n"
        "      Data\n"
        "    > & { strict?: boolean }\n"
        "  ): Response<Data>\n"
        "// ... existing code ...\n"
    )
    outcome = merge(HOOK, sketch, path="src/hook.ts")
    assert isinstance(outcome, Refused), outcome


LOADER = """\
function load(config: Config) {
  const cache = create(
    provider(config.cache || defaultCache),
    config
  )
  if (cache) {
    config.cache = cache
  }
  return config
}
"""


def test_the_only_reading_that_parses_does_not_win_by_copying_a_kept_line() -> None:
    # The broken reading matches the sketch's `provider(...)` to the original line; the one
    # that parses writes it anew over the `if` block and keeps the original's copy too: the
    # sketch's copy stands for the original one, so parsing alone does not make that reading
    # the edit.
    source = SourceFile.from_text(LOADER)
    lines = source.lines
    new = [
        "  const ref = create(",
        "    provider(config.cache || defaultCache),",
        "    config",
        "  )",
    ]
    broken_rows = [lines[0], new[0], lines[1], lines[2], new[2], new[3], *lines[3:]]
    broken = Merge([(x, None) for x in broken_rows], deleted=[], added=[new[0], *new[2:]])
    parsing = Merge([(x, None) for x in lines[:5] + new + lines[8:]], deleted=[5, 6, 7], added=new)
    readings = {source.render(m.pieces): (m, "a tie") for m in (broken, parsing)}
    assert new_errors(LOADER, source.render(broken.pieces), "typescript")
    assert _only_parsing(source, readings, detect_language("src/loader.ts")) is None
