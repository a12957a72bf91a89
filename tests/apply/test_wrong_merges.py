"""Merges that used to come out wrong, each from a small made-up example of one general
shape: the merge must now give the intended file or refuse (never another file)."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged
from cursorish.apply.verify import verify_merge
from cursorish.apply.verify.go_locals import _unused_go_local
from cursorish.apply.verify.toplevel import _declared_twice
from cursorish.apply.verify.ts_imports import _top_bindings


def _merged(original: str, sketch: str, path: str) -> str:
    result = merge(original, sketch, path=path)
    assert isinstance(result, Merged), result
    return result.text


# A snippet pasted flush left whose first and last anchors sit one level deep in the file,
# while the anchors between sit two levels deep (the edit lifts them out of a block): the
# snippet's column 0 is the file's first level, not the left margin.
_UNWRAP_ORIGINAL = """package web

func (c *ctx) send(code int) error {
\t// remember the status until the first write
\tif r, err := unwrap(c.w); err == nil {
\t\tr.Status = code
\t} else {
\t\tresp := c.Response()
\t\tc.setResponse(resp, code)
\t}

\treturn c.flush()
}

func (c *ctx) other() int {
\treturn 1
}
"""

_UNWRAP_SKETCH = """// ... existing code ...
// remember the status until the first write
resp := c.Response()
c.setResponse(resp, code)

return c.flush()
// ... existing code ...
"""

_UNWRAP_EXPECTED = """package web

func (c *ctx) send(code int) error {
\t// remember the status until the first write
\tresp := c.Response()
\tc.setResponse(resp, code)

\treturn c.flush()
}

func (c *ctx) other() int {
\treturn 1
}
"""


def test_flush_left_snippet_takes_the_depth_of_its_edge_anchors() -> None:
    assert _merged(_UNWRAP_ORIGINAL, _UNWRAP_SKETCH, "web.go") == _UNWRAP_EXPECTED


# A chunk whose last shown line is an edit of the original line it replaces, before a marker
# at column 0: the edit says nothing of the block's lines after it, which stay.
_TAIL_ORIGINAL = """import math


def check(values: list[int]) -> bool:
    if not values:
        raise ValueError("empty")

    return all(v > 0 for v in values)


def other() -> int:
    return 1
"""

_TAIL_SKETCH = """    # ... existing code ...
    if not values:
        raise ValueError("values must not be empty")

# ... rest of the file unchanged ...
"""


def test_edited_last_line_before_a_shallow_marker_keeps_the_rest_of_the_block() -> None:
    expected = _TAIL_ORIGINAL.replace('"empty"', '"values must not be empty"')
    assert _merged(_TAIL_ORIGINAL, _TAIL_SKETCH, "check.py") == expected


# A chunk that wraps code in a new block ends with two bare closers, `}` one level deeper than
# the original's `}` it matches, then `}`. The second is the original's first closer; a `}`
# further down would delete the code between on the strength of punctuation alone.
_WRAP_ORIGINAL = """fn visit(entries: &[Entry], config: &Config) -> State {
    for entry in entries {
        if let Some(e) = entry.get() {
            let path = e.path();
            if path.is_dir()
                && config
                    .skip_list
                    .iter()
                    .any(|s| path.join(s).exists())
            {
                return State::Skip;
            }
            if e.depth() == 0 {
                // the root itself
                return State::Continue;
            }
        }
        count += 1;
    }
    State::Done
}
"""

_WRAP_SKETCH = """        /* ... existing code ... */
        if let Some(e) = entry.get() {
            // Look at the file type first: it costs no system call.
            if e.file_type().is_dir() {
                let path = e.path();
                if config
                    .skip_list
                    /* ... unchanged code ... */
                    .any(|s| path.join(s).exists())
                {
                    return State::Skip;
                }
            }
/* ... rest of the file unchanged ... */
"""

_WRAP_EXPECTED = """fn visit(entries: &[Entry], config: &Config) -> State {
    for entry in entries {
        if let Some(e) = entry.get() {
            // Look at the file type first: it costs no system call.
            if e.file_type().is_dir() {
                let path = e.path();
                if config
                    .skip_list
                    .iter()
                    .any(|s| path.join(s).exists())
                {
                    return State::Skip;
                }
            }
            if e.depth() == 0 {
                // the root itself
                return State::Continue;
            }
        }
        count += 1;
    }
    State::Done
}
"""

# Enough `}` lines that a bare closer seeds no placement of its own (as in a long file).
_SMALL_FUNCTIONS = "".join(f"\nfn size_{n}() -> u32 {{\n    {n}\n}}\n" for n in range(45))


def test_bare_closers_matched_at_a_shift_do_not_reach_past_code() -> None:
    original = _WRAP_ORIGINAL + _SMALL_FUNCTIONS
    expected = _WRAP_EXPECTED + _SMALL_FUNCTIONS
    assert _merged(original, _WRAP_SKETCH, "visit.rs") == expected


# A chunk ending with a bare `]` that closes its own new `Handler = t.Union[`: the original's
# next `]` closes `Route = t.Union[`, two statements further at that depth; reading the
# sketch's `]` as that one would delete `Route` on the strength of punctuation.
_CLOSER_ORIGINAL = """import typing as t

Callback = t.Callable[[], None]

# A handler takes the error it is registered for.
Handler = t.Callable[[Exception], str]

Route = t.Union[
    t.Callable[..., str],
    t.Callable[..., t.Awaitable[str]],
]
"""

_CLOSER_SKETCH = """# ... existing code ...
# A handler takes the error it is registered for.
Handler = t.Union[
    t.Callable[[Exception], str],
    t.Callable[[Exception], t.Awaitable[str]],
]

# ... rest of the file unchanged ...
"""


def test_a_last_closer_does_not_reach_past_other_statements() -> None:
    result = merge(_CLOSER_ORIGINAL, _CLOSER_SKETCH, path="types.py")
    if isinstance(result, Merged):  # the only right file keeps `Route`
        assert "Route = t.Union[" in result.text
        assert "t.Awaitable[str]],\n]\n\nRoute" in result.text


# The same shape where the closer's original header is the one line the chunk rewrites: the
# closer is that block's and the merge stands.
_HEADER_ORIGINAL = """package calc

// add sums.
func add(a int) int {
\tx := a
\treturn x
}

func other() int {
\treturn 1
}
"""

_HEADER_SKETCH = """// ... existing code ...
// add sums.
func add(a, b int) int {
\treturn a + b
}
// ... existing code ...
"""


def test_a_last_closer_of_a_rewritten_header_still_merges() -> None:
    expected = _HEADER_ORIGINAL.replace(
        "func add(a int) int {\n\tx := a\n\treturn x\n}",
        "func add(a, b int) int {\n\treturn a + b\n}",
    )
    assert _merged(_HEADER_ORIGINAL, _HEADER_SKETCH, "calc.go") == expected


# A snippet without blank lines that leaves out lines between two shown ones (a deletion):
# the wider run of blank lines around the deleted lines is the code's own and stays.
_SPACING_ORIGINAL = """import sys


def load(path: str) -> str:
    if path.endswith(".txt"):
        return open(path).read()

    raise ValueError("unsupported file")


def save(path: str, text: str) -> None:
    open(path, "w").write(text)
"""

_SPACING_SKETCH = """        return open(path).read()
def save(path: str, text: str) -> None:
"""


def test_deleted_lines_keep_the_wider_spacing_around_them() -> None:
    expected = _SPACING_ORIGINAL.replace('\n    raise ValueError("unsupported file")\n', "")
    assert _merged(_SPACING_ORIGINAL, _SPACING_SKETCH, "files.py") == expected


_STREAM_ORIGINAL = """async def pump(stream, sink) -> None:
    async for message in stream:
        body = message.get("body", b"")
        if body:
            await sink.send(body)
        if not message.get("more", False):
            break

    await sink.close()


def other() -> int:
    return 1
"""

_STREAM_SKETCH = """            await sink.send(body)
    await sink.close()
"""


def test_deleted_lines_keep_the_blank_line_after_them() -> None:
    expected = _STREAM_ORIGINAL.replace(
        '        if not message.get("more", False):\n            break\n', ""
    )
    assert _merged(_STREAM_ORIGINAL, _STREAM_SKETCH, "pump.py") == expected


# The same when the line before the left-out lines is re-indented (code lifted out of an
# `else` block): the blank line before the next shown line is still the code's own.
_LIFT_ORIGINAL = """package web

import "net/http"

func (c *ctx) send(code int) error {
\t// keep the status until the first write
\tif r, err := unwrap(c.w); err == nil {
\t\tr.Status = code
\t} else {
\t\tresp := c.Response()
\t\tc.setResponse(resp, code)
\t\tdefer c.setResponse(resp)
\t}

\treturn c.flush()
}

func (c *ctx) other() int {
\treturn http.StatusOK
}
"""

_LIFT_SKETCH = """\t// keep the status until the first write
\tresp := c.Response()
\tc.setResponse(resp, code)
\tdefer c.setResponse(resp)
\treturn c.flush()
"""


def test_lifted_lines_keep_the_blank_line_before_the_next_shown_one() -> None:
    old_block = (
        "\tif r, err := unwrap(c.w); err == nil {\n\t\tr.Status = code\n\t} else {\n"
        "\t\tresp := c.Response()\n\t\tc.setResponse(resp, code)\n\t\tdefer c.setResponse(resp)\n"
        "\t}\n"
    )
    new_block = "\tresp := c.Response()\n\tc.setResponse(resp, code)\n\tdefer c.setResponse(resp)\n"
    expected = _LIFT_ORIGINAL.replace(old_block, new_block)
    assert _merged(_LIFT_ORIGINAL, _LIFT_SKETCH, "web.go") == expected


# The verifier: a top-level name the original declares once, declared twice in the result (a
# new declaration placed apart from the old one it was meant to replace).
_TYPES_ORIGINAL = """import { api } from './api'

export function ping() {
  return api.get('/ping')
}

export function version() {
  return api.get('/version')
}

export function status() {
  return api.get('/status')
}

/**
 * @deprecated Use `unknown` instead.
 */
export type Payload = object

export function send(p: Payload) {
  return api.post(p)
}
"""

_TYPES_SKETCH = """/**
 * @deprecated Use `unknown` instead.
 */
export type Payload = unknown
// ... existing code ...
"""


def test_verifier_refuses_a_top_level_name_declared_twice() -> None:
    placed_apart = _TYPES_SKETCH.split("// ...", maxsplit=1)[0] + _TYPES_ORIGINAL
    problem = verify_merge(_TYPES_ORIGINAL, _TYPES_SKETCH, placed_apart, path="types.ts")
    assert problem is not None and "'Payload' twice" in problem
    replaced = _TYPES_ORIGINAL.replace("= object", "= unknown")
    assert verify_merge(_TYPES_ORIGINAL, _TYPES_SKETCH, replaced, path="types.ts") is None


def test_top_level_variants_may_repeat_a_name() -> None:
    assert (
        _declared_twice(
            ["#[cfg(unix)]", "fn host() {}"],
            ["#[cfg(unix)]", "fn host() {}", "", "#[cfg(not(unix))]", "fn host() {}"],
            "rust",
        )
        is None
    )
    # Python may define a name again on purpose: no compiler refuses it.
    twice = ["def read(x): ...", "def read(x): ..."]
    assert _declared_twice(["def read(x): ..."], twice, "python") is None
    assert _declared_twice(["func init() {}"], ["func init() {}", "func init() {}"], "go") is None
    assert _declared_twice(["func Run() {}"], ["func Run() {}", "func Run() {}"], "go")


# The verifier: a sketch that adds `Shape` to a multi-line type import while the file's own
# `type Shape` stays under a marker: the file would both import and declare the name.
_SHAPE_ORIGINAL = """import { useMemo } from 'react'
import type {
  Api,
  Creator,
} from './core'

const VERSION = 1

type Shape<S> = S extends { get: () => infer T } ? T : never

export function use<S>(api: Api<S>): Shape<S> {
  return useMemo(() => api.get(), [api])
}
"""

_SHAPE_SKETCH = """// ... existing code ...
import type {
  Api,
  Creator,
  Shape,
} from './core'
// ... existing code ...
"""


def test_verifier_refuses_a_name_both_imported_and_declared() -> None:
    both = _SHAPE_ORIGINAL.replace("  Creator,\n", "  Creator,\n  Shape,\n")
    problem = verify_merge(_SHAPE_ORIGINAL, _SHAPE_SKETCH, both, path="use.ts")
    assert problem is not None and "imports 'Shape'" in problem
    assert _top_bindings(["import React, { useMemo as memo, type FC } from 'react'"])[0] == {
        "React",
        "memo",
        "FC",
    }
    imports = ["import * as path from 'node:path'", "import './side.css'"]
    assert _top_bindings(imports)[0] == {"path"}


# The verifier: a Go sketch that rewrites the line reading `label` and leaves the lines that
# declare it under a marker: Go does not compile a local declared and never read.
_LABEL_ORIGINAL = """package auth

func header(realm string) string {
\tlabel := "default"
\tif realm != "" {
\t\tlabel = quote(realm)
\t}

\t// browsers need the realm
\treturn "Basic realm=" + label
}
"""

_LABEL_SKETCH = """\t// browsers need the realm
\treturn "Basic realm=" + quote(realm)
// ... existing code ...
"""


def test_verifier_refuses_a_go_local_left_unread() -> None:
    kept = _LABEL_ORIGINAL.replace('"Basic realm=" + label', '"Basic realm=" + quote(realm)')
    sketch = "// ... existing code ...\n" + _LABEL_SKETCH
    problem = verify_merge(_LABEL_ORIGINAL, sketch, kept, path="auth.go")
    assert problem is not None and "no longer uses 'label'" in problem
    # Still read elsewhere: it stands.
    read = kept.replace("\t// browsers", "\tlog(label)\n\t// browsers")
    assert _unused_go_local(_LABEL_ORIGINAL.split("\n"), read.split("\n")) is None


# A chunk that ends, past a blank line it shares with the original, with an edited version of
# the original's next line (a doc comment given a full stop and a second line): the edited
# line replaces that original line instead of going in above it.
_DOC_ORIGINAL = """package mw

// Config holds the options.
type Config struct {
\tSkip bool
}

// Getter returns the method from the request
type Getter func(r *Request) string

func other() int {
\treturn 1
}
"""

_DOC_SKETCH = """// ... existing code ...
type Config struct {
\tSkip bool
}

// Getter returns the method from the request.
// It should return a standard HTTP method name.
// ... rest of the file unchanged ...
"""


def test_an_edited_line_past_a_shared_blank_line_replaces_its_original() -> None:
    expected = _DOC_ORIGINAL.replace(
        "from the request\n",
        "from the request.\n// It should return a standard HTTP method name.\n",
    )
    assert _merged(_DOC_ORIGINAL, _DOC_SKETCH, "mw.go") == expected
