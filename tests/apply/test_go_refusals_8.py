"""Go refusals and wrong merges of round 8 (helper h73): tied readings all but one of which
declare a top-level name twice, and a Go package clause a sketch without a leading marker
would delete."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# Two function types declared alike: the sketch rewrites the first one's header (an alias
# now) and shows its parameter lines, which both declarations hold. Read over the second
# declaration, the sketch's `GetFunc` sits beside the original `GetFunc`, a name declared twice
# at the top level (the file does not compile); only the reading over the first one is an edit.
FUNCS = """\
package api

type Result struct {
	Code int
}

type GetFunc func(
	ctx context.Context,
	opts ...Option,
) (Result, error)

type Options struct {
	Retries int
}

type SetFunc func(
	ctx context.Context,
	opts ...Option,
) (Result, error)
"""

FUNCS_SKETCH = """\
}

type GetFunc = func(
	ctx context.Context,
	opts ...Option,
) (Result, error)
"""


def test_a_tie_whose_other_reading_declares_a_name_twice_is_settled() -> None:
    outcome = merge(FUNCS, FUNCS_SKETCH, path="api.go")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == FUNCS.replace("type GetFunc func(", "type GetFunc = func(")


def test_a_tie_between_readings_that_each_declare_once_stays_refused() -> None:
    sketch = FUNCS_SKETCH.replace("type GetFunc = func(", "type DoFunc = func(")
    outcome = merge(FUNCS, sketch, path="api.go")
    assert isinstance(outcome, Refused), outcome


# A sketch without a leading marker that opens on the first function, a line below the package
# clause: a sketch that close to the file's start reaches it, but a Go file cannot lose its
# package clause, so this one does not, and what it keeps there is unclear.
KV = """\
package kv

func Get(key string) string {
	return store[key]
}

func Put(key, value string) {
	store[key] = value
}

func Drop(key string) {
	delete(store, key)
}
"""

KV_SKETCH = """\
func Get(key string) string {
	return lookup(key)
}
// ... existing code ...
func Drop(key string) {
	delete(store, key)
	log.Printf("dropped %s", key)
}
"""


def test_a_markerless_start_below_the_go_package_clause_is_refused() -> None:
    outcome = merge(KV, KV_SKETCH, path="kv.go")
    assert isinstance(outcome, Refused), outcome
    assert "package clause" in outcome.reason


def test_a_sketch_writing_its_own_package_clause_still_replaces_the_head() -> None:
    sketch = "package store\n\n" + KV_SKETCH
    outcome = merge(KV, sketch, path="kv.go")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text.startswith("package store\n")
    assert "package kv" not in outcome.text


# A sketch without any blank line that adds an `else` branch after a line two blocks hold: only
# the reading inside the function the sketch names parses (an `else` after a `for` does not).
# It deletes nothing, so where the file's blank lines go is no question: it stands.
SCREEN = """\
package term

func (s *screen) close() error {
	if s.alt {
		s.out.ExitAlt()
	}
	if s.hidden {
		s.out.Show()
	}
	return nil
}

func (s *screen) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range s.lines {
		s.out.ExitAlt()
	}
	s.lines = nil
}
"""

SCREEN_SKETCH = """\
// ... existing code ...
func (s *screen) close() error {
		// ... existing code ...
		s.out.ExitAlt()
	} else {
		s.out.Write("\\r")
	}
	// ... existing code ...
"""


def test_a_blankless_tie_settles_on_the_only_parsing_reading_that_deletes_nothing() -> None:
    outcome = merge(SCREEN, SCREEN_SKETCH, path="screen.go")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == SCREEN.replace(
        "\t\ts.out.ExitAlt()\n\t}\n\tif s.hidden",
        '\t\ts.out.ExitAlt()\n\t} else {\n\t\ts.out.Write("\\r")\n\t}\n\tif s.hidden',
    )
