"""Issue 17, round 4: refusals where the sketch does decide the merge.

Each rule names the evidence that tells one reading from its rivals, and each keeps refusing
where that evidence is even.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

# Two functions with the same guarded call; only the first one logs its failure.
STORE = """package store

import (
	"errors"
	"log"
	"os"
)

func Save(dir string) (err error) {
	if dir != "" {
		err = os.MkdirAll(dir, 0755)
		if err != nil {
			log.Println(err)
		}
	}
	return
}

func SaveNew(dir string) (err error) {
	if dir != "" {
		err = os.MkdirAll(dir, 0755)
		if err != nil {
			return
		}
	}
	return
}
"""

# The sketch drops the `log` import and rewrites the guarded call, without saying where.
STORE_SKETCH = """// ... existing code ...
"errors"
"os"
// ... existing code ...
		err = os.MkdirAll(dir, 0755)
		if err != nil {
			return errors.Join(err, os.ErrExist)
		}
	}
// ... existing code ...
"""


def test_a_reading_that_leaves_a_removed_import_used_is_no_reading() -> None:
    # Placed in SaveNew, the merge keeps `log.Println` with its import gone: it cannot compile.
    result = merge(STORE, STORE_SKETCH, path="store.go")
    assert isinstance(result, Merged), result
    expected = STORE.replace('\t"log"\n', "").replace(
        "log.Println(err)", "return errors.Join(err, os.ErrExist)"
    )
    assert result.text == expected


def test_with_the_import_kept_the_two_places_stay_a_tie() -> None:
    sketch = STORE_SKETCH.replace('"errors"\n"os"\n', '"errors"\n"log"\n"os"\n')
    assert isinstance(merge(STORE, sketch, path="store.go"), Refused)


# A method whose `if` block the sketch rewrites whole: opener, new body, closer, no marker.
QUEUE = """export class Queue {
	start(): void {
		this.running = true;
		if (this.useTimer) {
			this.timer = setInterval(() => this.tick(), 100);
			const delay = this.options.delay ?? 0;
			if (delay > 0) {
				this.timer.unref();
			}
			this.emitter.on('stop', () => {
				clearInterval(this.timer);
			});
			this.ready = this.timer !== undefined;
		}

		this.emit('started');
	}
}
"""

QUEUE_SKETCH = """// ... existing code ...
		if (this.useTimer) {
			const delay = this.options.delay ?? 0;
			this.timer = setInterval(() => this.tick(), 100 + delay);
			this.ready = true;
		}
		// ... existing code ...
"""


def test_a_closing_line_after_its_opener_closes_that_block_in_the_original() -> None:
    # Read as a new line, the sketch's `}` would close the `if` early and unbalance the file.
    result = merge(QUEUE, QUEUE_SKETCH, path="queue.ts")
    assert isinstance(result, Merged), result
    start = QUEUE.index("\t\t\tthis.timer = setInterval")
    end = QUEUE.index("\t\t}\n\n\t\tthis.emit")
    body = (
        "\t\t\tconst delay = this.options.delay ?? 0;\n"
        "\t\t\tthis.timer = setInterval(() => this.tick(), 100 + delay);\n"
        "\t\t\tthis.ready = true;\n"
    )
    assert result.text == QUEUE[:start] + body + QUEUE[end:]


def test_a_closing_line_deeper_than_the_opener_closes_nothing_shown() -> None:
    sketch = QUEUE_SKETCH.replace(
        "\t\t\tthis.ready = true;\n\t\t}\n", "\t\t\tthis.ready = true;\n\t\t\t}\n"
    )
    assert isinstance(merge(QUEUE, sketch, path="queue.ts"), Refused)


OPTIONS = """import type { Base } from './base'

export interface Options {
  verbose?: boolean
  retries?: number
  timeout?: number
  onRetry?: (attempt: number) => void
  headers?: Record<string, string>
  signal?: AbortSignal
  baseUrl?: string
  cache?: 'none' | 'memory'
  keepAlive?: boolean
}

export const defaults: Options = {}
"""


def test_an_edited_opener_closes_the_block_its_body_lines_sit_in() -> None:
    # The opener changes (`extends Base`), so the body's matched lines say which block the
    # sketch's `}` closes: the fields it leaves out go.
    sketch = """// ... existing code ...
export interface Options extends Base {
  verbose?: boolean
  retries?: number
}

// ... existing code ...
"""
    result = merge(OPTIONS, sketch, path="options.ts")
    assert isinstance(result, Merged), result
    gone = OPTIONS[OPTIONS.index("  timeout") : OPTIONS.index("}\n\nexport const")]
    assert result.text == OPTIONS.replace(gone, "").replace(
        "export interface Options {", "export interface Options extends Base {"
    )


WORDS = """from __future__ import annotations

import re
from typing import Callable

# Words made of ASCII letters only
_is_plain_word = re.compile(
    "^[a-zA-Z]+$"
).match


def plain(word: str) -> bool:
    return _is_plain_word(word) is not None
"""


def test_the_rest_of_a_replaced_statement_goes_with_its_head() -> None:
    # The chunk ends with a blank line before its marker; the original lines up to the next
    # blank line close the bracket its dropped `re.compile(` line opened.
    sketch = """from __future__ import annotations

from typing import Callable

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_is_plain_word = _LETTERS.issuperset

# ... rest of the file unchanged ...
"""
    result = merge(WORDS, sketch, path="words.py")
    assert isinstance(result, Merged), result
    head = WORDS.index("import re\n")
    old = WORDS[WORDS.index("# Words") : WORDS.index("\n\n\ndef plain")]
    new = '_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")\n'
    new += "_is_plain_word = _LETTERS.issuperset"
    assert result.text == WORDS[:head] + WORDS[head + len("import re\n") :].replace(old, new)


def test_lines_closing_a_bracket_opened_before_the_chunk_stay() -> None:
    original = """SETTINGS = dict(
    name="demo",
    size=3,
    color="red",
)


def size() -> int:
    return SETTINGS["size"]
"""
    sketch = """# ... existing code ...
    name="demo",
    size=4,

# ... existing code ...
"""
    assert isinstance(merge(original, sketch, path="settings.py"), Refused)


SIZES = """package units

func parseSize(text string) uint {
	text = strings.TrimSpace(text)
	multiplier := uint(1)
	if strings.HasSuffix(text, "k") {
		multiplier = 1024
		text = text[:len(text)-1]
	}

	size := cast.ToInt(text)
	if size < 0 {
		size = 0
	}

	return uint(size) * multiplier
}
"""


def test_a_name_declared_again_picks_the_earlier_closing_line() -> None:
    # After the `if size < 0` block's `}` the new `size :=` would declare `size` twice in one
    # scope (Go does not compile that): the sketch's `}` is the `if strings.HasSuffix` one.
    sketch = """// ... existing code ...
	}

	size := max(cast.ToInt(text), 0)

	return uint(size) * multiplier
// ... existing code ...
"""
    result = merge(SIZES, sketch, path="units.go")
    assert isinstance(result, Merged), result
    old = "\tsize := cast.ToInt(text)\n\tif size < 0 {\n\t\tsize = 0\n\t}\n"
    assert result.text == SIZES.replace(old, "\tsize := max(cast.ToInt(text), 0)\n")


def test_a_new_name_keeps_the_nearest_closing_line() -> None:
    sketch = """// ... existing code ...
	}

	limit := max(cast.ToInt(text), 0)

	return uint(size) * multiplier
// ... existing code ...
"""
    result = merge(SIZES, sketch, path="units.go")
    assert isinstance(result, Merged), result
    new = "\t}\n\n\tlimit := max(cast.ToInt(text), 0)\n\n\treturn"
    assert result.text == SIZES.replace("\t}\n\n\treturn", new)


LOADER = """export class Loader {
	async load(url: string): Promise<string> {
		const response = await fetch(url);
		if (!response.ok) {
			throw new Error(`failed: ${response.status}`);
		}

		// The body stream is only read once, so release the lock right away.
		if (response.bodyUsed) {
			this.release(response);
		}

		if (this.progress) {
			this.progress.start(url);
		}

		const text = await response.text();
		return text;
	}
}
"""


def test_code_another_chunk_moves_picks_the_earlier_closing_line() -> None:
    # The last chunk writes the release comment inside `finally`: kept above `if
    # (this.progress)` too, it would be there twice, so the `}` the second chunk opens on
    # is the `if (!response.ok)` one and the old lines go.
    sketch = """// ... existing code ...
		if (!response.ok) {
			// ... existing code ...
		}

		if (this.progress) {
			this.progress.start(url);
			// ... existing code ...

		const text = await response.text().finally(() => {
			// The body stream is only read once, so release the lock right away.
			this.release(response);
		});
		return text;
// ... existing code ...
"""
    result = merge(LOADER, sketch, path="loader.ts")
    assert isinstance(result, Merged), result
    moved = LOADER[LOADER.index("\t\t// The body") : LOADER.index("\t\tif (this.progress)")]
    finally_ = (
        "\t\tconst text = await response.text().finally(() => {\n"
        "\t\t\t// The body stream is only read once, so release the lock right away.\n"
        "\t\t\tthis.release(response);\n"
        "\t\t});\n"
    )
    expected = LOADER.replace(moved, "").replace(
        "\t\tconst text = await response.text();\n", finally_
    )
    assert result.text == expected
