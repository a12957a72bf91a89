"""The local apply model: a GGUF file run by llama.cpp, decoding with speculative edits.

One `LocalApplyModel` is shared by every agent of a session (up to eight threads). llama.cpp
contexts are not thread-safe, so all decoding goes through one first-come-first-served queue
(`_FairLock`); the weights are loaded once. The context is sized per request (prompt + the
expected answer: original + sketch + margin) and reused while it is large enough; a file that
does not fit the model's trained context is refused with a message, never truncated.

Layers are offloaded to the GPU (`n_gpu_layers=-1`) when the installed llama.cpp was built
with GPU support, otherwise the model runs on all CPU cores.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cursorish.apply.model.lowlevel import LlamaEngine, LlamaModel
from cursorish.apply.model.prompts import ApplyProfile, get_profile, guess_profile
from cursorish.apply.model.speculative import DecodeResult, Drafter, SpecConfig, generate
from cursorish.apply.model.validate import check_model_output
from cursorish.apply.result import ApplyOutcome, Merged, Refused

ENGINE = "model"
_CTX_ROUND = 256
_OUTPUT_MARGIN = 64  # tokens beyond original + sketch the answer may use
_PAD_MARGIN = 16  # positions past the answer that padded decode rows may occupy


class _FairLock:
    """A lock granted in arrival order, so no agent waits forever behind the others."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._next_ticket = 0
        self._serving = 0
        self._abandoned: set[int] = set()  # tickets whose waiter was interrupted

    def __enter__(self) -> None:
        with self._cond:
            ticket = self._next_ticket
            self._next_ticket += 1
            try:
                while ticket != self._serving:
                    self._cond.wait()
            except BaseException:
                # Interrupted while queued: give the turn up, or the queue would stall on it.
                self._abandoned.add(ticket)
                self._skip_abandoned()
                self._cond.notify_all()
                raise

    def __exit__(self, *_exc: object) -> None:
        with self._cond:
            self._serving += 1
            self._skip_abandoned()
            self._cond.notify_all()

    def _skip_abandoned(self) -> None:
        while self._serving in self._abandoned:
            self._abandoned.discard(self._serving)
            self._serving += 1


@dataclass(frozen=True)
class PreparedApply:
    """Tokens for one apply request, and the budget it needs."""

    prompt: list[int]
    original: list[int]
    sketch: list[int]
    max_tokens: int

    @property
    def n_ctx_needed(self) -> int:
        return len(self.prompt) + self.max_tokens + _PAD_MARGIN


class ContextTooSmall(Exception):
    """The request does not fit the model's trained context."""


class LocalApplyModel:
    """A loaded GGUF apply model; `apply` turns (original, sketch) into the new file."""

    engine_name = ENGINE

    def __init__(
        self,
        path: str | Path,
        *,
        profile: str | ApplyProfile | None = None,
        n_gpu_layers: int | None = None,
        n_threads: int | None = None,
        spec: SpecConfig | None = None,
        extra_buffers: bool | None = None,
        max_ctx: int | None = None,
    ) -> None:
        self.model = LlamaModel(path, n_gpu_layers=n_gpu_layers, extra_buffers=extra_buffers)
        self.path = self.model.path
        if isinstance(profile, ApplyProfile):
            self.profile = profile
        elif profile:
            self.profile = get_profile(profile)
        else:
            metadata = {
                key: value
                for key in ("general.name", "general.basename")
                if (value := self.model.meta(key)) is not None
            }
            self.profile = guess_profile(str(self.path), metadata)
        self.n_threads = n_threads or max(1, os.cpu_count() or 1)
        # On a GPU a wider verify batch costs almost nothing; on a CPU every drafted row costs
        # compute, and rows after a rejection are wasted, so drafts stop growing earlier.
        self.spec = spec or SpecConfig(k_max=64 if self.model.n_gpu_layers != 0 else 32)
        self.min_rows = _min_rows(self.model.n_gpu_layers != 0)
        self.max_ctx = min(max_ctx or self.model.n_ctx_train, self.model.n_ctx_train)
        self.stop_tokens = self.model.eog_tokens()
        self._lock = _FairLock()
        self._engine: LlamaEngine | None = None

    @property
    def name(self) -> str:
        return self.path.name

    def close(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.close()
                self._engine = None
            self.model.close()

    # -- preparing a request -------------------------------------------------------------

    def tokenize_prompt(self, original: str, sketch: str, instruction: str | None) -> list[int]:
        tokens: list[int] = []
        for i, segment in enumerate(self.profile.raw_prompt(original, sketch, instruction)):
            tokens += self.model.tokenize(segment.text, add_bos=i == 0, special=segment.special)
        return tokens

    def prepare(self, original: str, sketch: str, instruction: str | None = None) -> PreparedApply:
        """Tokenize a request and size its answer; raises `ContextTooSmall` when it cannot fit."""
        prompt = self.tokenize_prompt(original, sketch, instruction)
        original_tokens = self.model.tokenize(original)
        sketch_tokens = self.model.tokenize(sketch)
        closing = (
            self.model.tokenize(self.profile.output_close) if self.profile.output_close else []
        )
        # The answer is about the original plus what the sketch adds; it can never need more
        # than both together (plus the closing tag and a margin).
        max_tokens = len(original_tokens) + len(sketch_tokens) + len(closing) + _OUTPUT_MARGIN
        needed = len(prompt) + max_tokens + _PAD_MARGIN
        if needed > self.max_ctx:
            raise ContextTooSmall(
                f"the file is too large for the apply model's context: the prompt takes "
                f"{len(prompt)} tokens and the answer may need {max_tokens}, but "
                f"{self.name} handles {self.max_ctx} tokens"
            )
        return PreparedApply(prompt, original_tokens + closing, sketch_tokens, max_tokens)

    def _engine_for(self, n_ctx: int) -> LlamaEngine:
        """A context with at least `n_ctx` positions (call with the lock held)."""
        if self._engine is not None and self._engine.n_ctx >= n_ctx:
            return self._engine
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        size = min(self.max_ctx, -(-n_ctx // _CTX_ROUND) * _CTX_ROUND)
        batch = max(512, self.spec.k_max + 1)
        self._engine = LlamaEngine(
            self.model,
            n_ctx=size,
            n_batch=batch,
            n_threads=self.n_threads,
            min_rows=self.min_rows,
        )
        return self._engine

    # -- decoding --------------------------------------------------------------------------

    def decode(
        self,
        prepared: PreparedApply,
        *,
        speculative: bool = True,
        on_token: Callable[[str], None] | None = None,
        draft_source: list[int] | None = None,
        max_tokens: int | None = None,
    ) -> DecodeResult:
        """Greedy-decode the answer to `prepared` (speculative from the original by default).

        `draft_source` replaces the original's tokens as the draft (the benchmark uses it).
        """
        limit = prepared.max_tokens if max_tokens is None else max_tokens
        with self._lock:
            engine = self._engine_for(len(prepared.prompt) + limit + _PAD_MARGIN)
            drafter = None
            if speculative:
                source = prepared.original if draft_source is None else draft_source
                drafter = Drafter(source, prepared.sketch)
            return generate(
                engine,
                prepared.prompt,
                max_tokens=limit,
                stop_tokens=self.stop_tokens,
                stop_strings=self.profile.all_stops(),
                drafter=drafter,
                config=self.spec,
                on_token=on_token,
            )

    def apply(
        self,
        original: str,
        sketch: str,
        *,
        path: str,
        instruction: str | None = None,
        on_token: Callable[[str], None] | None = None,
        speculative: bool = True,
    ) -> ApplyOutcome:
        """The new file, or `Refused` when it does not fit, is cut off, or does not parse."""
        try:
            prepared = self.prepare(original, sketch, instruction)
        except ContextTooSmall as error:
            return Refused(str(error), ENGINE, "model")
        result = self.decode(prepared, speculative=speculative, on_token=on_token)
        if result.stop_reason == "length":
            return Refused(
                f"the apply model did not finish the file within {prepared.max_tokens} tokens "
                "(its answer would be cut off)",
                ENGINE,
                "model",
            )
        merged = self.profile.parse_output(result.text)
        problem = check_model_output(original, sketch, merged, path)
        if problem:
            return Refused(problem, ENGINE, "model")
        stats = result.stats
        note = (
            f"{self.name}: {stats.output_tokens} tokens in {stats.decode_calls} decode calls "
            f"({stats.tokens_per_s:.1f} tok/s{', speculative' if speculative else ''})"
        )
        return Merged(merged, ENGINE, "model", (note,))


def _min_rows(gpu: bool) -> int:
    """Rows every decode is padded to, so all decodes share one kernel family.

    CPU: two (measured: every batch of two or more rows gives the same logits per position).
    GPU (not measured here): CUDA switches matmul kernels above 8 rows, so 16 — extra rows are
    almost free there. `CURSORISH_SPEC_MIN_ROWS` overrides; `bench spec` reports `identical`.
    """
    forced = os.environ.get("CURSORISH_SPEC_MIN_ROWS", "").strip()
    if forced.isdigit() and int(forced) >= 1:
        return min(int(forced), _PAD_MARGIN)
    return 16 if gpu else 2


_models_lock = threading.Lock()
_models: dict[tuple[str, str | None], LocalApplyModel] = {}


def load_local_model(path: str | Path, *, profile: str | None = None) -> LocalApplyModel:
    """The shared `LocalApplyModel` for `path` (loaded once per process and profile)."""
    key = (str(Path(path).expanduser().resolve()), profile)
    with _models_lock:
        model = _models.get(key)
        if model is None:
            model = LocalApplyModel(key[0], profile=profile)
            _models[key] = model
        return model
