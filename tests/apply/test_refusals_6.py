"""Issue 17, round 7: refusals that are not ties, where the sketch tells its reading.

Each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

# Many small functions, so that a lone `}` occurs everywhere and anchors nothing by itself.
FUNCS = "".join(
    f"// Check{k} tells whether v is {k}.\nfunc Check{k}(v int) bool {{\n\treturn v == {k}\n}}\n\n"
    for k in range(12)
)
GO = "package checks\n\n" + FUNCS


def test_bare_edged_sketch_ending_on_a_closer_of_a_shown_function_keeps_the_file_end() -> None:
    """A sketch without any edge marker, whose last chunk ends on the `}` closing a function
    whose header it shows (a line found once), leaves out the rest of the file: that `}` is
    where the function ends, so no other copy of `}` could be where the sketch stops."""
    sketch = (
        "// Check2 tells whether v is 2.\n"
        "func Check2(v int) bool {\n"
        "\treturn v == 2 || v == -2\n"
        "}\n"
        "// ... existing code ...\n"
        "func Check5(v int) bool {\n"
        "\treturn v == 5 || v == -5\n"
        "}\n"
    )
    expected = GO.replace("\treturn v == 2\n", "\treturn v == 2 || v == -2\n").replace(
        "\treturn v == 5\n", "\treturn v == 5 || v == -5\n"
    )
    result = merge(GO, sketch, path="checks.go")
    assert isinstance(result, Merged), result
    assert result.text == expected


SWITCH = """package srv

func handle(w Writer, r *Request) {
\tswitch r.Method {

\tcase "GET":
\t\tcurrent := load()
\t\twrite(w, current)

\tcase "PUT":
\t\tvar req payload
\t\tdecode(r, &req)
\t}
}
"""


def test_blank_after_marker_then_new_lines_rewrite_the_lines_after_the_blank_line_for_line() -> (
    None
):
    """A chunk that opens after a marker with a blank line and then a new line right before
    its first match rewrites the original lines between the blank line above that match and
    it, where they are as many, each opening with the same word and ending the same way
    (`case "GET":` for `case http.MethodGet:`): the sketch's blank line is that blank line."""
    sketch = (
        "// ... existing code ...\n"
        "\n"
        "\tcase http.MethodGet:\n"
        "\t\tcurrent := load()\n"
        "// ... existing code ...\n"
        "\n"
        "\tcase http.MethodPut:\n"
        "\t\tvar req payload\n"
        "// ... existing code ...\n"
    )
    expected = SWITCH.replace('case "GET":', "case http.MethodGet:").replace(
        'case "PUT":', "case http.MethodPut:"
    )
    result = merge(SWITCH, sketch, path="srv.go")
    assert isinstance(result, Merged), result
    assert result.text == expected


NAMES = """package names

func describe(u User) string {
\tif u.First == "" {
\t\treturn "nobody"
\t}

\t// we can to more here, with the other fields
}
"""


def test_chunk_opening_with_the_closer_just_above_its_span_is_that_closer() -> None:
    """A chunk after a marker that opens with a bare `}` and then rewrites the lines below it
    is not a second `}` written under the original one (a block closed twice): where the
    original has that same `}` just above the lines the chunk replaces (blank lines between
    as the chunk writes them), the chunk starts on it."""
    sketch = (
        "\t// ... existing code ...\n\t}\n\n\t// we can do more here, with the other fields\n}\n"
    )
    expected = NAMES.replace("we can to more", "we can do more")
    result = merge(NAMES, sketch, path="names.go")
    assert isinstance(result, Merged), result
    assert result.text == expected


PARSE = """package runes

func parse(s string) rune {
\thex, err := strconv.ParseUint(s, 16, 32)
\tif err != nil {
\t\tpanic(err)
\t}
\t// NOTE: this check is odd and may go
\tif !valid(string(rune(hex))) {
\t\tpanic("invalid")
\t}
\treturn rune(hex)
}
"""


def test_chunk_opening_with_a_closer_a_few_lines_above_replaces_the_lines_between() -> None:
    """The same `}` a few lines above the span, with only lines as deep between and none of
    them blank: the chunk runs on from that `}`, so the lines between go."""
    sketch = (
        "// ... existing code ...\n"
        "\t}\n"
        "\tif !utf8.ValidRune(rune(hex)) {\n"
        '\t\tpanic("invalid")\n'
        "// ... existing code ...\n"
    )
    expected = PARSE.replace(
        "\t// NOTE: this check is odd and may go\n\tif !valid(string(rune(hex))) {\n",
        "\tif !utf8.ValidRune(rune(hex)) {\n",
    )
    result = merge(PARSE, sketch, path="runes.go")
    assert isinstance(result, Merged), result
    assert result.text == expected


FLAT = """package out

func write(w Writer, entry *Entry) {
\tdata, err := entry.Bytes()
\tif err != nil {
\t\treport("cannot read entry", err)
\t} else {
\t\t_, err = w.Write(data)
\t\tif err != nil {
\t\t\treport("cannot write entry", err)
\t\t}
\t}
}
""" + "".join(
    f"\nfunc check{k}(v int) {{\n\tif v > {k} {{\n\t\tpanic(v)\n\t}}\n}}\n" for k in range(6)
)


def test_closers_ending_a_rewritten_block_opened_in_the_gap_are_the_nearest_ones() -> None:
    """A chunk anchored before the lines it replaces by a line found once, that ends on bare
    closers (`}` `}`), is placed by the block structure where the first closer ends a block
    opened among the replaced lines (`} else {` flattened into an early return): that closer
    is the one right after them, not any other copy of `}` in the file."""
    sketch = (
        "// ... existing code ...\n"
        "\tif err != nil {\n"
        '\t\treport("cannot read entry", err)\n'
        "\t\treturn\n"
        "\t}\n"
        "\tif _, err = w.Write(data); err != nil {\n"
        '\t\treport("cannot write entry", err)\n'
        "\t}\n"
        "}\n"
        "// ... existing code ...\n"
    )
    old = (
        "\t} else {\n\t\t_, err = w.Write(data)\n\t\tif err != nil {\n"
        '\t\t\treport("cannot write entry", err)\n\t\t}\n\t}\n'
    )
    new = (
        "\t\treturn\n\t}\n\tif _, err = w.Write(data); err != nil {\n"
        '\t\treport("cannot write entry", err)\n\t}\n'
    )
    result = merge(FLAT, sketch, path="out.go")
    assert isinstance(result, Merged), result
    assert result.text == FLAT.replace(old, new)


WATCH = """package watch

func (w *Watcher) Start() {
\tdone := make(chan bool)
\tgo func() {
\t\tgo func() {
\t\t\tfor {
\t\t\t\tw.poll()
\t\t\t}
\t\t}()

\t\tif w.path != "" {
\t\t\tw.add(w.path)
\t\t}
\t\tw.addAll(w.paths)
\t\t<-done
\t}()
}
""" + "".join(
    f"\nfunc (w *Watcher) spin{k}() {{\n\tgo func() {{\n\t\tgo func() {{\n\t\t\tfor {{\n"
    f"\t\t\t\tw.tick({k})\n\t\t\t}}\n\t\t}}()\n\t}}()\n}}\n"
    for k in range(4)
)


def test_closers_before_the_gap_are_the_nearest_copy_when_a_line_found_once_ends_it() -> None:
    """A chunk after a marker that opens with bare closers (`}` `}()`), then new code and a
    line the original has once: the gap it replaces ends at that line, so the closers are
    the nearest copy of them above it, where the gap's lines, all as deep, do not repeat
    the last closer."""
    sketch = (
        "// ... existing code ...\n"
        "func (w *Watcher) Start() {\n"
        "\t// ... existing code ...\n"
        "\t\t\t}\n"
        "\t\t}()\n"
        "\n"
        "\t\tw.add(w.target())\n"
        "\t\t<-done\n"
        "\t}()\n"
        "}\n"
        "// ... existing code ...\n"
    )
    old = WATCH.split("\t\tif w.path")[1].split("\t\t<-done")[0]
    expected = WATCH.replace("\t\tif w.path" + old, "\t\tw.add(w.target())\n")
    result = merge(WATCH, sketch, path="watch.go")
    assert isinstance(result, Merged), result
    assert result.text == expected
