"""Ties between readings of a lazy sketch told by what each reading does to the lines it
removes, where likeness in letters tells nothing: the one reading whose removed lines its new
lines rewrite (every name a removed line uses is still written by the new lines), where every
rival only inserts the same lines or removes lines the new lines do not rewrite.
"""

from __future__ import annotations

import difflib
import re

from cursorish.apply.align import STRONG
from cursorish.apply.blankless import dropped_every_blank
from cursorish.apply.languages import Language
from cursorish.apply.lazy_sketch import _COMMON_WORDS, _WORD, LazySketch, Merge
from cursorish.apply.lines import SourceFile, weight

# Code, not prose: the names a code line uses tell which line new code rewrites, while the
# words of prose (a sentence of a comment or doc paragraph) recur throughout a file and tell
# nothing. A sentence: this many words or more, and no bracket, `=` or `;`.
_CODE = re.compile(r"[()\[\]{}=;]")
_SENTENCE_WORDS = 6
# A sketch this long with no blank line has likely dropped them (see `blankless`).
_LONG = 10
_NEAR = 0.75  # a removed line this like a new line reads as its edited version
_PAIRS = 40_000


def rewriting_reading(
    source: SourceFile, readings: list[Merge], sketch: LazySketch | None, lang: Language
) -> int | None:
    """The one reading that rewrites the lines it removes, where each rival does not: of the
    lines a reading removes that not every reading removes, at least one is rewritten (each
    telling word of it occurs among the reading's new lines, and it is not itself one of them)
    and every other one is rewritten or moved (written again among the new lines). A rival
    that only inserts the sketch's new lines, or removes a line whose telling words the new
    lines drop, reads the sketch as less of an edit. None where no reading or more than one
    does so, where a rival's removed lines are nearly its new lines (a rename is an edit
    too), where the one writes a telling line the file keeps verbatim (a copy of a kept line
    is no rewrite) or removes one it writes again, or where the sketch shows no blank line
    and may have dropped them (`blankless`: it is long, or the rewritten lines stand beside
    a blank line), so that where its lines go is a guess already."""
    if len(readings) < 2 or sketch is None:
        return None
    shown = [line for chunk in sketch.chunks for line in chunk.lines]
    if dropped_every_blank(shown, lang, source.lines):
        return None
    common = set.intersection(*(m.removed for m in readings))
    found = [index for index, m in enumerate(readings) if _rewrites(source, m, common)]
    if len(found) != 1:
        return None
    if any(
        _edits_alike(source, m, common) for index, m in enumerate(readings) if index != found[0]
    ):
        return None  # a rival rewrites lines nearly the new ones: it reads as an edit too
    winner = readings[found[0]]
    if _copies_kept_line(source, winner) or _moves_lines(source, winner):
        return None
    if not any(not line.strip() for line in shown) and (
        len(shown) >= _LONG or _beside_blank(source, winner, common)
    ):
        return None  # no blank line shown: whether the rewritten lines had some is a guess
    return found[0]


def _new_lines(merge: Merge) -> list[str]:
    return [line.strip() for line in [*merge.added, *(t for _j, t in merge.rewritten)]]


def _rewrites(source: SourceFile, merge: Merge, common: set[int]) -> bool:
    """Whether the reading's own removed lines are rewritten (or moved) by its new lines, one
    of them rewritten at least."""
    new = [line for line in _new_lines(merge) if line]
    words = {w for line in new for w in _WORD.findall(line)}
    same = set(new)
    rewritten = False
    for j in sorted(merge.removed - common):
        line = source.lines[j].strip()
        if not line:
            continue
        if line in same:
            continue  # moved: written again among the new lines
        own = set(_WORD.findall(line)) - _COMMON_WORDS
        if not own or not own <= words or _prose(line):
            return False
        rewritten = True
    return rewritten


def _prose(line: str) -> bool:
    return len(line.split()) >= _SENTENCE_WORDS and not _CODE.search(line)


def _edits_alike(source: SourceFile, merge: Merge, common: set[int]) -> bool:
    """Whether the reading's own removed lines (those not every reading removes) read as
    edits of its new lines: each one not written again among them (moved) is nearly one of
    them (a name renamed, a typo fixed) or the start of one (more written after it), and
    there is such a line."""
    new = [line for line in _new_lines(merge) if line]
    same = set(new)
    own = [source.lines[j].strip() for j in sorted(merge.removed - common)]
    own = [line for line in own if line and line not in same]
    if not own or len(own) * len(new) > _PAIRS:
        return bool(own)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    for line in own:
        matcher.set_seq2(line)
        # A new line that begins with the removed one extends it (`>` to `> & T`): its edit.
        if not any(other.startswith(line) or _near(matcher, other) for other in new):
            return False
    return True


def _near(matcher: difflib.SequenceMatcher[str], other: str) -> bool:
    matcher.set_seq1(other)
    return (
        matcher.real_quick_ratio() >= _NEAR
        and matcher.quick_ratio() >= _NEAR
        and matcher.ratio() >= _NEAR
    )


def _beside_blank(source: SourceFile, merge: Merge, common: set[int]) -> bool:
    """Whether a line the reading removes (of those not every reading removes) is blank or
    stands next to a blank line."""
    lines = source.lines
    return any(
        not lines[j].strip()
        or (j > 0 and not lines[j - 1].strip())
        or (j + 1 < len(lines) and not lines[j + 1].strip())
        for j in merge.removed - common
    )


def _moves_lines(source: SourceFile, merge: Merge) -> bool:
    """Whether the reading removes a telling line and writes it again verbatim among its new
    lines: a sign that it misplaces some chunk, too doubtful a reading to settle a tie."""
    new = set(_new_lines(merge))
    return any(
        source.lines[j].strip() in new and weight(" ".join(source.lines[j].split())) >= STRONG
        for j in merge.removed
    )


def _copies_kept_line(source: SourceFile, merge: Merge) -> bool:
    """Whether the reading writes as new a telling line the file holds verbatim at a line it
    keeps: another reading matches that line there instead."""
    gone = merge.removed
    kept = {line.strip() for j, line in enumerate(source.lines) if j not in gone and line.strip()}
    return any(
        line in kept and weight(" ".join(line.split())) >= STRONG
        for line in _new_lines(merge)
        if line
    )
