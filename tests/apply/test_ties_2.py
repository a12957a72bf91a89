"""Issue 17, round 5: ties broken by the file's syntax.

Where a sketch fits two places about equally well and every reading but one breaks the file's
syntax (an opener or a `}` the sketch shows, read as new code where the file has none to match
it), the one that parses is the edit, but only where it reads as the edit the sketch shows on
its own: it deletes only lines between two lines one chunk shows (or lines its new lines are
edits of), changes more than indentation, writes more than copies of lines it keeps, rewrites
no line in place by likeness, removes no definition, and reads at least as much like an edit
as each broken reading.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.languages import detect_language
from cursorish.apply.lazy_rivals import _only_parsing, plain_edit
from cursorish.apply.lazy_sketch import LazySketch, Merge, split_sketch
from cursorish.apply.lines import SourceFile
from cursorish.apply.result import Merged, Refused

STORE = """package shop

func (s *Store) Serve(w Writer, r *Request) {
	if s.closed {
		s.notFound(w, r)
		return
	}
	s.next.Serve(w, r)
}

func (s *Store) Add(spec string, item Item) {
	fields := strings.Fields(spec)
	if len(fields) == 2 {
		kind := strings.ToLower(fields[0])
		name := fields[1]

		known, ok := kinds[kind]
		if !ok {
			panic("shop: unknown kind " + kind)
		}

		s.put(known, name, item)
		return
	}
	s.put(anyKind, spec, item)
}
"""

STORE_SKETCH = """// ...
	if len(fields) == 2 {
		s.AddKind(fields[0], fields[1], item)

		return
// ...
"""


def test_a_reading_that_breaks_the_syntax_is_no_rival() -> None:
    # Read at the bare `return` in Serve, the sketch's `if ... {` would open a block nothing
    # closes; only the reading in Add parses.
    result = merge(STORE, STORE_SKETCH, path="shop.go")
    assert isinstance(result, Merged)
    lines = result.text.splitlines()
    assert "\t\ts.AddKind(fields[0], fields[1], item)" in lines
    assert "\t\tkind := strings.ToLower(fields[0])" not in lines
    assert "\t\ts.notFound(w, r)" in lines and lines.count("\t\treturn") == 2


def _merge(source: SourceFile, kept: list[int], added: list[tuple[int, str]]) -> Merge:
    """A merge keeping the original lines `kept` and writing `added` (before original line j)."""
    pieces: list[tuple[str, str | None]] = []
    extra = [text for _j, text in added]
    for j, line in enumerate(source.lines):
        pieces.extend((text, None) for at, text in added if at == j)
        if j in kept:
            pieces.append((line, None))
    deleted = [j for j in range(len(source.lines)) if j not in kept]
    return Merge(pieces, deleted, extra)


PY = """def area(shape):
    width = shape.width
    height = shape.height
    scale = shape.scale
    return width * height * scale


def label(shape):
    return shape.name
"""


def _py(sketch: str) -> tuple[SourceFile, LazySketch]:
    lang = detect_language("a.py")
    return SourceFile.from_text(PY), split_sketch(sketch.splitlines(), lang)


def test_a_reading_deletes_only_lines_between_two_lines_a_chunk_shows() -> None:
    sketch = (
        "# ...\n    width = shape.width\n\n    depth = shape.depth\n"
        "    return width * height * scale\n"
    )
    source, split = _py(sketch)
    # Lines 2-3 go between `width = ...` and `return ...`, both lines the chunk shows.
    between = _merge(source, [0, 1, 4, 5, 6, 7, 8], [(4, "    depth = shape.depth")])
    assert plain_edit(source, split, between)
    # `label` goes too, after the chunk's last line: the sketch never says so.
    beside = _merge(source, [0, 1, 4], [(4, "    depth = shape.depth")])
    assert not plain_edit(source, split, beside)


def test_a_run_whose_lines_the_new_lines_edit_needs_no_shown_edges() -> None:
    source, split = _py("# ...\n\n    return width * height * scale * 2\n# ...\n")
    edited = _merge(
        source, [0, 1, 2, 3, 5, 6, 7, 8], [(5, "    return width * height * scale * 2")]
    )
    assert plain_edit(source, split, edited)


def test_a_reading_that_only_reindents_or_copies_kept_lines_is_no_edit() -> None:
    source, split = _py("# ...\n\ndef label(shape):\n    return shape.name\n")
    reindented = _merge(
        source, list(range(7)), [(9, "def label(shape):"), (9, "return shape.name")]
    )
    assert not plain_edit(source, split, reindented)
    copied = _merge(source, list(range(9)), [(0, "    return shape.name")])
    assert not plain_edit(source, split, copied)


def test_a_reading_that_rewrites_a_line_in_place_breaks_no_tie() -> None:
    source, split = _py("# ...\n    scale = shape.scale or 1\n\n# ...\n")
    rewritten = Merge(source.original_pieces(0, len(source.lines)), [], [], "", [(3, "x")])
    assert not plain_edit(source, split, rewritten)


def test_two_readings_that_parse_stay_a_tie() -> None:
    source = SourceFile.from_text(PY)
    one = _merge(source, [0, 1, 2, 4, 5, 6, 7, 8], [(4, "    scale = 2")])
    other = _merge(source, [0, 1, 2, 3, 4, 5, 6, 7], [(8, "    return shape.title")])
    readings = {source.render(m.pieces): (m, "tie") for m in (one, other)}
    assert _only_parsing(source, readings, detect_language("a.py")) is None


def test_a_broken_reading_more_like_an_edit_keeps_the_tie() -> None:
    source = SourceFile.from_text(PY)
    # Parses, but its new line resembles nothing it removes.
    clean = _merge(source, [0, 1, 2, 3, 4, 5, 6, 7], [(8, "    return shape.title")])
    # Breaks the file (a stray indented block), yet edits the line its new line is like.
    broken = _merge(
        source, [0, 1, 2, 3, 5, 6, 7, 8], [(5, "    return width * height * scale * 2:")]
    )
    readings = {source.render(m.pieces): (m, "tie") for m in (clean, broken)}
    assert _only_parsing(source, readings, detect_language("a.py")) is None
    unlike = _merge(source, [0, 1, 2, 3, 4, 5, 6, 7, 8], [(5, "    )")])
    readings = {source.render(m.pieces): (m, "tie") for m in (clean, unlike)}
    assert _only_parsing(source, readings, detect_language("a.py")) is clean


def test_a_sketch_that_shows_no_blank_line_breaks_no_tie() -> None:
    # Where the file's blank lines go is a guess already (the sketch may have dropped them):
    # the tie stays.
    sketch = (
        "package shop\nfunc (s *Store) Serve(w Writer, r *Request) {\n"
        "// ...\n\ts.next.Serve(w, r)\n}\nfunc (s *Store) Add(spec string, item Item) {\n"
        "\tfields := strings.Fields(spec)\n\tif len(fields) == 2 {\n"
        "\t\ts.AddKind(fields[0], fields[1], item)\n\t\treturn\n// ...\n"
    )
    assert isinstance(merge(STORE, sketch, path="shop.go"), Refused)
    assert isinstance(merge(STORE, STORE_SKETCH.replace("\n\n", "\n"), path="shop.go"), Refused)
    lang = detect_language("shop.go")
    split = split_sketch(sketch.splitlines(), lang)
    source = SourceFile.from_text(STORE)
    kept = [j for j in range(len(source.lines)) if not 13 <= j <= 21]
    edit = _merge(source, kept, [(22, "\t\ts.AddKind(fields[0], fields[1], item)")])
    assert not plain_edit(source, split, edit)
