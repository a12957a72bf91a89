"""Speculative edits: lossless (same tokens as plain greedy), fewer decodes, re-alignment."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cursorish.apply.model.backend import LocalApplyModel
from cursorish.apply.model.speculative import Drafter, OutputStream, generate
from cursorish.bench.spec import perturb


class ScriptEngine:
    """A fake model that always continues with a fixed target text, whatever it is shown.

    With it the drafter's behaviour is visible in isolation: the answer is known, so every
    decode call the drafter saves (or wastes) shows in the counts.
    """

    def __init__(self, target: Sequence[int], pieces: dict[int, bytes] | None = None) -> None:
        self.target = list(target)
        self.cache: list[int] = []
        self.prompt_len = 0
        self.rows: list[int] = []
        self.pieces = pieces or {}

    def _next(self, n_positions: int) -> int:
        i = n_positions - self.prompt_len
        return self.target[i] if i < len(self.target) else 0

    def eval_prompt(self, tokens: Sequence[int]) -> int:
        self.cache = list(tokens)
        self.prompt_len = len(tokens)
        return self._next(len(self.cache))

    def decode_argmax(self, tokens: Sequence[int], start_pos: int) -> list[int]:
        assert start_pos == len(self.cache), "positions must continue the cache exactly"
        # Only accepted tokens may remain cached: rejected draft positions were removed.
        n_out = len(self.cache) - self.prompt_len
        assert self.cache[self.prompt_len :] == self.target[:n_out]
        self.cache.extend(tokens)
        self.rows.append(len(tokens))
        return [self._next(start_pos + i + 1) for i in range(len(tokens))]

    def truncate(self, n_keep: int) -> None:
        del self.cache[n_keep:]

    def token_bytes(self, token: int) -> bytes:
        return self.pieces.get(token, b"%d " % token)


def run(target: list[int], draft: list[int] | None, sketch: Sequence[int] = ()):
    engine = ScriptEngine(target)
    drafter = Drafter(draft, sketch) if draft is not None else None
    result = generate(
        engine, [1, 2, 3], max_tokens=len(target), stop_tokens=frozenset(), drafter=drafter
    )
    return result, engine


def text_like(n: int, seed: int) -> list[int]:
    """Tokens with the repetitiveness of code: a small alphabet, recurring phrases."""
    rng = random.Random(seed)
    phrases = [[rng.randrange(10, 60) for _ in range(rng.randint(2, 6))] for _ in range(12)]
    out: list[int] = []
    while len(out) < n:
        out += rng.choice(phrases) if rng.random() < 0.6 else [rng.randrange(10, 200)]
    return out[:n]


def test_exact_copy_needs_few_decodes() -> None:
    target = text_like(500, 0)
    result, _ = run(target, target)
    assert result.tokens == target
    assert result.stats.decode_calls <= 20


@pytest.mark.parametrize("kind", ["insert", "delete", "replace"])
def test_realigns_after_each_kind_of_edit(kind: str) -> None:
    original = text_like(400, 1)
    target = list(original)
    new = list(range(300, 312))
    if kind == "insert":  # the answer has code the original lacks
        target[200:200] = new
    elif kind == "delete":  # the answer drops code the original has
        del target[200:230]
    else:
        target[200:215] = new
    result, _ = run(target, original)
    plain, _ = run(target, None)
    assert result.tokens == plain.tokens == target
    # One call per new token at most, plus a handful to recover and ramp k back up.
    assert result.stats.decode_calls <= len(new) + 30


def test_drafts_from_the_sketch_when_the_original_lacks_the_code() -> None:
    original = text_like(300, 2)
    new_code = list(range(300, 360))
    target = original[:150] + new_code + original[150:]
    sketch = original[140:150] + new_code + original[150:155]
    with_sketch, _ = run(target, original, sketch)
    without, _ = run(target, original)
    assert with_sketch.tokens == target
    assert with_sketch.stats.decode_calls < without.stats.decode_calls - 30


def test_realignment_prefers_the_nearest_match_after_the_pointer() -> None:
    block = [50, 51, 52, 53, 54, 55, 56, 57]
    original = [10, 11, 12, *block, 20, 21, 22, *block, 30, 31, 32, *block, 40]
    drafter = Drafter(original)
    drafter.pointer = 14  # inside the second copy's lead-in, as if the first was consumed
    drafter.observe(0, [99, 50, 51, 52])  # the model wrote a new token, then `block` began
    assert drafter.pointer == original.index(50, 14) + 3


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), length=st.integers(1, 300))
def test_lossless_for_any_draft(seed: int, length: int) -> None:
    target = text_like(length, seed)
    draft = perturb(target, seed, list(range(10, 200))) if length > 20 else target[::-1]
    result, _ = run(target, draft)
    assert result.tokens == target
    assert result.stats.decode_calls <= len(target)


def test_utf8_split_across_byte_tokens_streams_whole_characters() -> None:
    text = "naïve → 日本 ok"
    data = text.encode("utf-8")
    pieces = {100 + i: bytes([b]) for i, b in enumerate(data)}
    got: list[str] = []
    stream = OutputStream(
        pieces.__getitem__,
        stop_tokens=frozenset(),
        stop_strings=(),
        max_tokens=len(data),
        on_token=got.append,
    )
    for token in pieces:
        stream.push(token)
    assert "".join(got) == text == stream.text
    assert all(not any("\udc80" <= ch <= "\udcff" for ch in piece) for piece in got)


def test_stop_string_is_held_back_and_cut() -> None:
    pieces = {1: b"abc</upd", 2: b"ated-code>tail"}
    got: list[str] = []
    stream = OutputStream(
        pieces.__getitem__,
        stop_tokens=frozenset({9}),
        stop_strings=("</updated-code>",),
        max_tokens=10,
        on_token=got.append,
    )
    assert not stream.push(1)
    assert "".join(got) == "abc"  # "</upd" might be the closing tag: not shown yet
    assert stream.push(2)
    assert stream.text == "abc" and "".join(got) == "abc" and stream.stop_reason == "stop"


# -- on llama.cpp ---------------------------------------------------------------------------


SAMPLES = [
    "def add(a, b):\n    return a + b\n",
    "class Box:\n    def __init__(self, size):\n        self.size = size\n",
    "const x = require('x');\nmodule.exports = function (a) { return x(a); };\n",
    'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("héllo")\n}\n',
]


@pytest.mark.parametrize("sample", range(len(SAMPLES)))
def test_llama_speculative_equals_vanilla(tiny_model: LocalApplyModel, sample: int) -> None:
    original = SAMPLES[sample] * 6
    prepared = tiny_model.prepare(original, "# ... existing code ...\nx = 1\n")
    vanilla = tiny_model.decode(prepared, speculative=False, max_tokens=300)
    assert len(vanilla.tokens) == 300
    vocab = sorted(set(prepared.original))
    for seed in range(6):
        draft = perturb(vanilla.tokens, seed, vocab)
        spec = tiny_model.decode(prepared, max_tokens=300, draft_source=draft)
        assert spec.tokens == vanilla.tokens, f"sample {sample} seed {seed}"
        assert spec.stats.decode_calls < vanilla.stats.decode_calls / 3


def test_llama_draft_from_the_original_is_lossless(tiny_model: LocalApplyModel) -> None:
    # The real use: the draft is the original file. The random model does not copy it, so
    # drafts are mostly rejected; the output must still be exactly the plain greedy one.
    prepared = tiny_model.prepare(SAMPLES[1] * 4, SAMPLES[1])
    vanilla = tiny_model.decode(prepared, speculative=False, max_tokens=200)
    spec = tiny_model.decode(prepared, speculative=True, max_tokens=200)
    assert spec.tokens == vanilla.tokens
    assert spec.stats.drafted > 0


def test_llama_streams_the_same_text_it_returns(tiny_model: LocalApplyModel) -> None:
    prepared = tiny_model.prepare(SAMPLES[3] * 3, "x")
    vanilla = tiny_model.decode(prepared, speculative=False, max_tokens=150)
    got: list[str] = []
    draft = perturb(vanilla.tokens, 5, sorted(set(prepared.original)))
    spec = tiny_model.decode(prepared, max_tokens=150, draft_source=draft, on_token=got.append)
    assert "".join(got) == spec.text == vanilla.text
    assert len(got) > 5


def test_llama_prompt_prefix_cache_changes_nothing(
    tiny_model: LocalApplyModel, tiny_model_path
) -> None:
    fresh = LocalApplyModel(tiny_model_path, profile="fastapply")
    a = tiny_model.prepare(SAMPLES[0] * 5, "x = 1\n")
    b = tiny_model.prepare(SAMPLES[0] * 5, "x = 2\n")  # same prefix, different tail
    expected = [fresh.decode(p, speculative=False, max_tokens=60).tokens for p in (a, b)]
    fresh.close()
    for prepared, want in [(a, expected[0]), (a, expected[0]), (b, expected[1])]:
        fresh_each = LocalApplyModel(tiny_model_path, profile="fastapply")
        assert fresh_each.decode(prepared, speculative=False, max_tokens=60).tokens == want
        fresh_each.close()
        assert tiny_model.decode(prepared, speculative=False, max_tokens=60).tokens == want
        assert tiny_model.decode(prepared, max_tokens=60).tokens == want
