"""Wrong merges of Go and Python sketches (round 8), each turned into a general rule; the
examples are made up."""

from __future__ import annotations

from cursorish.apply.align import Index
from cursorish.apply.deterministic import merge
from cursorish.apply.lazy_doubts import _closer_over_unlike
from cursorish.apply.lazy_sketch import Chunk
from cursorish.apply.lines import key
from cursorish.apply.result import Merged, Refused
from cursorish.apply.spans import Span
from cursorish.apply.verify.go_depth import _go_depth

# New lines that end a chunk, deeper than the marker after them (planners write markers at
# column 0), replace the original lines after them only where those hold no definition the
# sketch never names: the marker's depth alone does not say another method goes.
_WORKER = """class Worker:
    def start(self):
        self.ready = False
        self.open()

    def ping(self):
        return True


def helper():
    pass
"""

_WORKER_SKETCH = """# ... existing code ...
    def start(self):
        self.ready = False
        self.open()
        self.ready = True
        self.log("started")

# ... existing code ...
"""


def test_new_lines_before_a_shallower_marker_keep_a_definition_after_them() -> None:
    result = merge(_WORKER, _WORKER_SKETCH, path="worker.py")
    assert isinstance(result, Merged), result
    assert result.text == _WORKER.replace(
        "        self.open()\n",
        '        self.open()\n        self.ready = True\n        self.log("started")\n',
    )


# A Go sketch pasted one tab shallower than the file, that wraps lines in a new block: kept at
# its own depth, its lines sit where gofmt never puts them (level with the `{` that opens their
# block, or deeper than the bare `}` before them), though the braces still balance.
_CART = """package shop

func (c *Cart) Total() string {
\tvar sum int
\tif !c.Empty() {
\t\tsum = c.Sum()

\t\t// Apply the discount of the member's tier to the
\t\t// sum of the cart.
\t\trate := discount(c.Owner)
\t\tsum -= sum * rate / 100
\t}

\tlines := []string{
\t\tc.Header(),
\t\tformat(sum),
\t\tc.Footer(),
\t}
\treturn strings.Join(lines, sep)
}
"""

_CART_SKETCH = """// ... existing code ...
\tsum = c.Sum()

\tif c.Owner != nil {
\t\t// Apply the discount of the member's tier to the
\t\t// sum of the cart.
\t\trate := discount(c.Owner)
\t\tsum -= sum * rate / 100
\t}
}

// ... existing code ...
"""


def test_go_lines_kept_at_a_depth_their_braces_deny_are_refused() -> None:
    result = merge(_CART, _CART_SKETCH, path="cart.go")
    assert isinstance(result, Refused), result
    assert "depth its braces deny" in result.reason


def test_go_depth_allows_a_condition_broken_over_lines() -> None:
    before = [
        "package shop",
        "",
        "func ok(a, b bool) bool {",
        "\tif a &&",
        "\t\tb {",
        "\t\treturn true",
        "\t}",
        "\treturn false",
        "}",
    ]
    after = [*before[:7], "\tlog(a)", *before[7:]]
    old_of = [0, 1, 2, 3, 4, 5, 6, -1, 7, 8]
    assert _go_depth(before, after, old_of) is None
    # The same new line one tab too deep after the block's `}` is refused.
    after[7] = "\t\tlog(a)"
    assert _go_depth(before, after, old_of) is not None


# A chunk's last `}` read as the closer of an original block whose other lines the chunk
# passes over (`if err := ... {` and its body), after new lines that open a block of their own
# at that depth (not the first new line): the old block goes but for its `}`, which now closes
# the new block; the reading rests on the `}` alone.
_CLOSE = [
    "func (s *Server) Close() error {",
    "\tif s.conn != nil {",
    "\t\ts.conn = nil",
    "\t}",
    "\tif err := s.flush(); err != nil {",
    '\t\treturn fmt.Errorf("close: %w", err)',
    "\t}",
    "\treturn nil",
    "}",
]

_CLOSE_CHUNK = [
    "\t\ts.conn = nil",
    "\t}",
    "\tmode := s.currentMode()",
    "\tif mode != modeNone {",
    "\t\ts.setMode(modeNone)",
    "\t}",
]


def _close_doubts(
    original: list[str], chunk_lines: list[str], matched: dict[int, int]
) -> list[str]:
    index = Index([key(line) for line in original], original)
    chunk = Chunk(chunk_lines, 1, 0)
    return _closer_over_unlike(chunk, Span(2, max(matched.values()) + 1, matched), index)


def test_a_closer_borrowed_from_an_old_block_for_a_later_new_one_is_doubted() -> None:
    assert _close_doubts(_CLOSE, _CLOSE_CHUNK, {0: 2, 1: 3, 5: 6})


def test_a_closer_of_a_list_rewritten_past_its_old_items_stands() -> None:
    # The old lines passed over are items inside the list the `]` closes, not an opener at its
    # depth: the new lines end that list early and start another, which the `]` closes.
    original = [
        "IGNORED = [",
        '    "https://example.com/a",',
        "    # Broken anchors.",
        '    "https://example.com/b#x",',
        "]",
    ]
    chunk = [
        '    "https://example.com/a",',
        "]",
        "",
        "ANCHORS = [",
        '    r"^https://example\\.com/.*",',
        "]",
    ]
    assert not _close_doubts(original, chunk, {0: 1, 5: 4})


# A Go sketch with no marker before it that starts a few lines into the file (at its imports):
# those lines hold the package clause, which no sketch deletes without writing a new one, so
# reading the sketch as reaching the file's start (and cutting them) is wrong; whether it
# keeps them or means something else there is unclear.
_CLOCK = """package clock

import (
\t"fmt"
\t"time"
)

// Now returns the current time.
func Now() time.Time {
\treturn time.Now()
}
"""

_CLOCK_SKETCH = """import (
\t"fmt"
\t"os"
\t"time"
// ... existing code ...
}

// Host returns the name of the machine.
func Host() string {
\tname, _ := os.Hostname()
\treturn name
}
"""


def test_a_sketch_starting_below_the_package_clause_without_a_marker_is_refused() -> None:
    result = merge(_CLOCK, _CLOCK_SKETCH, path="clock.go")
    assert isinstance(result, Refused), result
    assert "package clause" in result.reason


# A comment line at a marker that is its original line cut short (a sentence dropped), where
# the original's comment goes on past it: whether the lines that finish the dropped sentence
# stay is a guess.
_CANVAS = """package paint

import "image"

// Canvas holds the pixels drawn so far.
// It grows as lines are added. Note
// that a canvas is not safe for use by several goroutines at once, as it
// keeps no lock.
type Canvas struct {
\timg *image.RGBA
}
"""

_CANVAS_SKETCH = """// ... existing code ...
// Canvas holds the pixels drawn so far.
// It grows as lines are added.
// ... existing code ...
"""


def test_a_comment_line_cut_short_before_the_rest_of_its_comment_is_refused() -> None:
    result = merge(_CANVAS, _CANVAS_SKETCH, path="paint.go")
    assert isinstance(result, Refused), result
    assert "cuts original line" in result.reason


# New lines at a marker that restate the original statement the marker keeps beside them (an
# `assert` of the same names): the new statement reads as the old one's rewrite.
_PACK = """import zlib

from shop.cart import Cart

assert zlib.ZLIB_VERSION > "1.2", "Need zlib 1.2"


def pack(cart: Cart) -> bytes:
    return zlib.compress(cart.dump())
"""

_PACK_SKETCH = """# ... existing code ...
from shop.cart import Cart

assert tuple(map(int, zlib.ZLIB_VERSION.split(".")[:2])) >= (
    1, 2
), "shop needs zlib 1.2 or newer"
# ... existing code ...
"""


def test_new_lines_restating_the_kept_statement_beside_them_are_refused() -> None:
    result = merge(_PACK, _PACK_SKETCH, path="pack.py")
    assert isinstance(result, Refused), result
    assert "restate it" in result.reason


def test_a_new_assert_of_other_names_beside_a_kept_one_merges() -> None:
    sketch = _PACK_SKETCH.replace(
        'assert tuple(map(int, zlib.ZLIB_VERSION.split(".")[:2])) >= (\n    1, 2\n), '
        '"shop needs zlib 1.2 or newer"',
        'assert Cart.VERSION >= 3, "shop needs carts of version 3"',
    )
    result = merge(_PACK, sketch, path="pack.py")
    assert isinstance(result, Merged), result
    assert 'assert Cart.VERSION >= 3, "shop needs carts of version 3"\n' in result.text
    assert 'assert zlib.ZLIB_VERSION > "1.2", "Need zlib 1.2"\n' in result.text
