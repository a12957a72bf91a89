"""TypeScript and TSX (issue 17, round 6): rules found on a fresh set of TypeScript projects."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.languages import detect_language
from cursorish.apply.markers import is_marker
from cursorish.apply.result import Merged, Refused

IMPORTS = """\
import { tokens } from './tokens'
import { parse} from './parse';
import { render } from './render'
import { format } from './format'

export function run(text: string): string {
  return format(render(parse(tokens(text))))
}
"""


def test_an_edited_last_import_before_a_marker_rewrites_one_import_not_two() -> None:
    # The chunk's last line edits the import after its match; the import after that one looks
    # like it too (`import { ... } from '...'`) but stays under the marker.
    sketch = """\
import { tokens } from './tokens'
import { parse } from './parse'
// ... rest of the file unchanged ...
"""
    result = merge(IMPORTS, sketch, path="run.ts")
    assert isinstance(result, Merged)
    assert result.text == IMPORTS.replace("import { parse} from './parse';", sketch.split("\n")[1])


def test_a_new_import_before_a_marker_replaces_no_import_of_another_module() -> None:
    # Two imports of other modules binding other names read alike (`import { x } from './y'`)
    # but neither is an edit of the other: the new one goes in, the next one stays.
    sketch = """\
// ... existing code ...
import { tokens } from './tokens'
import { lexer } from './lexers'
// ... rest of the file unchanged ...
"""
    result = merge(IMPORTS, sketch, path="run.ts")
    assert isinstance(result, Merged)
    assert result.text == IMPORTS.replace(
        "import { tokens } from './tokens'\n",
        "import { tokens } from './tokens'\nimport { lexer } from './lexers'\n",
    )


def test_an_import_moved_to_another_module_still_replaces_its_original() -> None:
    # The same name imported from another module: an edit of the old import line.
    sketch = """\
// ... existing code ...
import { tokens } from './tokens'
import { parse } from './parser'
// ... rest of the file unchanged ...
"""
    result = merge(IMPORTS, sketch, path="run.ts")
    assert isinstance(result, Merged)
    assert result.text == IMPORTS.replace("import { parse} from './parse';", sketch.split("\n")[2])


CLOCK = """\
import { now } from './time'

const fallback =
  typeof performance !== 'undefined'
    ? () => performance.now()
    : now

interface Sample {
  at: number
}

export function measure(): Sample {
  return { at: fallback() }
}

export function stamp(): number {
  return now()
}
"""


def test_an_unexported_const_left_without_its_last_use_is_refused() -> None:
    # The sketch inlines the const's value; a marker keeps the const, whose last use went.
    sketch = """\
// ... existing code ...
export function measure(): Sample {
  return { at: typeof performance !== 'undefined' ? performance.now() : now() }
}
// ... existing code ...
"""
    result = merge(CLOCK, sketch, path="clock.ts")
    assert isinstance(result, Refused)
    assert "'fallback'" in result.reason


def test_an_unexported_interface_left_without_its_last_use_is_refused() -> None:
    sketch = """\
// ... existing code ...
export function measure(): { at: number } {
  return { at: fallback() }
}
// ... existing code ...
"""
    result = merge(CLOCK, sketch, path="clock.ts")
    assert isinstance(result, Refused)
    assert "'Sample'" in result.reason


def test_an_exported_const_may_lose_its_last_use_here() -> None:
    original = CLOCK.replace("const fallback =", "export const fallback =")
    sketch = """\
// ... existing code ...
export function measure(): Sample {
  return { at: now() }
}
// ... existing code ...
"""
    result = merge(original, sketch, path="clock.ts")
    assert isinstance(result, Merged)


SERVER = """\
import { Socket } from './net/socket'
import { Server as NetServer } from './net/server'
import type { Options } from './options'

export function listen(options: Options): NetServer {
  const server = new NetServer(options)
  server.on('connection', (socket: Socket) => socket.resume())
  return server
}
"""


def test_a_name_imported_twice_by_the_merge_is_refused() -> None:
    # The sketch merges two imports into one, and only the first line is read as replaced:
    # the second import, kept, binds `NetServer` again.
    sketch = """\
import {
  Socket,
  Server as NetServer,
} from './net'
// ... rest of the file unchanged ...
"""
    result = merge(SERVER, sketch, path="server.ts")
    assert isinstance(result, Refused)
    assert "'NetServer' twice" in result.reason


def test_an_import_moved_between_lines_with_the_old_one_gone_merges() -> None:
    sketch = """\
import type { Options } from './options'
import { Socket } from './net/socket'
import { Server as NetServer } from './net/server'

export function listen(options: Options): NetServer {
// ... rest of the file unchanged ...
"""
    result = merge(SERVER, sketch, path="server.ts")
    assert isinstance(result, Merged)
    assert result.text.count("Options } from") == 1


ROUTES = """\
import { match } from './match'
import { notFound } from './errors'

export function route(path: string) {
  const found = match(path)
  if (!found) {
    return notFound(path)
  }
  return found
}
"""


def test_a_ts_import_kept_under_a_marker_after_its_last_use_went_is_refused() -> None:
    sketch = """\
import { match } from './match'
// ... existing code ...
  if (!found) {
    return null
  }
// ... existing code ...
"""
    result = merge(ROUTES, sketch, path="routes.ts")
    assert isinstance(result, Refused)
    assert "notFound" in result.reason


def test_a_ts_import_the_sketch_shows_stays_without_a_word() -> None:
    sketch = """\
import { match } from './match'
import { notFound } from './errors'
// ... existing code ...
  if (!found) {
    return null
  }
// ... existing code ...
"""
    result = merge(ROUTES, sketch, path="routes.ts")
    assert isinstance(result, Merged)


def test_dots_quoted_as_code_in_a_comment_make_no_marker() -> None:
    # `{...}` and `...rest` are code the comment quotes, not an ellipsis standing for code.
    ts = detect_language("a.ts")
    assert not is_marker("  // Spread (`...rest`) keeps the other options here", ts)
    assert not is_marker("// Braced (`{...}`) segments are more complex and are", ts)
    assert is_marker("// ... existing `parse` code ...", ts)


def test_a_reading_that_imports_a_name_twice_is_no_rival() -> None:
    # An import moved below two others, the sketch starting at the file's first line: the
    # reading that puts the two before the old import (matched as the moved one) imports
    # `Options` and `start` twice, which does not compile: no rival to the move.
    original = """\
import { clock } from './clock'
import type { Options } from './options'
import { start } from './start'

export function boot(options: Options) {
  return start(clock(), options)
}
"""
    sketch = """\
import type { Options } from './options'
import { start } from './start'
import { clock } from './clock'

// ... unchanged ...
"""
    result = merge(original, sketch, path="boot.ts")
    assert isinstance(result, Merged)
    assert result.text == sketch.replace("// ... unchanged ...\n", original.split("\n\n", 1)[1])
