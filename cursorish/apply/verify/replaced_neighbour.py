"""A definition, public or not, that the merge leaves without its last use in the file while
a definition of a new name, written by the sketch, starts right after it: the new one reads as
its replacement (a helper rewritten under a new name), kept only because a marker stood for
it."""

from __future__ import annotations

from cursorish.apply.verify.dead_definitions import _DEFINITION, _unused_definitions


def _replaced_neighbour(
    before: list[str], after: list[str], old_of: list[int], shown: set[str], lang: str
) -> str | None:
    """A kept definition (its header not in the sketch) that the original used and the merge
    no longer does, followed, past blank lines only, by a new definition the sketch writes of
    a name the original does not define."""
    if lang not in _DEFINITION or len(old_of) != len(after):
        return None
    pattern = _DEFINITION[lang]
    new = [r for r, j in enumerate(old_of) if j < 0]
    if not any(pattern.match(after[r]) for r in new):
        return None  # the sketch writes no new definition: cheap, and true of most merges
    for name, span, old in _unused_definitions(before, after, lang, shown):
        if old_of[span[0]] < 0:
            continue
        nxt = span[1]
        while nxt < len(after) and not after[nxt].strip():
            nxt += 1
        if nxt >= len(after) or old_of[nxt] >= 0:
            continue
        header = pattern.match(after[nxt])
        if not header or (header.group(1) or header.group(2) or "") in ("", *old):
            continue
        return (
            f"the merge removes the last use of {name!r} but keeps its definition (merged line "
            f"{span[0] + 1}) right before the sketch's new code, which may replace it"
        )
    return None
