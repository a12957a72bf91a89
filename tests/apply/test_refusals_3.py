"""Issue 17, round 5: refusals where the merge itself went astray (a new syntax error, a file
left unchanged, lines that sit between markers), not the sketch.

Each rule corrects one step of the placement or the assembly, and each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# A loop that is its function's last statement: its `}` sits right above the function's own.
MARK = """package tally

func Mark(items []string, seen map[string]bool) {
	for _, item := range items {
		if item == "" {
			continue
		}
		seen[item] = true
	}
}

func Unmark(names []string, seen map[string]bool) {
	for _, name := range names {
		delete(seen, name)
	}
}
"""

# The loop pasted flush left: its closing `}` at column 0 is the loop's, one tab deeper in the
# file, not the function's `}` at column 0.
MARK_PASTED = """// ... existing code ...
for _, item := range items {
	if item == "" || item == "-" {
		continue
	}
	seen[item] = true
}
// ... existing code ...
"""


def test_a_closer_of_a_pasted_chunk_sits_at_its_anchors_shift() -> None:
    result = merge(MARK, MARK_PASTED, path="tally.go")
    assert isinstance(result, Merged), result
    assert result.text == MARK.replace('item == "" {', 'item == "" || item == "-" {')


# A function whose last lines the sketch rewrites into one, showing the function's end.
WATCH = """import { Store } from './store'

export function watch(store: Store, key: string) {
  const handler = () => store.notify(key)
  let unsubscribe: (() => void) | undefined
  if (store.subscribe) {
    unsubscribe = store.subscribe(key, handler)
  }
  return unsubscribe
}

export function size(store: Store) {
  return store.keys().length
}
"""

WATCH_SKETCH = """// ... existing code ...
  const handler = () => store.notify(key)
  return store.subscribe?.(key, handler)
}
// ... existing code ...
"""

# Only an original line before the `}`: the lines after it left out, or deleted?
WATCH_CUT = """// ... existing code ...
  const handler = () => store.notify(key)
}
// ... existing code ...
"""


def test_a_closer_after_new_code_is_the_end_of_the_block_it_closes() -> None:
    result = merge(WATCH, WATCH_SKETCH, path="watch.ts")
    assert isinstance(result, Merged), result
    start = WATCH.index("  let unsubscribe")
    end = WATCH.index("}\n\nexport function size")
    assert result.text == (
        WATCH[:start] + "  return store.subscribe?.(key, handler)\n" + WATCH[end:]
    )


def test_a_closer_right_after_an_original_line_stays_unclear() -> None:
    assert isinstance(merge(WATCH, WATCH_CUT, path="watch.ts"), Refused)


def _response(name: str, kind: str) -> str:
    return f"""class {name}:
    def __init__(
        self,
        content: str,
        status: int = 200,
        headers: {kind} | None = None,
        media: str | None = None,
    ) -> None:
        self.content = content
        self.status = status
        self.headers = headers


"""


# Three classes take the same parameters; a fourth one's `headers` differs.
RESPONSES = (
    "from typing import Mapping\n\n\n"
    + "".join(
        _response(name, kind)
        for name, kind in (
            ("Text", "Mapping"),
            ("Html", "Mapping"),
            ("Json", "dict"),
            ("Raw", "Mapping"),
        )
    ).rstrip()
    + "\n"
)

# The sketch's lines stand unchanged three times over: only the fourth copy is an edit.
RESPONSES_SKETCH = """        # ... unchanged ...
        status: int = 200,
        headers: Mapping | None = None,
        media: str | None = None,
# ... unchanged ...
"""


def test_an_edit_is_found_past_every_copy_the_sketch_leaves_unchanged() -> None:
    result = merge(RESPONSES, RESPONSES_SKETCH, path="responses.py")
    assert isinstance(result, Merged), result
    assert result.text == RESPONSES.replace("headers: dict", "headers: Mapping")
