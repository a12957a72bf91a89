"""Issue 17, round 8: TypeScript, TSX and Python refusals where the sketch tells its reading.

Each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

SHAPES = """import type { Point } from './point';

interface Corners {
  topLeft: Point;
  bottomRight: Point;
}

export type Box = {
  corners?: Corners;
  label: string;
};

export function area(box: Box): number {
  return box.label.length;
}
"""


def test_definition_deleted_with_its_last_use_between_lines_the_sketch_shows_together() -> None:
    """The sketch shows the import and the next type's header next to each other (deleting
    the interface between them) and rewrites the only field that used the interface: the
    interface goes with its last use, though the sketch never names it."""
    sketch = (
        "import type { Point } from './point';\n"
        "\n"
        "export type Box = {\n"
        "  corners?: [Point, Point];\n"
        "  label: string;\n"
        "};\n"
        "// ... existing code ...\n"
    )
    expected = SHAPES.replace(
        "interface Corners {\n  topLeft: Point;\n  bottomRight: Point;\n}\n\n", ""
    ).replace("corners?: Corners;", "corners?: [Point, Point];")
    result = merge(SHAPES, sketch, path="shapes.ts")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_definition_still_used_elsewhere_is_not_deleted_by_a_sketch_that_skips_it() -> None:
    """Where the file still uses the interface after the edit, the sketch that shows the
    lines around it next to each other does not say to delete it: the merge is refused."""
    used = SHAPES + "\nexport const none: Corners | null = null;\n"
    sketch = (
        "import type { Point } from './point';\n"
        "\n"
        "export type Box = {\n"
        "  corners?: [Point, Point];\n"
        "  label: string;\n"
        "};\n"
        "// ... existing code ...\n"
    )
    result = merge(used, sketch, path="shapes.ts")
    assert isinstance(result, Refused), result


NOTES = '''import re


def linkify(text: str) -> str:
    """Turns issue numbers into links."""

    pattern = re.compile(r"#(\\d+)")

    def to_link(match: re.Match[str]) -> str:
        number = match.group(1)
        return f"[#{number}](https://example.org/issues/{number})"

    return pattern.sub(to_link, text)


def shout(text: str) -> str:
    return text.upper()
'''


def test_nested_helper_replaced_by_new_lines_between_shown_lines_goes() -> None:
    """A chunk that shows a function's docstring, new lines, then the next function's header,
    with no marker between, replaces everything between them, a nested helper whose only use
    the new lines drop included."""
    sketch = (
        "# ... existing code ...\n"
        '    """Turns issue numbers into links."""\n'
        '    return re.sub(r"#(\\d+)", r"[#\\1](https://example.org/issues/\\1)", text)\n'
        "\n"
        "\n"
        "def shout(text: str) -> str:\n"
        "# ... existing code ...\n"
    )
    start = NOTES.index("\n\n    pattern = re.compile")
    end = NOTES.index("\n\n\ndef shout")
    expected = (
        NOTES[:start]
        + '\n    return re.sub(r"#(\\d+)", r"[#\\1](https://example.org/issues/\\1)", text)'
        + NOTES[end:]
    )
    result = merge(NOTES, sketch, path="notes.py")
    assert isinstance(result, Merged), result
    assert result.text == expected


PLANETS = """export interface Planet {
  name: string;
  moons: number;
  rings: boolean;
}

export const planets: Planet[] = [
  {
    name: "Mercury",
    moons: 0,
    rings: false,
  },
  {
    name: "Venus",
    moons: 0,
    rings: false,
  },
  {
    name: "Earth",
    moons: 1,
    rings: false,
  },
  {
    name: "Mars",
    moons: 2,
    rings: false,
  },
];

export function ringed(): Planet[] {
  return planets.filter((planet) => planet.rings);
}
"""

JUPITER = '    name: "Jupiter",\n    moons: 95,\n    rings: true,\n'


def test_new_entry_after_a_separator_goes_before_the_entry_it_anchors() -> None:
    """A chunk that shows a separator (`},` `{`), a new entry's body and then the separator
    before an entry it shows by name inserts the new entry right before that one: matching
    its first separator one entry earlier would rewrite the whole body of the entry between,
    lines the sketch never shows."""
    sketch = (
        "// ... existing code ...\n"
        "  },\n"
        "  {\n" + JUPITER + "  },\n"
        "  {\n"
        '    name: "Mars",\n'
        "    moons: 2,\n"
        "// ... existing code ...\n"
    )
    expected = PLANETS.replace(
        '  {\n    name: "Mars"', "  {\n" + JUPITER + '  },\n  {\n    name: "Mars"'
    )
    result = merge(PLANETS, sketch, path="planets.ts")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_new_first_entry_ending_on_a_separator_goes_before_the_old_first_entry() -> None:
    """A chunk that anchors a list's opening line, then writes a new entry and ends on the
    separator (`},` `{`) before a marker, puts the new entry first: the old first entry, whose
    lines the marker stands for, stays whole."""
    sketch = (
        "export const planets: Planet[] = [\n"
        "  {\n" + JUPITER + "  },\n"
        "  {\n"
        "    // ... existing code ...\n"
    )
    expected = PLANETS.replace("= [\n  {\n", "= [\n  {\n" + JUPITER + "  },\n  {\n")
    result = merge(PLANETS, "// ... existing code ...\n" + sketch, path="planets.ts")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_entry_rewritten_between_its_own_brackets_is_still_an_edit() -> None:
    """Where the chunk shows no separator on either side (only the entry's own `{` after a
    line with words, and its `},`), the new lines rewrite that entry: no new entry is read."""
    sketch = (
        "// ... existing code ...\n"
        "export const planets: Planet[] = [\n"
        "  {\n"
        '    name: "Hermes",\n'
        "    moons: 0,\n"
        "    rings: true,\n"
        "  },\n"
        "// ... existing code ...\n"
    )
    result = merge(PLANETS, sketch, path="planets.ts")
    if isinstance(result, Refused):
        return  # a refusal is fine; an inserted entry would not be
    assert '"Mercury"' not in result.text
