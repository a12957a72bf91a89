"""Issue 17, round 6: ties told by what a reading does to the lines it removes.

Where a sketch fits two places equally well and likeness in letters tells nothing, the one
reading whose new lines rewrite the lines it removes (every name a removed code line uses is
still written by the new lines) is the edit, when each rival only inserts the new lines or
removes lines they do not rewrite. The tie stays where a rival's removed lines are nearly the
new ones (a rename is an edit too), where the removed lines are prose, where the winner writes
a copy of a line the file keeps, and where a sketch without blank lines leaves their place a
guess.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.languages import detect_language
from cursorish.apply.lazy_sketch import LazySketch, Merge, split_sketch
from cursorish.apply.lazy_told_ties import rewriting_reading
from cursorish.apply.lines import SourceFile
from cursorish.apply.result import Merged, Refused

WRITER = """package m

func first(items []string, b *Builder) {
	for i := range items {
		if i > 0 {
			b.Write("\\n")
		}
		b.Write("#" + strconv.Itoa(i) + ": " + items[i])
	}
}

func second(items []string) error {
	for i := range items {
		if items[i] == "" {
			return nil
		}
	}
	return errors.New("none")
}
"""

SPLIT_WRITE = """// ...
		}
		b.Write("#")
		b.Write(strconv.Itoa(i))
		b.Write(": ")
		b.Write(items[i])
	}
// ...
"""


def test_the_reading_whose_new_lines_rewrite_the_removed_line_wins() -> None:
    # Between the two `}` of first() stands the very call the new lines split up; read in
    # second() the lines would only be inserted.
    result = merge(WRITER, SPLIT_WRITE, path="m.go")
    assert isinstance(result, Merged), result
    assert result.text == WRITER.replace(
        '\t\tb.Write("#" + strconv.Itoa(i) + ": " + items[i])\n',
        '\t\tb.Write("#")\n\t\tb.Write(strconv.Itoa(i))\n\t\tb.Write(": ")\n'
        "\t\tb.Write(items[i])\n",
    )


def test_a_rival_that_renames_a_nearly_equal_line_keeps_the_tie() -> None:
    # second() holds the same call with another helper: the new line edits either one (a
    # separator changed, or a helper renamed), so neither reading is told.
    original = WRITER.replace(
        """func second(items []string) error {
	for i := range items {
		if items[i] == "" {
			return nil
		}
	}
	return errors.New("none")
}""",
        """func second(items []string, b *Builder) {
	for i := range items {
		if i > 1 {
			b.Write("\\n")
		}
		b.Write("#" + strconv.Quote(i) + ": " + items[i])
	}
}""",
    )
    sketch = '// ...\n\t\t}\n\t\tb.Write("#" + strconv.Itoa(i) + ", " + items[i])\n\t}\n// ...\n'
    result = merge(original, sketch, path="m.go")
    assert isinstance(result, Refused)
    assert "equally well" in result.reason


PY = """def area(shape):
    width = shape.width
    return width * shape.height


def label(shape):
    name = shape.name
    return name.title()
"""


def _reading(source: SourceFile, gone: list[int], new: list[str]) -> Merge:
    kept: list[tuple[str, str | None]] = [
        (line, None) for j, line in enumerate(source.lines) if j not in gone
    ]
    return Merge(kept, gone, new)


def _sketch(text: str) -> tuple[SourceFile, LazySketch]:
    lang = detect_language("a.py")
    return SourceFile.from_text(PY), split_sketch(text.splitlines(), lang)


def test_a_reading_that_only_inserts_loses_to_one_that_rewrites() -> None:
    source, sketch = _sketch("# ...\n\n    width = shape.width * shape.scale\n# ...\n")
    lang = detect_language("a.py")
    new = ["    width = shape.width * shape.scale"]
    rewrite = _reading(source, [1], new)
    insert = _reading(source, [], new)
    assert rewriting_reading(source, [insert, rewrite], sketch, lang) == 1
    # A rival removing a line the new one does not rewrite (`name` is dropped) loses too.
    unlike = _reading(source, [6], new)
    assert rewriting_reading(source, [rewrite, unlike], sketch, lang) == 0


def test_prose_is_not_told_by_its_words() -> None:
    text = "A shape has a width and a height\n    width = shape.width\n"
    source = SourceFile.from_text(text)
    lang = detect_language("a.py")
    sketch = split_sketch(
        "# ...\n\nA shape has a width and a height, and a depth\n# ...\n".splitlines(), lang
    )
    new = ["A shape has a width and a height, and a depth"]
    rewrite = _reading(source, [0], new)
    insert = _reading(source, [], new)
    assert rewriting_reading(source, [rewrite, insert], sketch, lang) is None


def test_a_reading_that_copies_a_kept_line_is_no_rewrite() -> None:
    # The new lines repeat `name = shape.name`, which this reading keeps as it is.
    source, sketch = _sketch("# ...\n\n    name = shape.name\n    return name.title(1)\n")
    lang = detect_language("a.py")
    new = ["    name = shape.name", "    return name.title(1)"]
    # Matching `name = shape.name` where it stands, the rewrite is told.
    anchored = _reading(source, [7], new[1:])
    assert rewriting_reading(source, [anchored, _reading(source, [], new)], sketch, lang) == 0
    rewrite = _reading(source, [7], new)
    insert = _reading(source, [], new)
    assert rewriting_reading(source, [rewrite, insert], sketch, lang) is None


def test_a_sketch_without_blank_lines_tells_no_rewrite_beside_one() -> None:
    # `return width * ...` stands before a blank line: a sketch that shows none may have
    # dropped it, so whether the rewrite keeps it is a guess.
    source = SourceFile.from_text(PY)
    lang = detect_language("a.py")
    sketch = split_sketch(
        "# ...\n    width = shape.width\n    return width * shape.height * 2\n# ...\n".splitlines(),
        lang,
    )
    new = ["    return width * shape.height * 2"]
    rewrite = _reading(source, [2], new)
    insert = _reading(source, [], new)
    assert rewriting_reading(source, [rewrite, insert], sketch, lang) is None
    spaced = "# ...\n    width = shape.width\n    return width * shape.height * 2\n\n# ...\n"
    shown = split_sketch(spaced.splitlines(), lang)
    assert rewriting_reading(source, [rewrite, insert], shown, lang) == 0
