"""Deletions a context-shaped sketch shows only by leaving lines out between two context lines:
where a context line recurs, the merge can take the copy that keeps the deleted code. What the
kept code leaves behind (a name the sketch stopped importing) tells the reading is wrong."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused
from cursorish.apply.verify import verify_merge

URL = """\
from urllib.parse import (SplitResult, parse_qsl, quote,
                          quote_plus, unquote, urlencode)


class URL:
    @classmethod
    def _encode_query_param(cls, val, safe=''):
        val = val.replace('%', '%25')
        return quote_plus(val, safe)

    @classmethod
    def _encode_query(cls, query):
        ret = urlencode(query, quote_via=cls._encode_query_param)
        return ret.encode('ascii')

    def split(self, text):
        return SplitResult(*parse_qsl(unquote(quote(text))))
"""

URL_SKETCH = """\
from urllib.parse import (SplitResult, parse_qsl, quote,
                          unquote, urlencode)

# ... existing code ...
class URL:
    # ... existing code ...
    @classmethod
    def _encode_query(cls, query):
        return urlencode(query).encode('ascii')

# ... existing code ...
"""


def test_a_name_dropped_from_a_parenthesized_import_but_still_called_is_refused() -> None:
    # The reading that keeps `_encode_query_param` (the second `@classmethod` taken as the
    # context line) leaves `quote_plus` called with its import gone.
    kept = URL.replace("quote_plus, unquote", "unquote")
    kept = kept.replace(
        "        ret = urlencode(query, quote_via=cls._encode_query_param)\n"
        "        return ret.encode('ascii')\n",
        "        return urlencode(query).encode('ascii')\n",
    )
    problem = verify_merge(URL, URL_SKETCH, kept, path="url.py")
    assert problem is not None
    assert "'quote_plus'" in problem


def test_the_merge_does_not_keep_code_calling_a_name_the_sketch_stopped_importing() -> None:
    outcome = merge(URL, URL_SKETCH, path="url.py")
    if isinstance(outcome, Merged):
        assert "quote_plus" not in outcome.text
    else:
        assert isinstance(outcome, Refused)


SYNC = """\
from typing import Callable
from typing_extensions import ParamSpec

P = ParamSpec("P")


def run(func: Callable[P, None]) -> None:
    func()
"""

SYNC_SKETCH = """\
from typing import (
    Callable,
    ParamSpec,
)

P = ParamSpec("P")
# ... existing code ...
"""


def test_a_name_moved_into_a_parenthesized_import_is_still_imported() -> None:
    outcome = merge(SYNC, SYNC_SKETCH, path="sync.py")
    assert isinstance(outcome, Merged), outcome
    assert "from typing_extensions" not in outcome.text
    assert "    ParamSpec,\n" in outcome.text


BAR = """\
use std::mem;

impl ProgressBar {
    pub fn style(&self) -> ProgressStyle {
        self.state().style.clone()
    }

    /// A convenience builder-like function for a progress bar with a given style
    pub fn with_style(self, mut style: ProgressStyle) -> ProgressBar {
        let mut state = self.state();
        mem::swap(&mut state.style.message, &mut style.message);
        state.style = style;
        drop(state);

        self
    }

    /// A convenience builder-like function for a progress bar with a given prefix
    pub fn with_prefix(self, prefix: String) -> ProgressBar {
        self.state().style.prefix = prefix;
        self
    }

    /// Overrides the stored style
    ///
    /// This does not redraw the bar.
    pub fn set_style(&self, style: ProgressStyle) {
        self.state().style = style;
    }

    pub fn tick(&self) {
        self.state().tick();
    }
}
"""

BAR_SKETCH = """\
// ... rest of the code ...
impl ProgressBar {
    // ... rest of the code ...

    /// A convenience builder-like function for a progress bar with a given style
    pub fn with_style(self, style: ProgressStyle) -> ProgressBar {
        self.set_style(style);
        self
    }
    // ... rest of the code ...
    ///
    /// This does not redraw the bar.
    pub fn set_style(&self, mut style: ProgressStyle) {
        let mut state = self.state();
        mem::swap(&mut state.style.message, &mut style.message);
        state.style = style;
    }

// ... rest of the code ...
"""


def test_a_method_left_twice_in_one_impl_block_is_refused() -> None:
    # The marker after `with_style` read as standing for nothing puts the new `set_style`
    # right there, and the one the original has further down stays.
    doubled = BAR.replace(
        "        let mut state = self.state();\n"
        "        mem::swap(&mut state.style.message, &mut style.message);\n"
        "        state.style = style;\n"
        "        drop(state);\n\n"
        "        self\n",
        "        self.set_style(style);\n        self\n",
    ).replace("with_style(self, mut style", "with_style(self, style")
    doubled = doubled.replace(
        "        self\n    }\n\n    /// A convenience builder-like function for a progress bar"
        " with a given prefix",
        "        self\n    }\n"
        "    ///\n    /// This does not redraw the bar.\n"
        "    pub fn set_style(&self, mut style: ProgressStyle) {\n"
        "        let mut state = self.state();\n"
        "        mem::swap(&mut state.style.message, &mut style.message);\n"
        "        state.style = style;\n    }\n\n"
        "    /// A convenience builder-like function for a progress bar with a given prefix",
    )
    problem = verify_merge(BAR, BAR_SKETCH, doubled, path="src/progress_bar.rs")
    assert problem is not None
    assert "'set_style' twice" in problem


SHAPES = """\
class Square:
    def __init__(self, side):
        self.side = side

    @property
    def side(self):
        return self._side

    def area(self):
        return self.side * self.side

    def perimeter(self):
        return 4 * self.side

    def diagonal(self):
        return self.side * 2**0.5

    def scaled(self, k):
        return Square(self.side * k)
"""

SHAPES_SKETCH = """\
# ... existing code ...
    def __init__(self, side):
        self.side = side
    # ... existing code ...
    def scaled(self, k=1):
        return Square(self.side * k)
"""


def test_a_python_method_left_twice_in_its_class_is_refused() -> None:
    # The marker after `__init__` read as standing for nothing: the new `scaled` sits there,
    # the original's stays at the end.
    doubled = SHAPES.replace(
        "        self.side = side\n",
        "        self.side = side\n"
        "    def scaled(self, k=1):\n        return Square(self.side * k)\n",
    )
    problem = verify_merge(SHAPES, SHAPES_SKETCH, doubled, path="shapes.py")
    assert problem is not None
    assert "'scaled' twice in 'class Square:'" in problem


def test_a_property_setter_is_no_second_method() -> None:
    setter = SHAPES.replace(
        "    def area(self):",
        "    @side.setter\n    def side(self, value):\n        self._side = value\n\n"
        "    def area(self):",
    )
    sketch = (
        "# ... existing code ...\n    @property\n    def side(self):\n"
        "        return self._side\n\n    @side.setter\n    def side(self, value):\n"
        "        self._side = value\n\n# ... existing code ...\n"
    )
    assert verify_merge(SHAPES, sketch, setter, path="shapes.py") is None


STORE = """\
package store

type Store struct {
	items map[string]string
}

func (s *Store) Get(key string) string {
	return s.items[key]
}

func (s *Store) Len() int {
	return len(s.items)
}
"""

STORE_SKETCH = """\
// ... existing code ...
func (s *Store) Get(key string) (string, bool) {
	value, ok := s.items[key]
	return value, ok
}

// ... existing code ...
"""


def test_a_go_method_left_twice_on_its_type_is_refused() -> None:
    doubled = STORE.replace(
        "\treturn s.items[key]\n}\n",
        "\treturn s.items[key]\n}\n"
        "func (s *Store) Get(key string) (string, bool) {\n"
        "\tvalue, ok := s.items[key]\n\treturn value, ok\n}\n",
    )
    problem = verify_merge(STORE, STORE_SKETCH, doubled, path="store.go")
    assert problem is not None
    assert "'Get' twice in 'Store'" in problem


QUEUE = """\
export class Queue<T> {
  private items: T[] = [];

  push(item: T): void {
    this.items.push(item);
  }

  size(): number {
    return this.items.length;
  }
}
"""

QUEUE_SKETCH = """\
// ... existing code ...
  size(): number {
    return this.items.length;
  }

  push(item: T): number {
    return this.items.push(item);
  }
}
"""


def test_a_typescript_method_left_twice_in_its_class_is_refused() -> None:
    doubled = QUEUE.replace(
        "    return this.items.length;\n  }\n",
        "    return this.items.length;\n  }\n\n"
        "  push(item: T): number {\n    return this.items.push(item);\n  }\n",
    )
    problem = verify_merge(QUEUE, QUEUE_SKETCH, doubled, path="queue.ts")
    assert problem is not None
    assert "'push' twice" in problem


PARAMS = """\
package resty

func parseRequestURL(c *Client, r *Request) error {
	// Path Params
	if len(c.PathParams) > 0 {
		for p, v := range c.PathParams {
			r.URL = strings.Replace(r.URL, "{"+p+"}", url.PathEscape(v), -1)
		}
	}
	if len(r.PathParams) > 0 {
		for p, v := range r.PathParams {
			r.URL = strings.Replace(r.URL, "{"+p+"}", url.PathEscape(v), -1)
		}
	}

	// Raw Path Params
	if len(c.RawPathParams) > 0 {
		for p, v := range c.RawPathParams {
			r.URL = strings.Replace(r.URL, "{"+p+"}", v, -1)
		}
	}
	if len(r.RawPathParams) > 0 {
		for p, v := range r.RawPathParams {
			r.URL = strings.Replace(r.URL, "{"+p+"}", v, -1)
		}
	}

	// Parsing request URL
	reqURL, err := url.Parse(r.URL)
	if err != nil {
		return err
	}
	return nil
}
"""

# The request's params now win over the client's: each pair of blocks swaps places.
PARAMS_SKETCH = """\
// ... existing code ...
func parseRequestURL(c *Client, r *Request) error {
	// Path Params
	if len(r.PathParams) > 0 {
		for p, v := range r.PathParams {
			r.URL = strings.Replace(r.URL, "{"+p+"}", url.PathEscape(v), -1)
		}
	}
	if len(c.PathParams) > 0 {
		for p, v := range c.PathParams {
			r.URL = strings.Replace(r.URL, "{"+p+"}", url.PathEscape(v), -1)
		}
	}

	// Raw Path Params
	if len(r.RawPathParams) > 0 {
		for p, v := range r.RawPathParams {
			r.URL = strings.Replace(r.URL, "{"+p+"}", v, -1)
		}
	}
	if len(c.RawPathParams) > 0 {
		for p, v := range c.RawPathParams {
			r.URL = strings.Replace(r.URL, "{"+p+"}", v, -1)
		}
	}
	// ... existing code ...
"""

_RAW = """\
	if len(r.RawPathParams) > 0 {
		for p, v := range r.RawPathParams {
			r.URL = strings.Replace(r.URL, "{"+p+"}", v, -1)
		}
	}
"""


def test_a_moved_block_whose_old_copy_stays_right_after_the_chunk_is_refused() -> None:
    # Read as the chunk's new first block, the `r.RawPathParams` one leaves the original's
    # copy under the marker, right after the chunk (the blocks the chunk moved before it keep
    # `_repeated_block` from seeing it).
    start = PARAMS.index("\tif len(c.PathParams)")
    end = PARAMS.index("\n\t// Parsing request URL")
    body = PARAMS_SKETCH.split("\t// Path Params\n")[1].split(
        "\t// ... existing code ...", maxsplit=1
    )[0]
    doubled = PARAMS[:start] + body + _RAW + PARAMS[end:]
    problem = verify_merge(PARAMS, PARAMS_SKETCH, doubled, path="middleware.go")
    assert problem is not None
    assert "right against the chunk that writes it anew" in problem


def test_a_block_copied_into_a_sibling_function_is_no_move() -> None:
    # The chunk starts at the end of `codec`, right after its `case` block, and writes that
    # block again in a new function: a copy in another scope, written on purpose.
    original = """\
package viper

func codec(format string) int {
	switch format {
	case "dotenv", "env":
		return 1
	}
	return 0
}
"""
    sketch = """\
// ... existing code ...
	return 0
}

func defaultCodec(format string) int {
	switch strings.ToLower(format) {
	case "dotenv", "env":
		return 1
	}
	return 0
}
"""
    merged = original + sketch.split("}\n\n", 1)[1].join(["\n", ""])
    assert verify_merge(original, sketch, merged, path="encoding.go") is None


SETUP = """\
from setuptools import setup

install_requires = ["multidict>=4.0", "idna>=2.0"]

needs_pytest = {"pytest", "test"}.intersection(COMMANDS)
if needs_pytest:
    setup_requires = ["pytest-runner"]
else:
    setup_requires = []


args = dict(
    name="yarl",
    install_requires=install_requires,
    setup_requires=setup_requires,
)
"""

# Two blank lines after `install_requires` before the marker: the file's own run of two blank
# lines, the one the `needs_pytest` block stood before; the block goes.
SETUP_SKETCH = """\
# ... rest of the code ...
install_requires = ["multidict>=4.0", "idna>=2.0"]


# ... rest of the code ...
    install_requires=install_requires,
)
"""


def test_a_blank_run_the_sketch_shows_before_a_marker_and_the_merge_cuts_short_is_refused() -> None:
    kept = SETUP.replace("    setup_requires=setup_requires,\n", "")
    problem = verify_merge(SETUP, SETUP_SKETCH, kept, path="setup.py")
    assert problem is not None
    assert "end with 2 blank lines before a marker" in problem


def test_a_blank_run_the_merge_keeps_whole_stands() -> None:
    deleted = SETUP.replace(SETUP[SETUP.index("needs_pytest") : SETUP.index("args")], "\n\n")
    deleted = deleted.replace("    setup_requires=setup_requires,\n", "")
    deleted = deleted.replace('idna>=2.0"]\n\n\n\n', 'idna>=2.0"]\n\n\n')
    assert verify_merge(SETUP, SETUP_SKETCH, deleted, path="setup.py") is None
