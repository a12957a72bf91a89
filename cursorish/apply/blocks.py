"""Enclosing blocks by indentation: does a sketch line sit in the same block as its match?

A line of a sketch and an equal line of the original are only the same line when the blocks
around them agree: `def free_vars(self):` under a new `class ASeq` is not the one under
`class ALet`. Each sketch line's enclosing headers inside its chunk are compared, level by
level, with the original line's: a header pair agrees when the two lines are equal, or when
most of the sketch block's lines occur in the original block (an edited or renamed header).
"""

from __future__ import annotations

import re

from cursorish.apply.lines import indent_width, weight

AGREE = 0.5  # share of a sketch block's lines the original block must hold to be the same block
# Two definitions of different names are the same one (renamed) only when their bodies share
# this many lines that say something: `return 1` or `pass` alone is any function's body.
RENAMED_SHARED = 2
_STRONG_LINE = 1.0

DECLARED = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w ]+\))?\s+)?(?:async\s+)?"
    r"(?:def|class|function\*?|interface|type|struct|enum|trait|fn|func(?:\s*\([^)]*\))?)"
    r"\s+([A-Za-z_$][\w$]*)"
)


def declared_name(line: str) -> str | None:
    """The name a definition line declares (`def f(`, `class C`, `func (r T) M(`), or None."""
    match = DECLARED.match(line)
    return match.group(1) if match else None


_CLOSERS = ("}", ")", "]", "end")


def parents(lines: list[str]) -> list[int]:
    """For each line, the nearest earlier non-blank line indented less (-1: none); the parent
    of a blank line is -1. Closing lines (`}`) are never parents."""
    out = [-1] * len(lines)
    # The open blocks as two parallel stacks (no tuple per line: this runs on whole files).
    widths: list[int] = []
    owners: list[int] = []
    for j, line in enumerate(lines):
        text = line.lstrip()
        if not text:
            continue
        width = len(line) - len(text)
        if width and "\t" in line[:width]:
            width = indent_width(line)
        while widths and widths[-1] >= width:
            widths.pop()
            owners.pop()
        if owners:
            out[j] = owners[-1]
        if not text.startswith(_CLOSERS):
            widths.append(width)
            owners.append(j)
    return out


def parent_of(lines: list[str], j: int) -> int:
    """`parents(lines)[j]` for one line, walking up from it (cheaper where few lines are
    asked about): a closer with less indent than the lines still in reach has popped them."""
    line = lines[j]
    text = line.lstrip()
    if not text:
        return -1
    limit = indent_width(line) if "\t" in line[: len(line) - len(text)] else len(line) - len(text)
    for k in range(j - 1, -1, -1):
        above = lines[k]
        stripped = above.lstrip()
        if not stripped:
            continue
        width = len(above) - len(stripped)
        if width and "\t" in above[:width]:
            width = indent_width(above)
        if width < limit:
            if not stripped.startswith(_CLOSERS):
                return k
            limit = width
    return -1


def block_keys(lines: list[str], keys: list[str], j: int) -> set[str]:
    """Keys of the lines inside the block line j opens (deeper-indented lines after it)."""
    width = indent_width(lines[j])
    found: set[str] = set()
    for x in range(j + 1, len(lines)):
        if not keys[x]:
            continue
        if indent_width(lines[x]) <= width:
            break
        found.add(keys[x])
    return found


class BlockCheck:
    """Agreement of enclosing blocks between one chunk and the original."""

    def __init__(
        self,
        chunk_lines: list[str],
        chunk_keys: list[str],
        source_lines: list[str],
        source_keys: list[str],
        source_parents: list[int],
        source_blocks: dict[int, set[str]],
    ) -> None:
        self.chunk_lines = chunk_lines
        self.chunk_keys = chunk_keys
        self.source_lines = source_lines
        self.source_keys = source_keys
        self.source_parents = source_parents
        self.chunk_parents = parents(chunk_lines)
        self._agree: dict[tuple[int, int], bool] = {}
        self._sketch_blocks: dict[int, set[str]] = {}
        self._source_blocks = source_blocks  # shared by the chunks of one merge

    def consistent(self, k: int, j: int) -> bool:
        """Whether chunk line k and original line j sit in agreeing blocks."""
        if self.chunk_keys[k].startswith("@") and _decorates_another(
            self.chunk_lines, k, self.source_lines, j
        ):
            return False
        hk = self.chunk_parents[k]
        hj = self.source_parents[j]
        while hk >= 0:
            if hj < 0:
                return True  # the sketch wraps the line in a new block: nothing to compare
            if not self._headers_agree(hk, hj):
                return False
            hk = self.chunk_parents[hk]
            hj = self.source_parents[hj]
        return True

    def _headers_agree(self, hk: int, hj: int) -> bool:
        if self.chunk_keys[hk] == self.source_keys[hj]:
            return True
        cached = self._agree.get((hk, hj))
        if cached is not None:
            return cached
        mine = self._sketch_blocks.get(hk)
        if mine is None:
            mine = block_keys(self.chunk_lines, self.chunk_keys, hk)
            self._sketch_blocks[hk] = mine
        theirs = self._source_blocks.get(hj)
        if theirs is None:
            theirs = block_keys(self.source_lines, self.source_keys, hj)
            self._source_blocks[hj] = theirs
        shared = mine & theirs
        result = not mine or len(shared) >= AGREE * len(mine)
        if result and _renamed(self.chunk_lines[hk], self.source_lines[hj]):
            # A definition under another name is a new one unless its body is the old one's.
            result = sum(1 for k in shared if weight(k) >= _STRONG_LINE) >= RENAMED_SHARED
        self._agree[(hk, hj)] = result
        self._agree[(hk, hj)] = result
        return result


def _renamed(sketch_header: str, source_header: str) -> bool:
    """Whether two header lines declare definitions of different names."""
    mine = declared_name(sketch_header)
    theirs = declared_name(source_header)
    return mine is not None and theirs is not None and mine != theirs


def _decorated(lines: list[str], k: int) -> str | None:
    """The name of the definition a decorator line (`@abstractmethod`) belongs to, if any."""
    for x in range(k + 1, min(len(lines), k + 8)):
        text = lines[x].strip()
        if not text or text.startswith("@"):
            continue
        return declared_name(lines[x])
    return None


def _decorates_another(chunk_lines: list[str], k: int, source_lines: list[str], j: int) -> bool:
    """Whether a decorator of the sketch and an equal one of the original decorate definitions
    of different names: `@abstractmethod` over a new method is not the one over an old one."""
    mine = _decorated(chunk_lines, k)
    theirs = _decorated(source_lines, j)
    return mine is not None and theirs is not None and mine != theirs
