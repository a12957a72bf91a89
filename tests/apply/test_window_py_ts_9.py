"""Issue 17, round 9b: window-style sketches (a few lines of context, markers at column 0) that
delete a definition by showing the lines on both sides of it next to each other.

Each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused

TAGS = '''import json

from shop.models import Item


def _old_slug(name: str) -> str:
    slug = name.lower().strip()
    return "-".join(slug.split())


class Tagger:
    """Attach tags to the items of a shop."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def tag(self, item: Item) -> str:
        return json.dumps([self.prefix, item.name])
'''


def test_dead_private_helper_deleted_between_lines_the_sketch_shows_together() -> None:
    """The file never calls `_old_slug` (private, dead code) and the sketch shows the import
    and the class header next to each other, with no marker between: it deletes the helper."""
    sketch = (
        "# ... rest unchanged ...\n"
        "from shop.models import Item\n"
        "\n"
        "\n"
        "class Tagger:\n"
        '    """Attach tags to the items of a shop."""\n'
        "\n"
        "    def __init__(self, prefix: str) -> None:\n"
        "# ... rest unchanged ...\n"
    )
    start = TAGS.index("def _old_slug")
    end = TAGS.index("class Tagger")
    expected = TAGS[:start] + TAGS[end:]
    result = merge(TAGS, sketch, path="tags.py")
    assert isinstance(result, Merged), result
    assert result.text == expected


def test_dead_public_function_the_sketch_skips_is_not_deleted() -> None:
    """A public function the file does not call may be used by other modules: a sketch that
    skips it without a marker does not say to delete it."""
    public = TAGS.replace("_old_slug", "old_slug")
    sketch = (
        "# ... rest unchanged ...\n"
        "from shop.models import Item\n"
        "\n"
        "\n"
        "class Tagger:\n"
        '    """Attach tags to the items of a shop."""\n'
        "\n"
        "    def __init__(self, prefix: str) -> None:\n"
        "# ... rest unchanged ...\n"
    )
    result = merge(public, sketch, path="tags.py")
    assert isinstance(result, Refused), result


ROUTES = """const handlers = {
  get: onGet,
  post: onPost,
};

function describe(path: string): string {
  const parts = path.split('/');
  return parts.filter(Boolean).join(' > ');
}

export function route(path: string): string {
  return handlers.get(path);
}
"""


def test_definition_deleted_with_last_use_after_a_closing_line_backed_by_a_telling_one() -> None:
    """The line before the deleted function is a bare `};`, which alone could close any block;
    the sketch shows it right after the telling line above it, then the next function's
    header: the pair places the edge, and the function goes with its last use."""
    sketch = (
        "// ... existing code ...\n"
        "  post: onPost,\n"
        "};\n"
        "\n"
        "export function route(path: string): string {\n"
        "  return handlers.get(path);\n"
        "}\n"
    )
    expected = ROUTES.replace(
        "function describe(path: string): string {\n"
        "  const parts = path.split('/');\n"
        "  return parts.filter(Boolean).join(' > ');\n"
        "}\n\n",
        "",
    )
    used_once = ROUTES.replace(
        "  return handlers.get(path);", "  return handlers.get(describe(path));"
    )
    result = merge(used_once, sketch, path="routes.ts")
    assert isinstance(result, Merged), result
    assert result.text == expected
