"""Sketches without markers: the whole new file, or a snippet that replaces some definitions."""

from __future__ import annotations

from collections import Counter

from cursorish.apply.guard import check_deletions
from cursorish.apply.languages import Language
from cursorish.apply.lazy import Chunk, LazySketch, RefusedMerge, merge_lazy_sketch
from cursorish.apply.lines import SourceFile, key

WHOLE_COVERAGE = 0.5  # share of the original's lines a whole-file sketch keeps, at least


def merge_plain(
    source: SourceFile, original: str, lines: list[str], lang: Language
) -> tuple[str, str]:
    """The merged text and the format ("whole" or "snippet") the sketch was read as."""
    if not any(line.strip() for line in source.lines) or _is_whole(source, lines):
        return source.render([(line, None) for line in lines]), "whole"
    sketch = LazySketch([Chunk(lines, 0, None)], True, True, 0)
    result = merge_lazy_sketch(source, sketch, lang)
    text = source.render(result.pieces)
    check_deletions(source, original, text, lines, result.deleted, lang)
    return text, "snippet"


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
