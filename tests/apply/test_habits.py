"""Seeded property test: synthetic edits of real files from other projects (the held-out
pairs' originals), sketched in each planner shape of `heldout.py`. The merge must give the
edited file or refuse; a wrong file is allowed only at a low rate (the level today)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged
from cursorish.apply_cli import normalise
from tests.apply.heldout import STYLES, pairs, sketch

_CLOSERS = ("}", ")", "]", "end")
_NEW = {
    "python": "{indent}record_event({word!r}, {number})",
    "go": "{indent}recordEvent({word!r}, {number})",
    "rust": "{indent}record_event({word!r}, {number});",
    "typescript": "{indent}recordEvent({word!r}, {number});",
    "tsx": "{indent}recordEvent({word!r}, {number});",
}


def _edit(original: str, lang: str, rng: random.Random) -> str | None:
    """The original with one statement inside a block changed, added after, or deleted."""
    lines = original.split("\n")
    inside = [
        k
        for k, line in enumerate(lines)
        if line.strip()
        and line[:1] in (" ", "\t")
        and not line.rstrip().endswith(("{", ":", "(", "[", ",", "\\"))
        and not line.strip().startswith((*_CLOSERS, "#", "//", "/*", "*", '"', "'", "@"))
    ]
    if not inside:
        return None
    k = rng.choice(inside)
    indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())]
    new = _NEW[lang].format(indent=indent, word=rng.choice(["a", "b", "c"]), number=k)
    kind = rng.choice(("change", "add", "delete"))
    if lang in ("go", "rust", "typescript", "tsx"):
        new = new.replace("'", '"')
    if kind == "change":
        lines[k] = new
    elif kind == "add":
        lines.insert(k + 1, new)
    else:
        del lines[k]
    return "\n".join(lines)


def _cases(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for pair in pairs():
        edited = _edit(pair["original"], pair["lang"], rng)
        if edited is None:
            continue
        synthetic = {**pair, "id": f"{pair['id']}~{seed}", "expected": edited}
        style = STYLES[rng.randrange(len(STYLES))]
        text = sketch(synthetic, style, seed)
        if text is not None:
            out.append({**synthetic, "sketch": text, "style": style})
    return out


def test_synthetic_edits_in_every_shape_merge_or_refuse() -> None:
    counts: Counter[str] = Counter()
    by_style: Counter[str] = Counter()
    for seed in (1, 2):
        for case in _cases(seed):
            outcome = merge(case["original"], case["sketch"], path=case["path"])
            by_style[case["style"]] += 1
            if not isinstance(outcome, Merged):
                counts["refused"] += 1
            elif normalise(outcome.text) == normalise(case["expected"]):
                counts["exact"] += 1
            else:
                counts["wrong"] += 1
    total = sum(counts.values())
    assert total >= 250, counts
    assert len(by_style) >= 4, by_style
    assert counts["exact"] / total >= 0.65, counts
    assert counts["wrong"] / total <= 0.06, counts
