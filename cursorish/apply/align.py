"""Placing one run of sketch lines (a chunk) in the original: candidate placements from seeds.

A seed is a sketch line whose text (whitespace collapsed) occurs in the original. A placement is
a chain of seeds increasing in both sketch and original order; lines the chain skips in the
original are deletions and cost a penalty, so chains prefer compact, in-order matches. Lines are
indexed by content in a dict, so the cost is about linear in the number of matching lines.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

from cursorish.apply.blocks import BlockCheck, parents
from cursorish.apply.lines import CLOSING_BRACKETS, indent_width, weight

MAX_OCCURRENCES = 40  # a line found more often than this is too common to seed a placement
MAX_GAP = 60  # at most this many original lines may be deleted between two matched lines
DELETE_COST = 0.35  # score lost per original line a placement deletes
INDENT_SHIFT_COST = 0.3  # score lost where the sketch's indentation relative to the file changes
MAX_CANDIDATES = 8
MAX_ALTERNATIVES = 6  # tied readings of repeated lines looked at per placement
_WALK_STEPS = 20_000
EDGE_BONUS = 2.0  # a chunk's first and last lines are usually unchanged context: trust them more
_TIE = 1e-6
WEAK_SHIFTED = 0.5  # lighter lines (punctuation) seed only at their own depth
STRONG = 1.0  # a placement needs one matched line at least this weighty: a `}` alone says nothing
CLOSER_MISFIT = 1.0  # score lost by a chain ending on a `}` past the end of its opener's block


@dataclass
class Placement:
    """Where a chunk lands: matched (chunk line, original line) pairs, and its score."""

    pairs: list[tuple[int, int]]
    score: float
    a: int  # first original line the chunk replaces
    b: int  # one past the last original line the chunk replaces
    deltas: list[int] = field(default_factory=list)  # sketch indent - original indent per pair
    strong: bool = True  # some matched line says something (not just `}` or a blank)
    # The same end reached by other chains of equal score (repeated lines: which of them the
    # sketch's lines are is a guess), one per tie on the chain.
    alternatives: list[list[tuple[int, int]]] = field(default_factory=list)
    # New code with no anchor, put at the end of the block the chunk before it opens.
    inserted: bool = False
    # The chunk starts at column 0 while its anchor sits deeper: a snippet pasted flush left.
    pasted: bool = False
    # The chunk's shown lines start at column 0 (the sketch may be written at another depth).
    flush_left: bool = False
    # The closer the chunk opens on was placed by what the lines before it tell
    # (`_earlier_closer` in lazy_place.py).
    closer_told: bool = False

    @property
    def floating(self) -> bool:
        return not self.pairs

    @property
    def delta(self) -> int:
        """The sketch's indentation shift relative to the file, when all anchors agree on it.

        Anchors that disagree mean the edit re-indents code (wraps it in a block), not that the
        sketch is written at another depth.
        """
        if self.pasted and len(self.deltas) == 1:
            return self.deltas[0]  # one anchor, but the snippet says where its column 0 was
        if self.flush_left and len(self.deltas) >= 2 and self.deltas[0] == self.deltas[-1] < 0:
            # A snippet pasted flush left whose first and last anchors agree: those edges sit
            # where the original's did; the anchors between disagree because the edit
            # re-indents the lines between them.
            return self.deltas[0]
        if len(self.deltas) < 2 or any(d != self.deltas[0] for d in self.deltas):
            return 0
        return self.deltas[0]


class Index:
    """Original lines by key, for constant-time lookup of where a sketch line occurs."""

    def __init__(self, keys: list[str], lines: list[str]) -> None:
        self.keys = keys
        self.lines = lines
        self.positions: dict[str, list[int]] = {}
        for j, k in enumerate(keys):
            if k:
                self.positions.setdefault(k, []).append(j)
        self.indents = [indent_width(line) for line in lines]
        self.blank = [not k for k in keys]
        self._parents: list[int] | None = None
        self.blocks: dict[int, set[str]] = {}

    @property
    def parents(self) -> list[int]:
        if self._parents is None:
            self._parents = parents(self.lines)
        return self._parents

    def count(self, k: str) -> int:
        return len(self.positions.get(k, ()))


def side_by_side(
    keys: list[str], index: Index, k: int, j: int, step: int
) -> Iterator[tuple[int, int]]:
    """Chunk line k (of a chunk with these keys) and original line j walked together in
    direction `step`, each past its blank lines: the pairs of lines next to them, then the
    next, without end (callers stop at an edge)."""
    while True:
        k += step
        while 0 <= k < len(keys) and not keys[k]:
            k += step
        j += step
        while 0 <= j < len(index.keys) and index.blank[j]:
            j += step
        yield k, j


def candidates(
    chunk_keys: list[str], chunk_lines: list[str], index: Index, start: int = 0
) -> list[Placement]:
    """The best distinct placements of a chunk, best first (empty when nothing matches), in
    the original's lines from `start` on."""
    seeds: list[tuple[int, int, float, int]] = []  # (j, k, weight, indent delta)
    check = BlockCheck(
        chunk_lines, chunk_keys, index.lines, index.keys, index.parents, index.blocks
    )
    for k, kk in enumerate(chunk_keys):
        if not kk:
            continue
        found = index.positions.get(kk)
        if found and start:
            found = found[bisect.bisect_left(found, start) :]  # counted from `start` on
        if not found or len(found) > MAX_OCCURRENCES:
            continue
        w = weight(kk)
        sk_indent = indent_width(chunk_lines[k])
        for j in found:
            if not check.consistent(k, j):
                continue
            shift = sk_indent - index.indents[j]
            if shift and w < WEAK_SHIFTED:
                # A `}` says only how deep it is: at another depth it is another block's.
                continue
            seeds.append((j, k, w if shift == 0 else w / 2, shift))
    if not seeds:
        return []
    seeds.sort()
    shown = [line for line, k in zip(chunk_lines, chunk_keys, strict=True) if k]
    flush_left = min(indent_width(line) for line in shown) == 0
    m = len(chunk_keys)
    nonblank = [k for k, kk in enumerate(chunk_keys) if kk]
    edges = {nonblank[0], nonblank[-1]}
    js = [s[0] for s in seeds]
    best = [0.0] * len(seeds)
    prev = [-1] * len(seeds)
    tied: list[list[int]] = [[] for _ in seeds]  # other predecessors as good as prev
    for t, (jt, kt, wt, dt) in enumerate(seeds):
        top = 0.0
        arg = -1
        second: list[int] = []
        lo = bisect.bisect_left(js, jt - m - MAX_GAP)
        for s in range(lo, t):
            js_, ks, _ws, ds = seeds[s]
            if ks >= kt or js_ >= jt:
                continue
            excess = (jt - js_ - 1) - (kt - ks - 1)
            if excess > MAX_GAP:
                continue
            value = best[s] - DELETE_COST * max(0, excess)
            if ds != dt:
                value -= INDENT_SHIFT_COST
            if value > top + _TIE:
                top = value
                arg = s
                second = []
            elif arg >= 0 and value >= top - _TIE:
                second.append(s)
        # A `}` at the edge is context as often as not, but too little to pay for deletions.
        best[t] = wt + top + (EDGE_BONUS * min(1.0, 2 * wt) if kt in edges else 0.0)
        prev[t] = arg
        tied[t] = second
    dominated = [False] * len(seeds)
    for u, p in enumerate(prev):
        if p >= 0 and best[u] >= best[p]:
            dominated[p] = True
    ends = sorted((t for t in range(len(seeds)) if not dominated[t]), key=lambda t: -best[t])
    out: list[Placement] = []
    seen: set[tuple[int, int]] = set()
    for t in ends:
        chain: list[int] = []
        cur = t
        while cur >= 0:
            chain.append(cur)
            cur = prev[cur]
        chain.reverse()
        pairs = [(seeds[c][1], seeds[c][0]) for c in chain]
        alternatives = _alternatives(chain, prev, tied, seeds)
        span = (pairs[0][1], pairs[-1][1])
        if span in seen:
            continue
        seen.add(span)
        deltas = [seeds[c][3] for c in chain]
        strong = any(weight(chunk_keys[k]) >= STRONG for k, _j in pairs)
        pasted = flush_left and len(deltas) == 1 and deltas[0] < 0
        misfit = _closer_misfit(pairs, chunk_lines, chunk_keys, index)
        out.append(
            Placement(
                pairs,
                best[t] - (CLOSER_MISFIT if misfit else 0.0),
                pairs[0][1],
                pairs[-1][1] + 1,
                deltas,
                strong,
                alternatives,
                pasted=pasted,
                flush_left=flush_left,
            )
        )
        if len(out) >= MAX_CANDIDATES:
            break
    out.sort(key=lambda p: -p.score)
    return out


def _closer_misfit(
    pairs: list[tuple[int, int]], chunk_lines: list[str], chunk_keys: list[str], index: Index
) -> bool:
    """Whether a chain ends on a closing line (`}`) that closes another block than the one its
    opener opens in the original: where the sketch's `if x {` ... `}` has its opener matched,
    its `}` is the original block's own closing line (the first line after the opener's match
    at its depth or shallower), not a later `}` at that depth. Only a chain's last line is
    looked at: chains that differ only there score alike when the sketch adds lines."""
    k, j = pairs[-1]
    if not chunk_keys[k].startswith(CLOSING_BRACKETS):
        return False
    width = indent_width(chunk_lines[k])
    opener = next(
        (
            x
            for x in range(k - 1, -1, -1)
            if chunk_keys[x] and indent_width(chunk_lines[x]) <= width
        ),
        -1,
    )
    if opener < 0 or indent_width(chunk_lines[opener]) != width:
        return False
    jo = -1
    for pk, pj in reversed(pairs):
        if pk <= opener:
            jo = pj if pk == opener else -1
            break
    if jo < 0 or jo >= j or index.indents[jo] != index.indents[j]:
        return False
    e = jo + 1
    while e < j and (index.blank[e] or index.indents[e] > index.indents[jo]):
        e += 1
    return e != j


def _alternatives(
    chain: list[int],
    prev: list[int],
    tied: list[list[int]],
    seeds: list[tuple[int, int, float, int]],
) -> list[list[tuple[int, int]]]:
    """Other chains of the same score as `chain` to its end (a bounded few): with `x = x + 0`
    three times in a row, which two of them a sketch's two copies are is told by no score, so
    every such reading must be looked at."""
    found: list[list[int]] = []
    # Depth first from the end, the tail as a linked list (chains may be thousands long).
    stack: list[tuple[int, tuple[int, object] | None]] = [(chain[-1], None)]
    steps = 0
    while stack and len(found) <= MAX_ALTERNATIVES and steps < _WALK_STEPS:
        steps += 1
        cur, tail = stack.pop()
        if cur < 0:
            out: list[int] = []
            node: object = tail
            while node is not None:
                assert isinstance(node, tuple)
                out.append(node[0])
                node = node[1]
            found.append(out)
            continue
        link = (cur, tail)
        for p in reversed([prev[cur], *tied[cur]]):
            stack.append((p, link))
    return [[(seeds[c][1], seeds[c][0]) for c in other] for other in found if other != chain]


def fill(placement: Placement, chunk_keys: list[str], index: Index) -> list[tuple[int, int]]:
    """All matched pairs of a placement: the seed chain plus equal lines found between seeds."""
    pairs = placement.pairs
    if not pairs:
        return []
    full: list[tuple[int, int]] = [pairs[0]]
    for (k1, j1), (k2, j2) in itertools.pairwise(pairs):
        if k2 - k1 > 1 and j2 - j1 > 1:
            left = chunk_keys[k1 + 1 : k2]
            right = index.keys[j1 + 1 : j2]
            matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
            for block in matcher.get_matching_blocks():
                for x in range(block.size):
                    full.append((k1 + 1 + block.a + x, j1 + 1 + block.b + x))
        full.append((k2, j2))
    return full
