"""A new entry written beside its look-alikes in a list of bracketed entries.

In a list of look-alike entries (`{ name: ..., url: ... },` one after another), a chunk that
shows a new entry next to the separator brackets `},` and `{` can have them matched at any of
the file's many copies. Matched at the separator one entry away from the entry the chunk
anchors (by a line with words on the chunk's other side), the new lines land inside the entry
between and replace its whole body: every line of an entry the sketch never shows. The sketch
shows a new entry and its separator, so it inserts one: its separator is the copy on the
anchored side, and the old entry's lines all stay.
"""

from __future__ import annotations

from cursorish.apply.align import Index
from cursorish.apply.lazy_sketch import Chunk
from cursorish.apply.lines import CLOSING_BRACKETS, indent_width
from cursorish.apply.spans import Span

_OPENERS = ("{", "[", "(")
_BODY = 3  # non-blank lines of the old entry's body the new lines would replace, at least


def _bare(key: str) -> bool:
    return bool(key) and not any(ch.isalnum() for ch in key)


def _separator_pairs(pairs: list[tuple[int, int]], keys: list[str]) -> bool:
    """Whether these matched lines are brackets only that close one entry and open the next
    (`},` then `{`, or `}, {`)."""
    shown = [keys[k] for k, _j in pairs]
    return (
        all(_bare(k) for k in shown)
        and shown[0].startswith(CLOSING_BRACKETS)
        and shown[-1].endswith(_OPENERS)
    )


def _worded(pairs: list[tuple[int, int]], keys: list[str]) -> bool:
    return any(not _bare(keys[k]) for k, _j in pairs)


def _onto(
    bare: list[tuple[int, int]], other: list[tuple[int, int]], keys: list[str]
) -> list[tuple[int, int]]:
    """The bare separator's lines matched instead to the copies of them that the other side's
    chain holds next to the gap, in order from the side away from the gap (as far as they
    agree): the separator there is the one the sketch shows."""
    moved = []
    for (k, _j), (ko, jo) in zip(bare, other, strict=False):
        if keys[k] != keys[ko]:
            break
        moved.append((k, jo))
    return moved


def _all_matched(pairs: list[tuple[int, int]], keys: list[str], first: int = 0) -> bool:
    """Whether the chain matches every non-blank line of this part of the chunk."""
    return {k for k, _j in pairs} == {first + k for k, key in enumerate(keys) if key}


def new_entry(chunk: Chunk, span: Span, index: Index) -> None:
    """The span read as a new entry inserted beside the entry the chunk anchors, where its
    matches replace the whole body of one entry (between the entry's opening and closing
    bracket lines, all its lines deeper) with new lines that are one entry's body, and on one
    side of that gap the chunk shows nothing but a separator (`},` then `{`) matched at the
    gap while the other side holds a line with words: the separator is matched instead at its
    copy on the anchored side, so the new lines go in and the old entry stays."""
    keys = chunk.keys
    pairs = sorted((k, j) for k, j in span.matched.items() if keys[k])
    for n in range(len(pairs) - 1):
        (k1, j1), (k2, j2) = pairs[n], pairs[n + 1]
        if not any(keys[k] for k in range(k1 + 1, k2)):
            continue
        gone = [j for j in range(j1 + 1, j2) if not index.blank[j]]
        if len(gone) < _BODY:
            continue
        if not (index.keys[j1].endswith(_OPENERS) and index.keys[j2].startswith(CLOSING_BRACKETS)):
            continue
        depth = index.indents[j1]
        if index.indents[j2] != depth or any(index.indents[j] <= depth for j in gone):
            continue
        if any(
            indent_width(chunk.lines[k]) <= indent_width(chunk.lines[k1])
            for k in range(k1 + 1, k2)
            if keys[k]
        ):
            continue  # the new lines are not one entry's body
        ahead, behind = pairs[: n + 1], pairs[n + 1 :]
        if (
            _all_matched(ahead, keys[: k1 + 1])
            and _separator_pairs(ahead, keys)
            and _worded(behind, keys)
        ):
            moved = _onto(ahead, behind, keys)
            if moved:
                kept = behind[len(moved) - 1][0] + 1, len(keys)
                _rematch(span, keys, [*moved, *behind[len(moved) :]], kept)
                span.a = min(span.matched.values())
                return
        elif (
            _all_matched(behind, keys[k2:], k2)
            and _separator_pairs(behind, keys)
            and _worded(ahead, keys)
        ):
            moved = _onto(behind[::-1], ahead[::-1], keys)[::-1]
            if moved:
                stay = ahead[: len(ahead) - len(moved)]
                _rematch(span, keys, [*stay, *moved], (0, ahead[len(stay)][0]))
                span.b = max(span.matched.values()) + 1
                return


def _rematch(
    span: Span, keys: list[str], pairs: list[tuple[int, int]], kept: tuple[int, int]
) -> None:
    """The span's matches become `pairs`, with the blank lines matched in the chunk's lines
    `kept` (start, stop), where nothing moved."""
    blanks = [(k, j) for k, j in span.matched.items() if not keys[k] and kept[0] <= k < kept[1]]
    span.matched.clear()
    span.matched.update(pairs)
    span.matched.update(blanks)
