"""TypeScript and TSX (issue 17, round 5): rules about TypeScript code and sketches."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused
from cursorish.apply.syntax import new_errors

# A sketch without any blank line writes a new interface right after the import lines it
# edits, where the original has a blank line before its first function: the blank line the
# original keeps there ends up under the interface, and whether one should also set the
# interface apart from the imports the sketch cannot say.
STORE = """\
import { Store } from './store'
import { Reader } from './reader'

export function open(store: Store): Reader {
  return store.reader()
}

export function close(store: Store): void {
  store.close()
}

export function flush(store: Store): void {
  store.flush()
}
"""

STORE_SKETCH = """\
import { Store, Options } from './store'
import { Reader, Opened } from './reader'
interface Handle {
  reader: Opened
}
// ... existing code ...
  return store.reader()
}
export function close(store: Store): void {
  store.close()
}
export function flush(store: Store): void {
// ... existing code ...
"""


def test_a_blankless_sketch_starting_a_statement_before_a_blank_line_is_refused() -> None:
    result = merge(STORE, STORE_SKETCH, path="store.ts")
    assert isinstance(result, Refused)
    assert "top-level statement" in result.reason


def test_a_blankless_sketch_growing_code_inside_a_block_before_a_blank_line_merges() -> None:
    sketch = STORE_SKETCH.replace("interface Handle {\n  reader: Opened\n}\n", "").replace(
        "  store.close()\n", "  store.flush()\n  store.close()\n"
    )
    result = merge(STORE, sketch, path="store.ts")
    assert isinstance(result, Merged)


# Overloads: the sketch writes a new first overload, copied from the one below it but without
# its `options` parameter, under the type it follows, and a marker keeps the rest. Read as an
# edit of the old overload, the merge would delete that overload's doc comment on its own.
OVERLOADS = """\
export type Options = {
  name?: string
}

/**
 * @deprecated Pass the name in an object instead.
 */
export function connect(
  url: string,
  retries: number,
  options?: string
): Client
export function connect(
  url: string,
  retries: number,
  options?: Options
): Client
export function connect(
  url: string,
  retries: number,
  options?: string | Options
): Client {
  return new Client(url, retries, typeof options === "string" ? { name: options } : options)
}
"""

OVERLOADS_SKETCH = """\
// ... existing code ...
export type Options = {
  name?: string
}

export function connect(
  url: string,
  retries: number
): Client
// ... existing code ...
"""


def test_a_doc_comment_deleted_alone_between_kept_lines_is_refused() -> None:
    result = merge(OVERLOADS, OVERLOADS_SKETCH, path="connect.ts")
    assert isinstance(result, Refused)
    assert "doc comment" in result.reason


def test_a_doc_comment_the_sketch_shows_above_the_edited_overload_stands() -> None:
    # Shown above the edited overload, the comment is no deletion.
    sketch = """\
// ... existing code ...
  name?: string
}

/**
 * @deprecated Pass the name in an object instead.
 */
export function connect(
  url: string,
  retries: number
): Client
// ... existing code ...
"""
    result = merge(OVERLOADS, sketch, path="connect.ts")
    assert isinstance(result, Merged)
    assert "options?: string\n" not in result.text


# A member too long for one line after the edit is wrapped by the formatter: its first line
# (`onLoad?: (`) starts like the original line, the lines after it wrap the rest, and the
# only unchanged lines around it are a doc comment's `*/` and the next one's `/**`.
HOOKS = """\
export interface Hooks<T> {
  /**
   * Called before a request.
   */
  before?: (request: Request) => void
  /**
   * Called once the response arrived.
   */
  onLoad?: (response: Response, attempt: number) => T | Promise<T>
  /**
   * Called when the request failed.
   */
  onError?: (error: Error) => void
}
"""

HOOKS_SKETCH = """\
// ... existing code ...
   */
  onLoad?: (
    response: Response,
    attempt: number,
  ) => Parsed<T> | Promise<Parsed<T>>
  /**
// ... existing code ...
"""


def test_an_edited_line_wrapped_over_several_lines_replaces_its_original() -> None:
    result = merge(HOOKS, HOOKS_SKETCH, path="hooks.ts")
    assert isinstance(result, Merged)
    assert result.text == HOOKS.replace(
        "  onLoad?: (response: Response, attempt: number) => T | Promise<T>\n",
        "  onLoad?: (\n    response: Response,\n    attempt: number,\n"
        "  ) => Parsed<T> | Promise<Parsed<T>>\n",
    )


def test_wrapped_lines_that_read_as_another_line_are_no_edit_of_it() -> None:
    # The wrapped line joined reads nothing like `onLoad`'s: it is new code, placed by nothing.
    sketch = HOOKS_SKETCH.replace("    response: Response,\n    attempt: number,\n", "    x,\n")
    sketch = sketch.replace("Parsed<T> | Promise<Parsed<T>>", "Stream")
    assert isinstance(merge(HOOKS, sketch, path="hooks.ts"), Refused)


# A callable interface gains a generic call signature right under a plain one. tree-sitter's
# TypeScript grammar reads `(): T` and `<U>(...)` on the next line as the one type `T<U>`;
# TypeScript reads no type arguments after a line break, so the merged file is fine.
READER = """\
import { Store } from './store'

interface Reader<T> {
  (): T
}

export function reader<T>(store: Store<T>): Reader<T> {
  return () => store.get()
}
"""

READER_SKETCH = """\
// ... existing code ...
interface Reader<T> {
  (): T
  <U>(pick: (value: T) => U): U
}
// ... existing code ...
"""


def test_a_generic_call_signature_under_a_member_is_no_syntax_error() -> None:
    result = merge(READER, READER_SKETCH, path="reader.ts")
    assert isinstance(result, Merged)
    assert result.text == READER.replace("  (): T\n", "  (): T\n  <U>(pick: (value: T) => U): U\n")


def test_real_errors_beside_a_generic_call_signature_still_count() -> None:
    broken = READER.replace("  (): T\n}\n", "  (): T\n  <U>(pick: (value: T) => U): U\n")
    assert new_errors(READER, broken, "typescript") is not None
    # An unbalanced signature is an error as before.
    unbalanced = READER_SKETCH.replace("<U>(", "<U>((")
    assert isinstance(merge(READER, unbalanced, path="reader.ts"), Refused)
