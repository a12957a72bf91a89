"""Rival readings of a lazy sketch and the decision between them: other placements about as
good as the best, other copies of lines a chunk could match instead, ties between placements,
and settling which reading stands (the one most like an edit) or refusing the merge.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable

from cursorish.apply.align import STRONG, Index, Placement
from cursorish.apply.blocks import declared_name
from cursorish.apply.languages import Language
from cursorish.apply.lazy_assemble import _assemble
from cursorish.apply.lazy_moved import moved_reading
from cursorish.apply.lazy_place import FLOOR_COST
from cursorish.apply.lazy_scope import scoped_reading
from cursorish.apply.lazy_sketch import (
    _COMMON_WORDS,
    _LIKE,
    _WORD,
    Chunk,
    LazySketch,
    Merge,
    RefusedMerge,
    Validate,
)
from cursorish.apply.lazy_told_ties import rewriting_reading
from cursorish.apply.lines import SourceFile, indent_width, weight
from cursorish.apply.structure import definitions
from cursorish.apply.syntax import new_errors
from cursorish.apply.verify.toplevel import _declared_twice

TIE_MARGIN = 1.0  # two placements closer than this in score are a tie

# A reading must resemble an edit this much more than its rivals (in lines' likeness) to win.
RESEMBLANCE_MARGIN = 1.0

_RESEMBLANCE_PAIRS = 40_000
_NEAR_COPY = 0.75  # a new line this like an original one reads as its edited version
_NEAR_COPY_PAIRS = 100_000
# Of several, one this like a new line and this much more like it than the rest is the line
# the new one edits (a typo fixed), the rest lines written alike.
_TYPO = 0.9
_TYPO_LEAD = 0.1
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


def _past_unchanged(
    source: SourceFile,
    sketch: LazySketch,
    paths: list[list[Placement]],
    merged: Merge,
    index: Index,
    lang: Language,
    further: Callable[[], list[list[Placement]]] | None = None,
) -> tuple[list[list[Placement]], Merge]:
    """Where the best reading leaves the file as it is even with the blank lines the sketch
    leaves out gone (its lines are a copy the file already holds), it is no reading of an
    edit: the next placement that changes the file, if it scores about as well (within the tie
    margin), is the best one, judged against those after it as usual. Where none of `paths`
    does, `further` (when given) lists more placements, best first, to look through the same
    way (the sketch's lines may occur in the file more times than the DP kept placements);
    as many as `paths` held are kept from the one found. Where none does, the best one stands
    (and is refused as no edit)."""
    unchanged = source.render(source.original_pieces(0, len(source.lines)))
    if source.render(merged.pieces) != unchanged:
        return paths, merged
    found = _first_edit(source, sketch, paths, index, lang, unchanged)
    if found is None and further is not None:
        found = _first_edit(source, sketch, further(), index, lang, unchanged)
        if found is not None:
            found = found[0][: len(paths)], found[1]
    return found if found is not None else (paths, merged)


def _first_edit(
    source: SourceFile,
    sketch: LazySketch,
    paths: list[list[Placement]],
    index: Index,
    lang: Language,
    unchanged: str,
) -> tuple[list[list[Placement]], Merge] | None:
    """The placements from the first after the best that changes the file (within the tie
    margin of the best), and its merge; None where none does."""
    for k in range(1, len(paths)):
        if paths[0][0].score - paths[k][0].score > TIE_MARGIN:
            break  # a placement clearly worse than the copy is no likelier meant
        try:
            other = _assemble(source, sketch, paths[k], index, lang)
        except RefusedMerge:
            continue
        if source.render(other.pieces) != unchanged:
            return paths[k:], other
    return None


def _settle(
    source: SourceFile,
    merged: Merge,
    rivals: list[tuple[Merge, str]],
    validate: Validate | None,
    lang: Language,
    every: bool = False,
    sketch: LazySketch | None = None,
) -> Merge:
    """The one reading that can stand among the best and its rivals, or a refusal.

    A rival the validator rejects (it loses a definition the sketch never mentions) is no
    reading of the sketch; where it rejects the best one too, the only viable rival is meant."""
    text = source.render(merged.pieces)
    others = [(m, why) for m, why in rivals if source.render(m.pieces) != text]
    if not others:
        return merged
    # A rival that leaves the file as it is reads the sketch as no edit at all: not a reading
    # of an edit when the best one changes the file.
    unchanged = source.render(source.original_pieces(0, len(source.lines)))
    if text != unchanged:
        others = [(m, why) for m, why in others if source.render(m.pieces) != unchanged]
        if not others:
            return merged
    elif every:
        # The best reading is no edit, and it is the only one as good (none was cut off): the
        # one viable rival that edits the file is the reading of an edit.
        edits = {source.render(m.pieces): m for m, _why in others if _viable(m, validate)}
        if len(edits) == 1:
            return next(iter(edits.values()))  # the one reading that edits the file
    viable = [(m, why) for m, why in others if _viable(m, validate)]
    if not viable:
        return merged
    if _viable(merged, validate):
        viable.insert(0, (merged, ""))
    distinct: dict[str, tuple[Merge, str]] = {}
    for m, why in viable:
        distinct.setdefault(source.render(m.pieces), (m, why))
    if len(distinct) == 1:
        return viable[0][0]
    if single := _single_undoubled(source, distinct, lang):
        return single
    if sketch is not None and (moved := moved_reading(source, distinct, sketch)):
        return moved
    # Every reading, the ones the validator rejects too: one that parses but loses a name is
    # still a reading the sketch may mean, so the one that parses is not the only one.
    every_reading = {text: (merged, "")}
    for m, why in others:
        if not _drops_unmentioned(m, validate):
            every_reading.setdefault(source.render(m.pieces), (m, why))
    parsing = _only_parsing(source, every_reading, lang) if sketch is not None else None
    if parsing is not None and _viable(parsing, validate) and plain_edit(source, sketch, parsing):
        return parsing
    return _most_like_an_edit(source, list(distinct.values()), lang, sketch)


def _single_undoubled(
    source: SourceFile, distinct: dict[str, tuple[Merge, str]], lang: Language
) -> Merge | None:
    """The one reading that declares no top-level name twice where every other one does
    (where the original declares it once): a reading that keeps the original's declaration
    beside the sketch's read the sketch's as new code, not as the rewrite of the one it
    replaces, and leaves a file that does not compile."""
    before = source.lines
    clean = [
        merge
        for text, (merge, _why) in distinct.items()
        if _declared_twice(before, text.split("\n"), lang.name) is None
    ]
    return clean[0] if len(clean) == 1 else None


def _drops_unmentioned(alt: Merge, validate: Validate | None) -> bool:
    """Whether the validator rejects a reading for deleting a whole definition the sketch
    never mentions: a reading that drops code the sketch does not show is no reading of it,
    so its parsing leaves the one other reading that parses the only one (a reading that
    only loses a name is still one the sketch may mean)."""
    from cursorish.apply.guard import UnmentionedDefinition  # guard imports lazy

    if validate is None:
        return False
    try:
        validate(alt)
    except UnmentionedDefinition:
        return True
    except RefusedMerge:
        return False
    return False


def _only_parsing(
    source: SourceFile, distinct: dict[str, tuple[Merge, str]], lang: Language
) -> Merge | None:
    """The one reading that parses where every other one breaks the file's syntax (a `}` or an
    opener the sketch shows, read as new code where the file has none to match): a reading
    that does not compile is no reading of an edit. Only where it reads at least as much like
    an edit as each broken one: a broken rival whose removed lines resemble the new ones more
    found the place the edit is meant for, only its shape there failed. Nor where it removes a
    definition's header and declares that name nowhere: a guess that drops a definition. Nor
    where it writes as new a telling line it keeps verbatim, which a broken rival matches to
    the original line (`_copies_matched_line`)."""
    if not lang.has_grammar:
        return None
    original = source.render(source.original_pieces(0, len(source.lines)))
    clean = [text for text in distinct if new_errors(original, text, lang.name) is None]
    if len(clean) != 1:
        return None
    winner = distinct[clean[0]][0]
    gone = {declared_name(source.lines[j]) for j in winner.removed} - {None}
    if gone - {declared_name(line) for line in clean[0].splitlines()}:
        return None
    like = _resemblance(source, winner)[0]
    for text, (merge, _why) in distinct.items():
        if text != clean[0] and _resemblance(source, merge)[0] > like:
            return None
    if _copies_matched_line(
        source, winner, [m for text, (m, _why) in distinct.items() if text != clean[0]]
    ):
        return None
    return winner


def _copies_matched_line(source: SourceFile, winner: Merge, others: list[Merge]) -> bool:
    """Whether the reading writes as new code a telling line that it also keeps where the
    original has it, while another reading matches that sketch line to the original one (does
    not write it anew): the sketch's copy stands for the original line, and the reading that
    leaves both reads it as more than the sketch says."""
    new = {
        text for line in winner.added if weight(" ".join((text := line.strip()).split())) >= STRONG
    }
    kept = {line.strip() for j, line in enumerate(source.lines) if j not in winner.removed}
    new &= kept
    return any(new - {line.strip() for line in other.added} for other in others)


def plain_edit(source: SourceFile, sketch: LazySketch | None, merge: Merge) -> bool:
    """Whether a reading reads as the edit the sketch shows on its own: it changes more than
    the indentation of the lines it replaces, and every run of original lines it deletes lies
    between two lines one chunk shows (the lines a sketch leaves out between two shown lines
    are the ones it deletes, unless its new lines are edits of them); a reading that deletes
    lines beside a chunk, rewrites a line in place by likeness, only re-indents code, or
    writes only copies of lines it keeps, relies on more than the sketch says. So does one of
    a sketch that shows no blank line, where it deletes lines: where the file's blank lines go
    is a guess already (a reading that only inserts lines leaves them all where they are)."""
    if sketch is None or merge.rewritten:
        return False
    text = source.render(merge.pieces)
    before = [line.strip() for line in source.lines if line.strip()]
    if before == [line.strip() for line in text.splitlines() if line.strip()]:
        return False  # only the indentation changes
    gone = merge.removed
    lines = source.lines
    if merge.removed and all(line.strip() for chunk in sketch.chunks for line in chunk.lines):
        return False  # no blank line shown: where the file's blank lines go is a guess
    new = [line.strip() for line in merge.added if line.strip()]  # none rewritten (above)
    telling = {line for line in new if weight(line) >= STRONG}
    if telling and telling <= {x.strip() for j, x in enumerate(lines) if j not in gone}:
        return False  # every telling line it writes is a copy of one it keeps
    high = 0
    for j in sorted(gone):
        if j < high or not lines[j].strip():
            continue  # within the run already judged, or blank
        low = j - 1
        while low >= 0 and (low in gone or not lines[low].strip()):
            low -= 1
        high = j + 1
        while high < len(lines) and (high in gone or not lines[high].strip()):
            high += 1
        if low < 0 or high >= len(lines):
            return False
        if not any(
            _shows(chunk, lines, range(low, high), gone) for chunk in sketch.chunks
        ) and not _edited(lines[j:high], new):
            return False
    return True


def _shows(chunk: Chunk, lines: list[str], run: range, gone: set[int]) -> bool:
    """Whether a chunk shows the kept lines around a deleted run (from the nearest telling one
    before it to the nearest after it) in that order: each is one of its lines, or the run has
    a kept blank line on that side and the chunk starts (ends) with a blank line."""
    low, high = run.start, run.stop
    start = min(j for j in run if j in gone)
    end = max(j for j in run if j in gone)
    texts = [line.strip() for line in chunk.lines]
    before = [k for k, text in enumerate(texts) if text == lines[low].strip()]
    after = [k for k, text in enumerate(texts) if text == lines[high].strip()]
    if not texts[0] and any(j not in gone for j in range(low + 1, start)):
        before.append(0)
    if not texts[-1] and any(j not in gone for j in range(end + 1, high)):
        after.append(len(texts) - 1)
    return bool(before) and bool(after) and min(before) < max(after)


def _edited(run: list[str], new: list[str]) -> bool:
    """Whether every telling line of a deleted run reads as an edit of one of the new lines
    (alike in letters and in a telling word): the lines a chunk's new lines replace."""
    gone = [line.strip() for line in run if line.strip()]
    if len(gone) * len(new) > _RESEMBLANCE_PAIRS:
        return False
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    for old in gone:
        matcher.set_seq2(old)
        alike = []
        for line in new:
            matcher.set_seq1(line)
            if matcher.quick_ratio() >= _LIKE and matcher.ratio() >= _LIKE:
                alike.append(line)
        if not alike or not _telling_likeness(old, alike):
            return False
    return True


def _most_like_an_edit(
    source: SourceFile,
    readings: list[tuple[Merge, str]],
    lang: Language,
    sketch: LazySketch | None = None,
) -> Merge:
    """Of readings that fit the sketch's anchors alike, the one whose new lines read as edits
    of the lines it removes (`return Node(self.left.f(), ...)` for `self.left.f()`), when it
    clearly does so more than every other; else a refusal. Where one reading only adds lines,
    likeness cannot weigh it against readings that replace some: no winner then, unless one
    reading alone rewrites the lines it removes (`lazy_told_ties.rewriting_reading`)."""
    reason = next(why for _m, why in readings if why)
    told = _near_copy_winner(source, readings)
    if told is not None and not _strands_definition(source, readings[told][0]):
        return readings[told][0]
    if any(not _removed(source, m) for m, _why in readings):
        return _rewriting_or_refuse(source, readings, sketch, lang, reason)
    measured = [_resemblance(source, m) for m, _why in readings]
    scores = [like - unlike for like, unlike in measured]
    best = max(range(len(readings)), key=lambda index: scores[index])
    # The winner must be ahead by likeness itself, not only by deleting fewer unlike lines.
    ahead = all(
        scores[best] - scores[index] >= RESEMBLANCE_MARGIN
        and measured[best][0] - measured[index][0] >= RESEMBLANCE_MARGIN
        for index in range(len(readings))
        if index != best
    )
    if ahead and _apart(source, readings, best, lang):
        return readings[best][0]
    return _rewriting_or_refuse(source, readings, sketch, lang, reason)


def _rewriting_or_refuse(
    source: SourceFile,
    readings: list[tuple[Merge, str]],
    sketch: LazySketch | None,
    lang: Language,
    reason: str,
) -> Merge:
    """The one reading that rewrites the lines it removes where no rival does, or else the one
    that puts its new lines where the local names they use are declared
    (`lazy_scope.scoped_reading`), unless it strands a definition; else a refusal."""
    merges = [m for m, _why in readings]
    rewrite = rewriting_reading(source, merges, sketch, lang)
    if rewrite is None and sketch is not None:
        rewrite = scoped_reading(source, merges, sketch, lang)
    if rewrite is None or _strands_definition(source, readings[rewrite][0]):
        raise RefusedMerge(reason)
    return readings[rewrite][0]


def _near_copy_winner(source: SourceFile, readings: list[tuple[Merge, str]]) -> int | None:
    """The one reading that replaces the original lines the sketch's new lines are edits of,
    where that is told by lines alone: each new line like some original line (a typo fixed, a
    call renamed) is like exactly one in the whole file, and that one is removed by this
    reading only (or by all of them); every line this reading removes is like a new line.
    A new line like several original lines (two blocks written alike) tells nothing, unless
    one of them is nearly the very line and clearly nearer than the rest (a typo fixed); with
    none such, or where two new lines point at different readings, there is no winner. A new
    line nearly the very line of several, none clearly nearer, casts no vote: the other lines
    decide, where each that votes is nearly the very line it edits and the reading they choose
    removes that line's nearest copy."""
    new = {line.strip() for m, _why in readings for line in m.added if line.strip()}
    new |= {text.strip() for m, _why in readings for _j, text in m.rewritten if text.strip()}
    if not new or len(new) * len(source.lines) > _NEAR_COPY_PAIRS:
        return None
    deleted = [m.removed for m, _why in readings]
    winner: int | None = None
    nearest: list[int] = []  # the nearest copy of each line nearly the very line of several
    loose = False  # some line that votes is less than nearly the very line it edits
    for line in sorted(new):
        found = _near_copies(source.lines, line)
        if not found:
            continue
        if len(found) > 1:
            found.sort(key=lambda pair: -pair[1])
            if found[0][1] < _TYPO:
                return None
            if found[1][1] > found[0][1] - _TYPO_LEAD:
                nearest.append(found[0][0])  # nearly the very line of several: no vote
                continue
        j = found[0][0]
        removing = [index for index, gone in enumerate(deleted) if j in gone]
        if len(removing) == len(readings):
            continue
        if len(removing) != 1 or (winner is not None and removing[0] != winner):
            return None
        loose = loose or found[0][1] < _TYPO
        if found[0][1] < _TYPO and _named_alike_elsewhere(source, line, j, deleted, removing[0]):
            return None
        winner = removing[0]
    if winner is None or _resemblance(source, readings[winner][0])[1]:
        return None
    if nearest and (loose or any(j not in deleted[winner] for j in nearest)):
        return None
    return winner


def _named_alike_elsewhere(
    source: SourceFile, line: str, j: int, deleted: list[set[int]], winner: int
) -> bool:
    """Whether a rival reading removes a line whose telling names are as near the new line's
    as those of its near copy j (`self.error.provide(demand)` and
    `Provider::provide(&self.error, demand)` for `StdError::provide(&self.error, demand)`):
    the new line is then as much an edit of that one, and likeness in letters alone (the
    order the names come in) does not tell which line it rewrites."""
    names = set(_WORD.findall(line)) - _COMMON_WORDS

    def nearness(old: str) -> float:
        theirs = set(_WORD.findall(old)) - _COMMON_WORDS
        return len(names & theirs) / len(names | theirs) if names & theirs else 0.0

    near = nearness(source.lines[j])
    if not near:
        return False
    return any(
        nearness(source.lines[other]) >= near
        for index, gone in enumerate(deleted)
        if index != winner
        for other in gone - deleted[winner]
    )


def _strands_definition(source: SourceFile, merge: Merge) -> bool:
    """Whether the merge removes the last use of a name the file defines while keeping its
    definition: the sketch then likely hides part of the edit (the definition's removal)
    under a marker, and where its shown part goes is no safer a guess."""
    removed = merge.removed
    gone = [source.lines[j] for j in sorted(removed) if source.lines[j].strip()]
    if not gone:
        return False
    defined = {declared_name(line) for line in source.lines} - {None}
    used = {w for line in gone for w in _NAME.findall(line)} & defined
    if not used:
        return False
    new = [*merge.added, *(text for _j, text in merge.rewritten)]
    kept = set(range(len(source.lines))) - removed
    for name in used:
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        uses = [j for j in kept if pattern.search(source.lines[j])]
        if all(declared_name(source.lines[j]) == name for j in uses) and not any(
            pattern.search(line) for line in new
        ):
            return True
    return False


def _near_copies(lines: list[str], line: str) -> list[tuple[int, float]]:
    """Original lines that read as an edit of `line` (alike in letters and in a telling word),
    not the very same line, with their likeness."""
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(line)
    found: list[tuple[int, float]] = []
    for j, original in enumerate(lines):
        text = original.strip()
        if not text or text == line:
            continue
        matcher.set_seq1(text)
        if matcher.real_quick_ratio() < _NEAR_COPY or matcher.quick_ratio() < _NEAR_COPY:
            continue
        ratio = matcher.ratio()
        if ratio >= _NEAR_COPY and _telling_likeness(text, [line]):
            found.append((j, ratio))
    return found


def _apart(
    source: SourceFile, readings: list[tuple[Merge, str]], best: int, lang: Language
) -> bool:
    """Whether the best reading edits other definitions than each rival does (the same
    method of another class), rather than other lines of the same one: which of some repeated
    lines in one function a sketch rewrites is not told by how alike they are."""
    if not lang.has_grammar:
        return False
    found = definitions("\n".join(source.lines), lang.name)

    def owners(lines: set[int]) -> set[tuple[int, int]]:
        out: set[tuple[int, int]] = set()
        for j in lines:
            inner = [(d.start, d.end) for d in found if d.start <= j <= d.end]
            out.add(max(inner) if inner else (-1, -1))
        return out

    mine = {j for j in readings[best][0].deleted if source.lines[j].strip()}
    for index, (other, _why) in enumerate(readings):
        if index == best:
            continue
        theirs = {j for j in other.deleted if source.lines[j].strip()}
        if not mine - theirs or not theirs - mine:
            return False  # one reading adds lines where the other replaces some
        if owners(mine - theirs) & owners(theirs - mine):
            return False
    return True


def _removed(source: SourceFile, merge: Merge) -> int:
    return sum(1 for j in merge.deleted if source.lines[j].strip())


def _resemblance(source: SourceFile, merge: Merge) -> tuple[float, int]:
    """How well the merge's deletions read as edits: (the summed likeness of deleted lines to
    their nearest new line, the number of deleted lines like none, or the very same as one: a
    line moved, not edited, is a sign of a misplaced chunk)."""
    gone = [source.lines[j].strip() for j in merge.deleted if source.lines[j].strip()]
    new = [line.strip() for line in merge.added if line.strip()]
    if len(gone) * len(new) > _RESEMBLANCE_PAIRS:
        return 0.0, len(gone)
    like = 0.0
    unlike = 0
    for old in gone:
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(old)
        best = 0.0
        for line in new:
            matcher.set_seq1(line)
            if matcher.real_quick_ratio() <= best or matcher.quick_ratio() <= best:
                continue
            best = max(best, matcher.ratio())
        if _LIKE <= best < 1.0 and _telling_likeness(old, new):
            like += best
        else:
            unlike += 1
    return like, unlike


def _telling_likeness(old: str, new: list[str]) -> bool:
    """Whether a deleted line shares a telling word (a name, not `x` or `return`) with some
    new line: `x = x + 0` and `x = x * 2` are alike in letters, not in meaning."""
    words = set(_WORD.findall(old)) - _COMMON_WORDS
    return any(words & set(_WORD.findall(line)) for line in new)


def _margin(best: list[Placement], other: list[Placement]) -> float:
    """How much better `best` must score than `other` to stand. Where they place differently a
    chunk anchored by common lines only (`x = x + 1`, `}`), only a marker's indentation told
    them apart, and planners do not indent markers reliably enough to decide by that alone."""
    for p, q in zip(best, other, strict=True):
        if (p.a, p.b) != (q.a, q.b) and not p.strong:
            return TIE_MARGIN + FLOOR_COST
    return TIE_MARGIN


def _depth_tells(sketch: LazySketch, best: list[Placement], other: list[Placement]) -> bool:
    """Whether the depth of the sketch's lines tells the best placement from a rival scoring
    a little less: where they place a chunk differently, the best finds every anchor at the
    very indentation the sketch writes it, the rival some at another. A chunk written at
    column 0 (but for closing brackets) may be a snippet pasted flush left, whose depth says
    nothing."""
    told = False
    for chunk, p, q in zip(sketch.chunks, best, other, strict=True):
        if (p.a, p.b) == (q.a, q.b):
            continue
        opening = [line for line in chunk.lines if line.strip() and line.strip()[0] not in "})]"]
        if not opening or min(indent_width(line) for line in opening) == 0:
            return False
        mine = bool(p.deltas) and not any(p.deltas)
        theirs = bool(q.deltas) and not any(q.deltas)
        if mine == theirs or not q.deltas:
            return False
        if theirs:
            return False  # the rival agrees where the best does not
        told = True
    return told


def _repeated_readings(
    source: SourceFile,
    sketch: LazySketch,
    path: list[Placement],
    index: Index,
    lang: Language,
) -> list[tuple[Merge, str]]:
    """Other readings of a path where a chunk's lines match repeated original lines as well one
    way as another (`x = x + 0` three times in a row, two of them in the sketch)."""
    found: list[tuple[Merge, str]] = []
    for i, place in enumerate(path):
        for pairs in place.alternatives:
            other = Placement(pairs, place.score, pairs[0][1], pairs[-1][1] + 1, place.deltas)
            alt = _placed_instead(source, sketch, path, i, other, index, lang)
            if alt is None:
                continue
            reason = (
                f"{sketch.chunks[i].where()} match repeated original lines in two ways "
                f"(lines {place.a + 1}-{place.b} and {other.a + 1}-{other.b}) that give "
                "different files"
            )
            found.append((alt, reason))
    return found


def _placed_instead(
    source: SourceFile,
    sketch: LazySketch,
    path: list[Placement],
    i: int,
    other: Placement,
    index: Index,
    lang: Language,
) -> Merge | None:
    """The merge of `path` with chunk i placed at `other` instead, or None where it refuses."""
    try:
        return _assemble(source, sketch, [*path[:i], other, *path[i + 1 :]], index, lang)
    except RefusedMerge:
        return None


def _later_closer_readings(
    source: SourceFile,
    sketch: LazySketch,
    path: list[Placement],
    index: Index,
    lang: Language,
) -> list[tuple[Merge, str]]:
    """Other readings of a path where a chunk after a marker starts on a punctuation line
    (`}`) matched early, so that original lines after it go as replaced by the chunk's new
    lines, and the same line recurs later at the same depth before the chunk's next telling
    anchor: what the marker keeps ends at either of them (`// ...` `}` then new methods keeps
    all of the existing code up to its last `}` as well), and no telling line says which.
    The same holds for any line the chunk opens on (a loop body repeated in two loops): a
    line that recurs says no more where the marker ends than a `}` does."""
    found: list[tuple[Merge, str]] = []
    for i, place in enumerate(path):
        if (i == 0 and not sketch.leading_marker) or len(place.pairs) < 2 or place.closer_told:
            continue
        keys = sketch.chunks[i].keys
        k0, j0 = place.pairs[0]
        if weight(keys[k0]) >= STRONG and k0 != 0:
            continue  # a telling line after lines written before it: those say where it is
        unique = [
            j for k, j in place.pairs[1:] if weight(keys[k]) >= STRONG and index.count(keys[k]) == 1
        ]
        telling = unique[0] if unique else place.pairs[-1][1]
        later = [
            j
            for j in index.positions.get(keys[k0], [])
            if j0 < j < telling and index.indents[j] == index.indents[j0]
        ]
        if not later:
            continue
        j1 = later[-1]
        pairs = [(k0, j1), *((k, j) for k, j in place.pairs[1:] if j > j1)]
        if len(pairs) < 2 or pairs == place.pairs:
            continue
        if not any(index.keys[j] for j in range(j0 + 1, j1) if weight(index.keys[j]) >= STRONG):
            continue
        other = Placement(pairs, place.score, j1, pairs[-1][1] + 1, place.deltas)
        alt = _placed_instead(source, sketch, path, i, other, index, lang)
        if alt is None:
            continue
        reason = (
            f"{sketch.chunks[i].where()} start on a line that recurs (original lines {j0 + 1} "
            f"and {j1 + 1}): unclear whether the code between them is kept or replaced"
        )
        found.append((alt, reason))
    return found


_EDGE_COPIES = 2  # the nearest copies of a chunk's edge line that make rival readings


def _recurring_edge_readings(
    source: SourceFile,
    sketch: LazySketch,
    path: list[Placement],
    merged: Merge,
    index: Index,
    lang: Language,
) -> list[tuple[Merge, str]]:
    """Other readings of a path where a chunk is placed on a verbatim copy of its lines (it
    changes nothing there) and its first (last) shown line, next to a marker, recurs at the
    same depth before (after) that copy, within what the marker stands for, with telling
    lines between. A sketch shows only what it changes; one that shows a deletion writes the
    lines before it and the lines after it, so read at the other copy of its edge line the
    chunk deletes the code between the copies, and nothing in the sketch says it does not
    (`}` then the code after a removed function, when that function ends on `}` too)."""
    found: list[tuple[Merge, str]] = []
    if not (merged.deleted or merged.added or merged.rewritten):
        return found  # no edit at all: the next placement is tried instead (`_past_unchanged`)
    last = len(path) - 1
    for i, place in enumerate(path):
        chunk = sketch.chunks[i]
        found_at = _verbatim_at(chunk, place, source.lines)
        if found_at is None:
            continue
        at, shift = found_at
        shown = [k for k, line in enumerate(chunk.lines) if line.strip()]
        ends = []
        if i > 0 or sketch.leading_marker:
            low = path[i - 1].b if i > 0 else 0
            ends.append((shown[0], range(at + shown[0] - 1, low - 1, -1)))
        if i < last or sketch.trailing_marker:
            high = path[i + 1].a if i < last else len(index.keys)
            ends.append((shown[-1], range(at + shown[-1] + 1, high)))
        for k, reach in ends:
            here = at + k
            copies = [
                j
                for j in reach
                if index.keys[j] == index.keys[here] and index.indents[j] == index.indents[here]
            ][:_EDGE_COPIES]
            for j in copies:
                between = range(min(j, here) + 1, max(j, here))
                if not any(weight(index.keys[x]) >= STRONG for x in between):
                    continue
                pairs = sorted([*((kk, jj) for kk, jj in place.pairs if kk != k), (k, j)])
                if any(b[1] <= a[1] for a, b in itertools.pairwise(pairs)):
                    continue
                deltas = [shift] * len(pairs)
                other = Placement(
                    pairs,
                    place.score,
                    pairs[0][1],
                    pairs[-1][1] + 1,
                    deltas,
                    pasted=place.pasted,
                    flush_left=place.flush_left,
                )
                alt = _placed_instead(source, sketch, path, i, other, index, lang)
                if alt is None:
                    continue
                reason = (
                    f"{chunk.where()} change nothing where they are placed, and their line "
                    f"{chunk.first + k + 1} recurs at original line {j + 1}: unclear whether "
                    "the code between that copy and the chunk is kept or deleted"
                )
                found.append((alt, reason))
    return found


def _verbatim_at(chunk: Chunk, place: Placement, source: list[str]) -> tuple[int, int] | None:
    """(the original line the chunk's first line is, the chunk's indentation shift) where the
    chunk is a verbatim copy of the original lines there, every line shifted alike (it changes
    nothing: a chunk pasted at another depth is put back at the file's); else None. Blank
    lines after its last line are spacing before the marker, not lines it shows there."""
    if not place.pairs:
        return None
    k, j = place.pairs[0]
    at = j - k
    if at < 0 or at + len(chunk.lines) > len(source):
        return None
    shifts: set[int] = set()
    shown = [k for k, line in enumerate(chunk.lines) if line.strip()]
    for k, line in enumerate(chunk.lines):
        if not shown or k > shown[-1]:
            break  # blank lines after its last line: spacing at the marker
        original = source[at + k]
        if not (line.strip() or original.strip()):
            continue
        if line.strip() != original.strip():
            return None
        shifts.add(indent_width(line) - indent_width(original))
    if len(shifts) > 1:
        return None
    return at, next(iter(shifts), 0)


def _viable(alt: Merge, validate: Validate | None) -> bool:
    """Whether an alternative merge could stand at all (the validator does not reject it)."""
    if validate is None:
        return True
    try:
        validate(alt)
    except RefusedMerge:
        return False
    return True


def _overlap(p: Placement, q: Placement) -> bool:
    if p.floating or q.floating:
        return p.a == q.a
    return q.a < p.b and p.a < q.b


def _tie_reason(sketch: LazySketch, best: list[Placement], other: list[Placement]) -> str:
    for chunk, p, q in zip(sketch.chunks, best, other, strict=True):
        if (p.a, p.b) != (q.a, q.b):
            return (
                f"{chunk.where()} match the original equally well at lines "
                f"{p.a + 1}-{p.b} and {q.a + 1}-{q.b}"
            )
    return "two placements of the sketch fit equally well"
