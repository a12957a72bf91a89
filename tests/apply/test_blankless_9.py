"""Blank-less sketches, ninth round: new lines that run two statements together where authors
most often set them apart (a statement right after a block it follows ends, a block opened
right after a simple statement), in a block the original spaces with blank lines, are
refused when the sketch shows it dropped its blank lines; a block that tests what the
statement before it binds reads as one step and merges.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

LOADER = """package files

import (
	"log"
	"os"
)

// Load reads the file at path.
func Load(path string) ([]byte, error) {
	log.Printf("loading %s", path)

	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return data, nil
}
"""

# Every blank line dropped (the log line and `data` stand apart in the original): a new `if`
# block, then the rewritten return right after its closing brace.
AFTER_BLOCK = """// ... existing code ...
func Load(path string) ([]byte, error) {
	log.Printf("loading %s", path)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errEmpty
	}
	return trim(data), nil
}
"""


def test_a_statement_right_after_a_new_block_in_a_spaced_function_is_refused() -> None:
    outcome = merge(LOADER, AFTER_BLOCK, path="files.go")
    assert isinstance(outcome, Refused), outcome
    assert "right after a block ends" in outcome.reason


def test_the_same_sketch_showing_its_blank_lines_merges() -> None:
    sketch = AFTER_BLOCK.replace(
        '\tlog.Printf("loading %s", path)\n', '\tlog.Printf("loading %s", path)\n\n'
    ).replace("\t}\n\treturn trim", "\t}\n\n\treturn trim")
    outcome = merge(LOADER, sketch, path="files.go")
    assert isinstance(outcome, Merged), outcome
    assert "\t\treturn nil, errEmpty\n\t}\n\n\treturn trim(data), nil\n}" in outcome.text


# A new block opened right after a new simple statement: refused...
LOGGED = """// ... existing code ...
func Load(path string) ([]byte, error) {
	log.Printf("loading %s", path)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	log.Printf("read %d bytes", len(data))
	if len(data) > limit {
		return nil, errTooBig
	}
	return data, nil
}
"""


def test_a_block_opened_right_after_a_new_statement_is_refused() -> None:
    outcome = merge(LOADER, LOGGED, path="files.go")
    assert isinstance(outcome, Refused), outcome
    assert "no blank line at all" in outcome.reason


# ...unless the block tests what that statement binds: made and tested at once, one step.
COUNT = """from files import read_lines

LIMIT = 100


def count(path):
    print("counting", path)

    lines = read_lines(path)
    return len(lines)
"""

SIZED = """# ... existing code ...
def count(path):
    print("counting", path)
    lines = read_lines(path)
    total = len(lines)
    if total > LIMIT:
        return LIMIT
    return total
"""


def test_a_block_testing_what_the_statement_before_binds_merges() -> None:
    outcome = merge(COUNT, SIZED, path="count.py")
    assert isinstance(outcome, Merged), outcome
    assert "\n\n    lines = read_lines(path)\n    total = len(lines)\n    if total" in outcome.text


def test_a_block_testing_something_else_is_refused() -> None:
    sketch = SIZED.replace("    total = len(lines)\n", '    print("read", len(lines))\n')
    sketch = sketch.replace("if total > LIMIT", "if len(lines) > LIMIT")
    outcome = merge(COUNT, sketch.replace("return total", "return len(lines)"), path="count.py")
    assert isinstance(outcome, Refused), outcome
    assert "begin a block right after a statement" in outcome.reason


# A sketch that joins no lines the original spaces apart has not shown that it dropped any:
# its lines may well stand as written.
UNJOINED = """// ... existing code ...
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errEmpty
	}
	return trim(data), nil
}
"""


def test_a_sketch_joining_nothing_the_original_spaces_apart_merges() -> None:
    outcome = merge(LOADER, UNJOINED, path="files.go")
    assert isinstance(outcome, Merged), outcome
    block = "\tif len(data) == 0 {\n\t\treturn nil, errEmpty\n\t}\n"
    assert f"\t}}\n{block}\treturn trim" in outcome.text


COUNTER = """pub struct Counter {
    hits: u32,
}

impl Counter {
    pub fn new() -> Self {
        Counter { hits: 0 }
    }

    pub fn reset(&mut self) {
        self.hits = 0;
    }

    pub fn hit(&mut self) {
        self.hits += 1;
    }
}

impl Default for Counter {
    fn default() -> Self {
        Counter::new()
    }
}
"""

# A new method written last in the `impl`, every blank line dropped: it gets the blank line the
# file puts between methods before it, and none before the `impl`'s closing brace.
LAST_METHOD = """// ... existing code ...
    pub fn hit(&mut self) {
        self.hits += 1;
    }
    pub fn hits(&self) -> u32 {
        self.hits
    }
}
// ... existing code ...
"""


def test_a_new_last_method_gets_the_files_spacing_before_it_and_none_after() -> None:
    outcome = merge(COUNTER, LAST_METHOD, path="counter.rs")
    assert isinstance(outcome, Merged), outcome
    method = "    pub fn hits(&self) -> u32 {\n        self.hits\n    }\n"
    assert outcome.text == COUNTER.replace(
        "        self.hits += 1;\n    }\n}\n", f"        self.hits += 1;\n    }}\n\n{method}}}\n"
    )


GREETER = """import sys


def greet(name):
    print(f"Hello, {name}")

    return name


def main():
    greet(sys.argv[1])


if __name__ == "__main__":
    main()
"""

# The whole file written again with one line changed and every blank line dropped: the
# original's blank lines between the lines it keeps stay where they were.
WHOLE = """import sys
def greet(name):
    print(f"Hi, {name}")
    return name
def main():
    greet(sys.argv[1])
if __name__ == "__main__":
    main()
"""


def test_a_whole_file_without_blank_lines_keeps_the_originals() -> None:
    outcome = merge(GREETER, WHOLE, path="greet.py")
    assert isinstance(outcome, Merged), outcome
    assert outcome.text == GREETER.replace("Hello", "Hi")


# A new block put in after the original's `if` block (the diff may read it as starting with
# that block's closing brace): a block opened right after one ends, in a spaced function.
AFTER_ITS_BRACE = """// ... existing code ...
func Load(path string) ([]byte, error) {
	log.Printf("loading %s", path)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errEmpty
	}
	return data, nil
}
"""


def test_a_block_put_in_right_after_a_closing_brace_is_refused() -> None:
    outcome = merge(LOADER, AFTER_ITS_BRACE, path="files.go")
    assert isinstance(outcome, Refused), outcome
    assert "right after a block ends" in outcome.reason
