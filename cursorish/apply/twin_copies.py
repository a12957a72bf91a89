"""A line the sketch writes into one function while the original's only copy lies in another.

The copied-line checks (`guard._check_copied_lines`, `lazy_doubts._copied_doubts`) refuse a
merge where a telling line the original holds once is written anew near that copy: mostly the
sketch's copy was placed next to the lines it shows instead of over them. One reading of that
shape is safe: the sketch writes the line into a function (its copy sits between lines of that
function the chunk matched), the original's copy lies in another function, the merge keeps that
other function whole, and the chunk is pinned to its own function by a line the original and
the sketch each hold once: the function's header (read over the other function, the chunk would
rename it to a name the file declares), or a line no line of the other function is like. The
two functions are twins (`decodeSlice` given the kind check `decodeStruct` has; a nested
callback's `set()` also called by the outer body after an error): no reading puts the chunk
over the other function, and the sketch does not touch it.

The same holds for a doc comment the sketch writes above a new definition, a name the
original declares nowhere, while the original's copy documents a definition of another name
(`doc_of_new_definition`): siblings documented alike, the new one's doc copied from the old.

What is not let through, because each let wrong merges through (held-out-14's resty 94aeffbe1b,
indicatif 2b02626f69 and 89d5e0379d; bubbles 6415ecbfef, tracing 6f9b537c2e): copies in one
function (another branch, another depth: a line moved into a new block reads the same, and a
copy both branches rightly hold there may be all that refuses a reading wrong elsewhere), a
function the sketch rewrites under a header of its own (one replaced under a marker by a new one
that takes over its line), and twin methods pinned only by a line the other twin has an edit of
(its twin's line, matched verbatim, is the edit the sketch makes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from cursorish.apply.blocks import declared_name
from cursorish.apply.lazy_edges import _comment_words, _line_kind
from cursorish.apply.spans import similar
from cursorish.apply.structure import Definition

# Tree-sitter kinds of functions and methods: the body a statement belongs to. Classes and
# declarations (`const config = {...}`) are left out: two copies in one object literal or one
# class body are the same block's lines, which the checks must still judge.
_FUNCTION_KINDS = frozenset(
    {
        "function_definition",
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "method_declaration",
        "function_item",
        "method",
        "singleton_method",
        "constructor_declaration",
    }
)


def innermost_function(found: Iterable[Definition], lines: Iterable[int]) -> Definition | None:
    """The innermost function that holds every one of these lines (None where none does)."""
    wanted = list(lines)
    best: Definition | None = None
    for definition in found:
        if definition.kind not in _FUNCTION_KINDS:
            continue
        if all(definition.start <= x <= definition.end for x in wanted) and (
            best is None or definition.start >= best.start
        ):
            best = definition
    return best


def in_other_function(
    lines: list[str],
    found: list[Definition],
    copy: int,
    home: Definition | None,
    pins: Iterable[int],
    kept: Callable[[int], bool],
) -> bool:
    """Whether the original's copy (line `copy` of the original's `lines`) lies in another
    function than `home`, the one the sketch writes its copy into, and the merge keeps that
    other function whole (`kept` says, for an original line, whether the merge keeps it).
    `pins` are the original lines of telling lines held once that the chunk matched: one of
    them must be a function's header (read over the other function, the chunk would give a
    function there a name the file declares), or lie in `home` outside the other function and
    be like no line of it, or the chunk may be the other function's edit (twin methods, one
    line of the twin the sketch leaves as it is matching the other's edit verbatim). The
    other function may sit inside `home` (a callback) but not around it: a copy in an
    enclosing body is a line the sketch may have moved into a new inner block."""
    own = innermost_function(found, [copy])
    if home is None or own is None or own == home:
        return False
    if own.start <= home.start and home.end <= own.end:
        return False
    body = range(own.start, own.end + 1)
    if not all(kept(x) for x in body):
        return False
    headers = {d.start for d in found if d.kind in _FUNCTION_KINDS and d != own}
    return any(
        x in headers
        or (
            home.start < x <= home.end
            and x not in body
            and not any(similar(lines[x].strip(), lines[y].strip()) for y in body)
        )
        for x in pins
    )


def doc_of_new_definition(copy_lines: list[str], original: list[str], at: int) -> bool:
    """Whether a comment line, written again by the sketch (its copy opening `copy_lines`, the
    lines that follow it) while the original holds it at line `at`, documents a definition of
    a name the original declares nowhere, and the original's copy documents one of another
    name: the doc of a new function copied from its sibling's (`// Returns the value as an
    integer` above a new `GetInt64` beside `GetInt`'s). A copy that documents no definition,
    or one of a name the original has, may be the old comment moved with or over its code."""
    if _line_kind(copy_lines[0]) != "comment" or not _comment_words(copy_lines[0]):
        return False
    new = declared_name(_documented(copy_lines, 0))
    old = declared_name(_documented(original, at))
    if new is None or old is None or new == old:
        return False
    return not any(declared_name(line) == new for line in original)


def _documented(lines: list[str], at: int) -> str:
    """The line a comment at line `at` documents: the next one that is no comment, decorator or
    attribute ('' where a blank line or the end comes first)."""
    for line in lines[at + 1 :]:
        text = line.strip()
        if not text:
            return ""
        if _line_kind(text) != "comment" and not text.startswith(("@", "#[")):
            return line
    return ""
