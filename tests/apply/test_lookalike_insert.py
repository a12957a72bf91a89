"""A new definition much like an existing one (`hideFooter` beside `hideTitle`): the placement
lines it up over the old one as if it were its edit, and the guard refuses the deletion of a
definition the sketch still uses. The reading that writes the new definition whole, beside
the old one, is taken where it edits nothing else the sketch does not show."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.languages import detect_language
from cursorish.apply.lazy import split_sketch
from cursorish.apply.lazy_fresh import fresh_sketch
from cursorish.apply.result import Merged, Refused

GO = """\
package page

type Page struct {
	Title      string
	HideTitle  bool
	HideFooter bool
	parent     *Page
}

func (p *Page) hideTitle() bool {
	trace("hide title (page=%q)", p.Title)
	if p.HideTitle {
		return true
	}

	return p.parent != nil && p.parent.hideTitle()
}

func (p *Page) render() string {
	trace("rendering (page=%q)", p.Title)

	out := ""
	if !p.hideTitle() {
		out += p.Title
	}
	if !p.HideFooter {
		out += "footer"
	}
	return out
}
"""

NEW = """\
func (p *Page) hideFooter() bool {
	trace("hide footer (page=%q)", p.Title)
	if p.HideFooter {
		return true
	}

	return p.parent != nil && p.parent.hideFooter()
}
"""

SKETCH = (
    "// ... existing code ...\n\n"
    + NEW
    + """
func (p *Page) render() string {
	// ... existing code ...
	if !p.hideFooter() {
		out += "footer"
	}
	return out
}
"""
)


def test_new_lookalike_method_goes_beside_the_old_one() -> None:
    outcome = merge(GO, SKETCH, path="page.go")
    assert isinstance(outcome, Merged), outcome
    expected = GO.replace("func (p *Page) render()", NEW + "\nfunc (p *Page) render()").replace(
        "if !p.HideFooter {", "if !p.hideFooter() {"
    )
    assert outcome.text == expected


def test_without_blank_lines_the_guard_refusal_stands() -> None:
    # A sketch that drops every blank line says nothing of where the file's blank lines go.
    bare = "\n".join(line for line in SKETCH.splitlines() if line.strip()) + "\n"
    outcome = merge(GO, bare, path="page.go")
    assert isinstance(outcome, Refused)


def test_only_definitions_of_new_names_are_written_whole() -> None:
    lang = detect_language("page.go")
    lines = SKETCH.splitlines()
    fresh = fresh_sketch(split_sketch(lines, lang), GO, lang)
    assert fresh is not None
    first = fresh.chunks[0]
    marked = sorted(first.fresh)
    # hideFooter's lines (its blank line apart), not render's header that follows it.
    assert [first.lines[k].strip() for k in (marked[0], marked[-1])] == [NEW.splitlines()[0], "}"]
    assert not any("render" in first.lines[k] for k in marked)
    renamed_only = SKETCH.replace("hideFooter()", "hideTitle()")
    again = fresh_sketch(split_sketch(renamed_only.splitlines(), lang), GO, lang)
    assert again is None  # hideTitle is the original's own: an edit of it, not a new one


def test_python_new_function_whole_at_chunk_end() -> None:
    lang = detect_language("m.py")
    sketch = (
        "# ... existing code ...\n\ndef shout(text):\n    return text.upper()\n"
        "# ... existing code ...\n"
    )
    fresh = fresh_sketch(
        split_sketch(sketch.splitlines(), lang), "def say(text):\n    return text\n", lang
    )
    assert fresh is not None
    assert sorted(fresh.chunks[0].fresh) == [1, 2]
