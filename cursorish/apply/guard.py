"""Refusing merges that delete more than the sketch plausibly asked for."""

from __future__ import annotations

from cursorish.apply.languages import Language
from cursorish.apply.lines import SourceFile


def check_deletions(
    source: SourceFile, original: str, sketch: list[str], deleted: list[int], lang: Language
) -> None:
    """Raise `RefusedMerge` when the deleted lines hold something the sketch never mentions."""
    return None
