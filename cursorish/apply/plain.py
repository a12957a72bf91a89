"""Sketches without markers: the whole new file, or a snippet that replaces some definitions."""

from __future__ import annotations

from collections import Counter

from cursorish.apply.guard import check_deletions
from cursorish.apply.languages import Language
from cursorish.apply.lazy import Chunk, LazySketch, Merge, RefusedMerge, merge_lazy_sketch
from cursorish.apply.lines import SourceFile, indent_width, key
from cursorish.apply.snippet_blanks import guessed_blanks
from cursorish.apply.verify.alignment import _lines

WHOLE_COVERAGE = 0.5  # share of the original's lines a whole-file sketch keeps, at least


def merge_plain(
    source: SourceFile, original: str, lines: list[str], lang: Language
) -> tuple[str, str]:
    """The merged text and the format ("whole" or "snippet") the sketch was read as."""
    if not any(line.strip() for line in source.lines) or _is_whole(source, lines):
        return source.render([(line, None) for line in lines]), "whole"
    sketch = LazySketch(_top_level_chunks(lines), True, True, 0)
    result = merge_lazy_sketch(source, sketch, lang)
    _deleted_blank_doubt(source, result)
    _blank_side_doubt(source, result)
    _open_end_doubt(source, lines, result)
    text = source.render(result.pieces)
    shown = [k for k, line in enumerate(lines) if line.strip()]
    spaced = any(not line.strip() for line in lines[shown[0] : shown[-1]])
    if doubt := guessed_blanks(source.lines, _lines(text), spaced):
        raise RefusedMerge(doubt)
    check_deletions(source, original, text, lines, result.deleted, lang)
    return text, "snippet"


def _deleted_blank_doubt(source: SourceFile, result: Merge) -> None:
    """Planners drop blank lines from snippets, which have no markers to frame them: where
    the merge deletes the blank original line between a line it keeps and new lines the
    snippet writes next to that line, the snippet may as well have left the blank line out
    as deleted it, so refuse (a blank line deleted with the old code around it, shown by
    leaving that code out between two kept lines, is no doubt)."""
    lines = source.lines
    gone = set(result.deleted)
    order = _merged_order(source, result)
    for i, j in enumerate(order):
        if j is None or j < 0 or not lines[j].strip():
            continue
        for step in (-1, 1):
            near = j + step
            if not (0 <= near < len(lines)) or near not in gone or lines[near].strip():
                continue
            if 0 <= i + step < len(order) and order[i + step] is None:
                raise RefusedMerge(
                    f"the snippet deletes original blank line {near + 1} next to original "
                    f"line {j + 1}, which it keeps, and writes new code there: unclear "
                    "whether it deletes the blank line or only left it out"
                )


def _merged_order(source: SourceFile, result: Merge) -> list[int | None]:
    """The original line of each merged line: None for a new line, -1 for a new blank one."""
    lines = source.lines
    gone = set(result.deleted)
    kept = [j for j in range(len(lines)) if j not in gone]
    order: list[int | None] = []
    p = 0
    # Original lines are the very strings of the source (`is`, not `==`: a copy is new).
    for text, _ending in result.pieces:
        if p < len(kept) and text is lines[kept[p]]:
            order.append(kept[p])
            p += 1
        else:
            order.append(None if text.strip() else -1)
    return order


def _blank_side_doubt(source: SourceFile, result: Merge) -> None:
    """New lines a snippet puts between two original lines that a blank line separates, right
    next to one of them: planners drop and keep blank lines in snippets at will, so the new
    code may as well go on the other side of the blank line, or between two blank lines."""
    lines = source.lines
    order = _merged_order(source, result)
    i = 0
    while i < len(order):
        if order[i] is not None and order[i] != -1:
            i += 1
            continue
        start = i
        while i < len(order) and (order[i] is None or order[i] == -1):
            i += 1
        if None not in order[start:i]:
            continue
        x, near_x = _kept_neighbour(lines, order, start - 1, -1)
        y, near_y = _kept_neighbour(lines, order, i, 1)
        if x is None or y is None or not (near_x or near_y) or y <= x + 1:
            continue
        if near_y and not near_x and all(_attaches(t) for t in _texts(result, start, i)):
            continue  # comments and attributes go with the line they sit on
        if all(not lines[j].strip() for j in range(x + 1, y)):
            raise RefusedMerge(
                f"the snippet writes new code between original lines {x + 1} and {y + 1}, "
                "which a blank line separates, right next to one of them: unclear on which "
                "side of the blank line it goes"
            )


def _texts(result: Merge, start: int, stop: int) -> list[str]:
    return [text.strip() for text, _ending in result.pieces[start:stop] if text.strip()]


def _attaches(text: str) -> bool:
    """Whether a line belongs with the line after it: a comment, an outer attribute
    (`#[derive(...)]`, not a file's `#![...]`) or a decorator."""
    if text.startswith("#!"):
        return False
    return text.startswith(("//", "/*", "*", "#[", "@", "# ")) or text == "#"


def _kept_neighbour(
    lines: list[str], order: list[int | None], at: int, step: int
) -> tuple[int | None, bool]:
    """The first non-blank original line from merged position `at` on in direction `step`,
    over kept blank lines only, and whether it is right at `at`."""
    k = at
    while 0 <= k < len(order):
        j = order[k]
        if j is None or j == -1:
            return None, False
        if lines[j].strip():
            return j, k == at
        k += step
    return None, False


def _open_end_doubt(source: SourceFile, lines: list[str], result: Merge) -> None:
    """A snippet that ends on a new line inside a block whose original body goes on after it
    (the next line the merge keeps is as deep): with no marker to say so, the snippet may
    replace the rest of that body or add to it, so refuse."""
    shown = [line for line in lines if line.strip()]
    if not shown or shown[-1] not in result.added:
        return
    texts = [text for text, _ending in result.pieces]
    last = len(texts) - 1
    while last >= 0 and texts[last] is not shown[-1] and texts[last] != shown[-1]:
        last -= 1
    after = next((t for t in texts[last + 1 :] if t.strip()), None)
    if last < 0 or after is None:
        return
    depth = indent_width(shown[-1])
    if depth > 0 and indent_width(after) >= depth:
        raise RefusedMerge(
            f"the snippet ends on the new line {shown[-1].strip()!r} inside a block whose "
            f"original body goes on after it ({after.strip()!r}): unclear whether it replaces "
            "the rest of that body or adds to it"
        )


def _is_whole(source: SourceFile, lines: list[str]) -> bool:
    original = Counter(k for k in (key(line) for line in source.lines) if k)
    sketch = Counter(k for k in (key(line) for line in lines) if k)
    if not original:
        return True
    kept = sum((original & sketch).values())
    coverage = kept / sum(original.values())
    if coverage >= WHOLE_COVERAGE:
        return True
    if len(lines) >= 0.8 * len(source.lines):
        return True
    if kept == 0:
        raise RefusedMerge("no line of the sketch occurs in the original: is it for another file?")
    return False


def _top_level_chunks(lines: list[str]) -> list[Chunk]:
    """A snippet's top-level pieces (each after a blank line, at the snippet's least depth),
    as chunks with an implied marker between them: each replaces its own original."""
    depth = min(indent_width(line) for line in lines if line.strip())
    chunks: list[Chunk] = []
    start = 0
    for number in range(1, len(lines)):
        line = lines[number]
        if line.strip() and indent_width(line) == depth and not lines[number - 1].strip():
            if _is_closer(line):
                continue
            if any(x.strip() for x in lines[start:number]):
                chunks.append(Chunk(lines[start:number], start, depth if chunks else None))
            start = number
    chunks.append(Chunk(lines[start:], start, depth if chunks else None))
    for chunk in chunks[1:]:
        chunk.floor = depth
    return chunks


def _is_closer(line: str) -> bool:
    return line.strip().startswith(("}", ")", "]", "end", "else", "elif", "except", "finally"))
