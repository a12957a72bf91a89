"""Greedy decoding with speculative edits, and the plain greedy loop it must match token for token.

The draft does not come from a draft model but from text the answer is expected to copy: the
original file (and the sketch). A pointer into those tokens proposes the next k tokens; one
batched decode verifies them all (logits only for the verified positions, never `logits_all`);
the agreeing prefix plus the model's own next token are accepted and the rejected positions are
removed from the KV cache. After a disagreement the drafter re-aligns by looking up the last few
generated tokens in the original (after the pointer first, nearest first, then before it), then
in the sketch. k grows while drafts are accepted and shrinks on rejection.

Both loops run on the same `Engine` (see `lowlevel.LlamaEngine`), which decodes a batch and
returns the argmax at the positions asked for (numpy's argmax: the first of equal maxima, in
both loops). The first token comes from the prompt's last logits in both; every later token is
the argmax at the position before it, so as long as the engine's logits for a position do not
depend on how many positions share its batch, the two token sequences are identical.

What we found on llama.cpp (llama-cpp-python 0.3.36, CPU): they do depend on it in two ways.
A one-row batch takes other kernels than a wider one (max logit difference on q8_0 weights
~0.05-0.5, enough to flip greedy choices; f16 ~2e-3; f32 ~3e-6), and the CPU flash-attention
kernel differs between batch shapes too. Every batch of two or more rows, with flash attention
off, gives bit-identical logits per position. So the engine pads one-token decodes to two rows
and keeps flash attention off, and both loops compute on the same arithmetic; the tests and
`cursorish bench spec` check the token sequences are identical.
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol


class Engine(Protocol):
    """A model context with one sequence whose KV cache can be truncated."""

    def eval_prompt(self, tokens: Sequence[int]) -> int:
        """Clear the cache, evaluate `tokens` from position 0; the argmax after the last one."""
        ...

    def decode_argmax(self, tokens: Sequence[int], start_pos: int) -> list[int]:
        """Evaluate `tokens` at positions start_pos.. in ONE decode; argmax after each of them."""
        ...

    def truncate(self, n_keep: int) -> None:
        """Drop every cached position >= n_keep."""
        ...

    def token_bytes(self, token: int) -> bytes: ...


@dataclass
class DecodeStats:
    output_tokens: int = 0
    decode_calls: int = 0  # decodes after the prompt (the prompt is the same in both modes)
    drafted: int = 0
    accepted: int = 0
    prompt_s: float = 0.0
    decode_s: float = 0.0

    @property
    def calls_per_token(self) -> float:
        return self.decode_calls / self.output_tokens if self.output_tokens else 0.0

    @property
    def tokens_per_s(self) -> float:
        return self.output_tokens / self.decode_s if self.decode_s > 0 else 0.0


@dataclass
class DecodeResult:
    tokens: list[int]
    text: str  # output decoded (UTF-8, surrogateescape), cut before any stop string
    stop_reason: str  # "eos" | "stop" | "length"
    stats: DecodeStats = field(default_factory=DecodeStats)


class OutputStream:
    """Turns accepted tokens into text: UTF-8 split across byte tokens, stop tokens/strings.

    Text that might be the start of a stop string is held back from `on_token` until it is
    clear, so a caller never sees half of a closing tag.
    """

    def __init__(
        self,
        token_bytes: Callable[[int], bytes],
        *,
        stop_tokens: frozenset[int],
        stop_strings: Sequence[str],
        max_tokens: int,
        on_token: Callable[[str], None] | None,
    ) -> None:
        self._token_bytes = token_bytes
        self._stop_tokens = stop_tokens
        self._stop_strings = [s for s in stop_strings if s]
        self._max_tokens = max_tokens
        self._on_token = on_token
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.tokens: list[int] = []
        self.text = ""
        self._emitted = 0
        self.stop_reason: str | None = None

    def push(self, token: int) -> bool:
        """Add one accepted token; True once generation must stop."""
        if self.stop_reason is not None:
            return True
        if token in self._stop_tokens:
            self.stop_reason = "eos"
            self._flush(final=True)
            return True
        self.tokens.append(token)
        self.text += self._decoder.decode(self._token_bytes(token))
        for stop in self._stop_strings:
            at = self.text.find(stop, max(0, self._emitted - len(stop)))
            if at != -1:
                self.text = self.text[:at]
                self.stop_reason = "stop"
                self._flush(final=True)
                return True
        if len(self.tokens) >= self._max_tokens:
            self.stop_reason = "length"
            self._flush(final=True)
            return True
        self._flush(final=False)
        return False

    def _flush(self, *, final: bool) -> None:
        if final and self.stop_reason != "stop":
            self.text += self._decoder.decode(b"", final=True)
        end = len(self.text) if final else len(self.text) - self._held_back()
        if self._on_token is not None and end > self._emitted:
            self._on_token(self.text[self._emitted : end])
        self._emitted = max(self._emitted, end)

    def _held_back(self) -> int:
        """Length of the longest suffix of the text that is a proper prefix of a stop string."""
        best = 0
        for stop in self._stop_strings:
            for n in range(min(len(stop) - 1, len(self.text)), best, -1):
                if self.text.endswith(stop[:n]):
                    best = n
                    break
        return best


class Drafter:
    """Proposes the next tokens of the answer from the original file's (and sketch's) tokens.

    States: *confident* (the last tokens matched the source at `pointer`: draft up to k),
    *guessing* (lost track: draft one token, the source's token where the answer diverged or
    just after the last generated token nearby; a one-token draft costs nothing, it takes the
    row that pads a single-token decode anyway), or nothing to draft (`pointer` None).
    """

    def __init__(
        self,
        original: Sequence[int],
        sketch: Sequence[int] = (),
        *,
        ngram: int = 3,
        context: int = 8,
        window: int = 48,
    ) -> None:
        self._sources = [list(original), list(sketch)]
        self._ngram = ngram
        self._context = context
        self._window = window
        self._index = [_ngram_index(src, ngram) for src in self._sources]
        self.source = 0  # 0 = original, 1 = sketch
        self.pointer: int | None = 0  # next token of the source expected in the answer
        self.confident = True
        self._last_pos = [0, 0]  # where each source was last followed, for "nearest first"

    def propose(self, k: int) -> list[int]:
        if self.pointer is None or k <= 0:
            return []
        src = self._sources[self.source]
        return src[self.pointer : self.pointer + (k if self.confident else 1)]

    def observe(self, n_accepted: int, generated: Sequence[int]) -> None:
        """`n_accepted` drafted tokens were accepted; `generated` is the whole answer so far,
        ending with the model's own token after them."""
        if self.pointer is not None:
            self.pointer += n_accepted
            src = self._sources[self.source]
            # The model's own token may still agree with the source (the draft was cut at k).
            if self.pointer < len(src) and src[self.pointer] == generated[-1]:
                self._follow(self.source, self.pointer + 1)
                return
            self._last_pos[self.source] = self.pointer
        if not self._realign(generated):
            self._guess(generated[-1])

    def _follow(self, source: int, pointer: int) -> None:
        self.source, self.pointer, self.confident = source, pointer, True
        self._last_pos[source] = pointer

    def _realign(self, generated: Sequence[int]) -> bool:
        """Find where the last generated tokens occur: in the original after the pointer
        (nearest first), then before it, then in the sketch; longer matches win ties."""
        n = self._ngram
        if len(generated) < n:
            return False
        key = tuple(generated[-n:])
        best: tuple[int, int, int] | None = None  # (rank, -match_len, distance)
        best_at = (0, 0)
        for source in (0, 1):
            positions = self._index[source].get(key)
            if not positions:
                continue
            src = self._sources[source]
            here = self._last_pos[source]
            for end in positions:  # `end` = index just after the matched n-gram
                if end >= len(src):
                    continue  # nothing left to draft from there
                length = _match_back(src, end, generated, self._context)
                ahead = end >= here
                rank = 2 * source + (0 if ahead else 1)
                candidate = (rank, -length, abs(end - here))
                if best is None or candidate < best:
                    best, best_at = candidate, (source, end)
        if best is None:
            return False
        self._follow(*best_at)
        return True

    def _guess(self, token: int) -> None:
        """Lost track: keep the place where the answer diverged, or skip to just after `token`
        if it occurs shortly after it (the answer dropped or replaced a few tokens)."""
        if self.pointer is None:
            return
        src = self._sources[self.source]
        stop = min(len(src), self.pointer + self._window)
        for q in range(self.pointer, stop):
            if src[q] == token:
                self.pointer = q + 1
                break
        self.confident = False
        if self.pointer >= len(src):
            self.pointer = None


def _ngram_index(tokens: Sequence[int], n: int) -> dict[tuple[int, ...], list[int]]:
    index: dict[tuple[int, ...], list[int]] = {}
    for i in range(len(tokens) - n + 1):
        index.setdefault(tuple(tokens[i : i + n]), []).append(i + n)
    return index


def _match_back(src: Sequence[int], end: int, generated: Sequence[int], limit: int) -> int:
    """How many tokens before `end` in `src` agree with the tail of `generated` (at most limit)."""
    length = 0
    while (
        length < limit
        and length < end
        and length < len(generated)
        and src[end - 1 - length] == generated[-1 - length]
    ):
        length += 1
    return length


@dataclass(frozen=True)
class SpecConfig:
    k_start: int = 8
    k_min: int = 2
    k_max: int = 64


class GreedyDecoder:
    """Step-by-step greedy decoding: speculative with a drafter, one token per step without.

    `generate` runs it to the end; the benchmark steps several decoders in turn so that
    machine load falls on all of them alike.
    """

    def __init__(
        self,
        engine: Engine,
        prompt: Sequence[int],
        *,
        max_tokens: int,
        stop_tokens: frozenset[int],
        stop_strings: Sequence[str] = (),
        drafter: Drafter | None = None,
        config: SpecConfig | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> None:
        self.engine = engine
        self.prompt = list(prompt)
        self.max_tokens = max_tokens
        self.drafter = drafter
        self.cfg = config or SpecConfig()
        self.stats = DecodeStats()
        self.out = OutputStream(
            engine.token_bytes,
            stop_tokens=stop_tokens,
            stop_strings=stop_strings,
            max_tokens=max_tokens,
            on_token=on_token,
        )
        self.done = False
        self._last = -1
        self._n_past = len(self.prompt)  # positions in the KV cache; `_last` is not among them
        self._k = self.cfg.k_start

    def start(self, first_token: int | None = None) -> None:
        """Evaluate the prompt (or take `first_token` when the engine already holds it)."""
        started = time.perf_counter()
        last = self.engine.eval_prompt(self.prompt) if first_token is None else first_token
        self.stats.prompt_s = time.perf_counter() - started
        self._last = last
        self.done = self.out.push(last)

    def step(self) -> None:
        """One decode call: verify the draft (if any) and accept what agrees, plus one token."""
        if self.done:
            return
        started = time.perf_counter()
        drafter, out, cfg = self.drafter, self.out, self.cfg
        draft = drafter.propose(self._k) if drafter is not None else []
        # Never draft past what can still be emitted (the cache must hold every position).
        draft = draft[: max(0, self.max_tokens - len(out.tokens))]
        predicted = self.engine.decode_argmax([self._last, *draft], self._n_past)
        self.stats.decode_calls += 1
        accepted = 0
        while accepted < len(draft) and predicted[accepted] == draft[accepted]:
            accepted += 1
        if accepted < len(draft):
            self.engine.truncate(self._n_past + accepted + 1)
        self.stats.drafted += len(draft)
        self.stats.accepted += accepted
        self._n_past += accepted + 1
        new_tokens = [*draft[:accepted], predicted[accepted]]
        for token in new_tokens:
            self.done = out.push(token)
            if self.done:
                break
        self._last = new_tokens[-1]
        if drafter is not None and not self.done:
            drafter.observe(accepted, out.tokens)
            if draft and accepted == len(draft):
                self._k = min(cfg.k_max, self._k * 2)
            elif draft:
                self._k = max(cfg.k_min, min(self._k // 2, max(accepted, 1) * 2))
            if not drafter.confident or drafter.pointer is None:
                self._k = cfg.k_start
        self.stats.decode_s += time.perf_counter() - started

    def result(self) -> DecodeResult:
        self.stats.output_tokens = len(self.out.tokens)
        return DecodeResult(
            tokens=self.out.tokens,
            text=self.out.text,
            stop_reason=self.out.stop_reason or "length",
            stats=self.stats,
        )


def generate(
    engine: Engine,
    prompt: Sequence[int],
    *,
    max_tokens: int,
    stop_tokens: frozenset[int],
    stop_strings: Sequence[str] = (),
    drafter: Drafter | None = None,
    config: SpecConfig | None = None,
    on_token: Callable[[str], None] | None = None,
) -> DecodeResult:
    """Greedy decoding to the end: speculative with `drafter`, one token per decode without."""
    decoder = GreedyDecoder(
        engine,
        prompt,
        max_tokens=max_tokens,
        stop_tokens=stop_tokens,
        stop_strings=stop_strings,
        drafter=drafter,
        config=config,
        on_token=on_token,
    )
    decoder.start()
    while not decoder.done:
        decoder.step()
    return decoder.result()
