"""A sketch that stops short of the file's end (start) with no marker: the lines beyond it go
where the merge leaves them dead (top-level definitions nothing names any more, whose last use
or whose import the sketch took out), and stay unclear (refused) otherwise."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.dropped_definitions import dropped_with_last_use
from cursorish.apply.languages import detect_language
from cursorish.apply.result import Merged, Refused
from cursorish.apply.structure import Definition
from cursorish.apply.verify.dead_edge import dead_edge, dead_python_head

HEAD = """package middleware

import (
	"expvar"
	"fmt"
	"net/http"
)

// Vars serves the process's exported variables.
func Vars() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/health", health)
	mux.HandleFunc("/ready", ready)
	mux.HandleFunc("/vars", expVars)
	mux.HandleFunc("/debug", debug)
	return mux
}
"""
TAIL = """
// Replicated from expvar.go as not public.
func expVars(w http.ResponseWriter, r *http.Request) {
	first := true
	fmt.Fprintf(w, "{\\n")
	expvar.Do(func(kv expvar.KeyValue) {
		if !first {
			fmt.Fprintf(w, ",\\n")
		}
		first = false
		fmt.Fprintf(w, "%q: %s", kv.Key, kv.Value)
	})
	fmt.Fprintf(w, "\\n}\\n")
}
"""
ORIGINAL = HEAD + TAIL
# The sketch shows the file from its first line, drops the "fmt" import and the one use of
# `expVars`, and ends on `return mux` / `}` with no marker.
SKETCH = (
    HEAD.replace('\t"fmt"\n', "")
    .replace('\tmux.HandleFunc("/vars", expVars)\n', '\tmux.Handle("/vars", expvar.Handler())\n')
    .replace('\tmux.HandleFunc("/health", health)\n', "\t// ... existing code ...\n")
)
EXPECTED = HEAD.replace('\t"fmt"\n', "").replace(
    '\tmux.HandleFunc("/vars", expVars)\n', '\tmux.Handle("/vars", expvar.Handler())\n'
)


def test_tail_left_dead_by_the_sketch_is_deleted() -> None:
    result = merge(ORIGINAL, SKETCH, path="profiler.go")
    assert isinstance(result, Merged), result
    assert result.text == EXPECTED


def test_tail_the_merged_file_still_names_stays_unclear() -> None:
    # The sketch keeps a use of `expVars` (under another route): the tail is not dead.
    sketch = SKETCH.replace("\treturn mux\n", '\tmux.HandleFunc("/v", expVars)\n\treturn mux\n')
    result = merge(ORIGINAL, sketch, path="profiler.go")
    assert isinstance(result, Refused)
    assert "no marker" in result.reason


def test_tail_with_other_code_beside_the_dead_definition_stays_unclear() -> None:
    # A `var` the merge does not tell about sits beside the dead function: kept or deleted?
    original = ORIGINAL + "\nvar started = time.Now()\n"
    result = merge(original, SKETCH, path="profiler.go")
    assert isinstance(result, Refused)


def test_verifier_dead_edge_needs_evidence_for_every_definition() -> None:
    # A public function beside the dead one: other packages may call it; nothing says it goes.
    before = (ORIGINAL + "\nfunc Public() int {\n\treturn 1\n}\n").split("\n")
    after = EXPECTED.split("\n")
    gone = [j for j in range(HEAD.count("\n"), len(before)) if before[j].strip()]
    assert not dead_edge(before, after, gone, "go")
    gone_dead = [j for j in range(HEAD.count("\n"), ORIGINAL.count("\n")) if before[j].strip()]
    assert dead_edge(before, after, gone_dead, "go")


def test_definition_dropped_at_the_file_end_with_its_last_use() -> None:
    # The guard's test: the sketch ends, with no marker, on the kept lines right before it.
    lines = ORIGINAL.split("\n")
    start = HEAD.count("\n") + 2
    end = ORIGINAL.count("\n") - 1
    definition = Definition("function_declaration", "expVars", start, end, 0)
    gone = set(range(HEAD.count("\n"), len(lines)))
    lang = detect_language("profiler.go")
    assert dropped_with_last_use(definition, lines, SKETCH.split("\n"), gone, lang)
    marked = [*SKETCH.split("\n"), "// ... existing code ..."]
    assert not dropped_with_last_use(definition, lines, marked, gone, lang)


def test_definition_dropped_at_the_file_end_after_new_lines() -> None:
    # The sketch shows `return mux` / `}` of the kept function, then new lines to its end (no
    # marker): those take the place of the deleted definition, as between two kept lines.
    lines = ORIGINAL.split("\n")
    start = HEAD.count("\n") + 2
    definition = Definition("function_declaration", "expVars", start, ORIGINAL.count("\n") - 1, 0)
    gone = set(range(HEAD.count("\n"), len(lines)))
    lang = detect_language("profiler.go")
    sketch = [*SKETCH.split("\n"), "", "func health2() {}"]
    assert dropped_with_last_use(definition, lines, sketch, gone, lang)


CONF = """import os
import re


def find_version(path):
    with open(os.path.join("src", path)) as handle:
        return re.search(r"__version__ = '(.*)'", handle.read()).group(1)


# -- General configuration
project = "demo"
author = "someone"
copyright = "2024"
language = "en"
exclude_patterns = ["_build"]
release = find_version("demo/__init__.py")
version = release.rsplit(".", 1)[0]
"""
# A new import as the sketch's first line (no marker before it), and the one use of
# `find_version` replaced: the helper and the imports only it used are left dead.
CONF_SKETCH = """from importlib import metadata


# ... existing code ...
exclude_patterns = ["_build"]
release = metadata.version("demo")
version = release.rsplit(".", 1)[0]
"""
CONF_EXPECTED = "from importlib import metadata\n\n\n" + CONF[CONF.index("# -- General") :].replace(
    'find_version("demo/__init__.py")', 'metadata.version("demo")'
)


def test_new_head_replaces_the_leading_code_it_leaves_dead() -> None:
    result = merge(CONF, CONF_SKETCH, path="conf.py")
    assert isinstance(result, Merged), result
    assert result.text == CONF_EXPECTED


def test_new_head_goes_before_leading_code_still_used() -> None:
    # `os` is still used below: the leading imports stay, the new import goes before them.
    original = CONF + "root = os.getcwd()\n"
    result = merge(original, CONF_SKETCH + "# ... existing code ...\n", path="conf.py")
    assert isinstance(result, Merged), result
    assert result.text.startswith("from importlib import metadata\n")
    assert "import os\nimport re\n" in result.text and "def find_version(path):" in result.text


def test_verifier_dead_python_head() -> None:
    before = CONF.split("\n")
    after = CONF_EXPECTED.split("\n")
    gone = [j for j in range(CONF[: CONF.index("# -- General")].count("\n")) if before[j].strip()]
    assert dead_python_head(before, after, gone)
    # Keeping a use of `find_version` in the merged file: the head is not dead.
    assert not dead_python_head(before, [*after, "x = find_version('a')"], gone)


MATRIX = """class Matrix:
    def __init__(self, rows):
        self.rows = rows

    def total(self):
        return sum(sum(row) for row in self.rows)

    def flatten(self):
        out = []
        for row in self.rows:
            for value in row:
                out.append(value)
        return out
"""


def test_new_body_ending_in_return_replaces_the_rest_of_the_last_block() -> None:
    # The sketch rewrites the file's last method from its header, no marker after it: the old
    # body's lines, kept after the new `return`, could never run.
    sketch = (
        "# ... existing code ...\n"
        "    def flatten(self):\n"
        "        return [value for row in self.rows for value in row]\n"
    )
    result = merge(MATRIX, sketch, path="matrix.py")
    assert isinstance(result, Merged), result
    assert result.text == MATRIX[: MATRIX.index("        out = []")] + (
        "        return [value for row in self.rows for value in row]\n"
    )


def test_new_body_line_without_return_leaves_the_rest_of_the_block_unclear() -> None:
    sketch = "# ... existing code ...\n    def flatten(self):\n        log(self.rows)\n"
    result = merge(MATRIX, sketch, path="matrix.py")
    assert isinstance(result, Refused)
    assert "no marker" in result.reason
