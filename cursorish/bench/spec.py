"""`cursorish bench spec`: speculative edits against plain greedy decoding, on the same model.

Each case is an apply prompt (a generated Python file and a lazy sketch of it). Per case the
model decodes the answer three ways, each in its own context (the prompt is evaluated once and
its cache copied):

- vanilla: plain greedy, one token per decode, on the padded arithmetic the speculative
  verifier also uses (see `LlamaEngine.decode_argmax`) — the reference for `identical`;
- single-row: plain greedy with true one-row decodes (llama.cpp's usual generation loop),
  timed too, so the speed-up is reported against the FASTER of the two plain loops;
- speculative: drafts verified in one batched decode each; stepped in lockstep with the
  single-row loop, so that load from other processes falls on both alike.

Draft source: with a real model, the original file (as in real use). A random-weight model
writes nonsense that never copies the original, so there the draft source is the vanilla
output with 1-4 edit-like regions changed (inserted, deleted and replaced spans, about 5-15%
of the tokens, seeded) — the situation of an apply where most of the file is unchanged. The
model itself is not made copy-friendly: both decoders run the same weights.

On the `bpe` preset (a byte-level BPE vocabulary, as real models have) the edits are made to the
TEXT and each edited window (the edit plus a few tokens either side) is tokenized again, so the
draft's tokens and the answer's tokens disagree at the edges of every edit the way an
original's and a real answer's do (`perturb_retokenized`); the summary counts those windows.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from cursorish.apply.model.backend import LocalApplyModel, PreparedApply
from cursorish.apply.model.lowlevel import LlamaEngine
from cursorish.apply.model.speculative import Drafter, GreedyDecoder

DEFAULT_SYNTHETIC_TOKENS = 300


@dataclass
class CaseResult:
    case: int
    tokens: int
    identical: bool
    identical_single_row: bool
    vanilla_calls: int
    spec_calls: int
    vanilla_s: float
    single_row_s: float
    spec_s: float
    accepted: int
    drafted: int
    misaligned_windows: int = 0  # edited windows whose re-tokenized edges differ (bpe only)

    @property
    def calls_per_token(self) -> float:
        return self.spec_calls / self.tokens if self.tokens else 0.0


def perturb(tokens: list[int], seed: int, vocab: list[int]) -> list[int]:
    """`tokens` with 1-4 edit-like regions changed, about 5-15% of the tokens in all."""
    rng = random.Random(seed)
    out = list(tokens)
    n = len(out)
    regions = rng.randint(1, 4)
    budget = max(regions, int(n * rng.uniform(0.05, 0.15)))
    sizes = [max(1, budget // regions + rng.randint(-2, 2)) for _ in range(regions)]
    # Work from the end, so earlier region positions stay valid while later ones change.
    starts = sorted(rng.sample(range(n // 20, max(n // 20 + 1, n - 10)), regions), reverse=True)
    for start, size in zip(starts, sizes, strict=True):
        kind = rng.choice(("insert", "delete", "replace"))
        fresh = [rng.choice(vocab) for _ in range(size)]
        if kind == "insert":
            out[start:start] = fresh
        elif kind == "delete":
            del out[start : start + size]
        else:
            out[start : start + size] = fresh
    return out


# Text an edit puts into the answer: identifiers that run on from their neighbours, operators,
# whole lines, indentation, so the BPE merges across the edit's edges change.
_EDIT_TEXTS = (
    "_id",
    "count",
    " + 1",
    "self.value",
    "return None\n",
    "\n    ",
    "(x)",
    ", total",
    " # note",
    "ing",
    "s",
    "\n\n",
    "    if not items:\n        return []\n",
)


def perturb_retokenized(
    tokens: list[int],
    seed: int,
    piece: Callable[[int], bytes],
    tokenize: Callable[[str], list[int]],
) -> tuple[list[int], int]:
    """`tokens` with 1-4 text edits (at any byte, often inside a token), each window around
    an edit tokenized again as a whole.

    Returns the new tokens and how many windows disagree with the old tokens beyond the edited
    bytes: the old and new tokens there cover the same text but are split differently (an
    edit that cuts a token does that, and so do BPE merges across the edit's edges).
    """
    rng = random.Random(seed)
    out = list(tokens)
    n = len(out)
    if n < 40:
        return out, 0
    regions = rng.randint(1, 4)
    starts = sorted(rng.sample(range(n // 20, n - 10), regions), reverse=True)
    misaligned = 0
    previous = n
    for start in starts:
        end = min(start + rng.randint(1, max(1, n // 40)), previous)
        left, right = max(0, start - rng.randint(2, 4)), min(previous, end + rng.randint(2, 4))
        if start >= end:
            continue
        pieces = [piece(t) for t in out[left:right]]
        text = b"".join(pieces)
        a = sum(len(x) for x in pieces[: start - left])
        b = a + sum(len(x) for x in pieces[start - left : end - left])
        cut = rng.randint(a, b)
        stop = rng.randint(cut, b)
        fresh = rng.choice(_EDIT_TEXTS).encode()
        kind = rng.choice(("insert", "delete", "replace"))
        if kind == "insert" or (kind == "delete" and stop == cut):
            stop = cut if kind == "insert" else min(len(text), cut + 1)
        edited = text[:cut] + (b"" if kind == "delete" else fresh) + text[stop:]
        window = tokenize(edited.decode("utf-8", "replace"))
        old = out[left:right]
        same_head = _common_bytes(old, window, piece)
        same_tail = _common_bytes(old[::-1], window[::-1], piece)
        if same_head < cut or same_tail < len(text) - stop:
            misaligned += 1
        out[left:right] = window
        previous = left
    return out, misaligned


def _common_bytes(a: list[int], b: list[int], piece: Callable[[int], bytes]) -> int:
    """Bytes covered by the common leading tokens of `a` and `b`."""
    covered = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        covered += len(piece(x))
    return covered


def bench_cases(count: int) -> list[tuple[str, str]]:
    """(original, sketch) pairs: generated Python modules of various sizes with lazy sketches."""
    from cursorish.bench.apply import generate_file, make_sketch

    cases = []
    for i in range(count):
        original = generate_file(40 + 12 * (i % 4), seed=100 + i)
        cases.append((original, make_sketch(original, edits=1 + i % 3, seed=200 + i)))
    return cases


class BenchEngines:
    """Three contexts on one model: padded vanilla (the reference), single-row, speculative."""

    def __init__(self, model: LocalApplyModel, n_ctx: int) -> None:
        def engine(min_rows: int) -> LlamaEngine:
            return LlamaEngine(
                model.model,
                n_ctx=n_ctx,
                n_batch=max(512, model.spec.k_max + 1),
                n_threads=model.n_threads,
                min_rows=min_rows,
            )

        self.vanilla = engine(model.min_rows)
        self.single = engine(1)
        self.spec = engine(model.min_rows)

    def close(self) -> None:
        for engine in (self.vanilla, self.single, self.spec):
            engine.close()


def run_case(
    model: LocalApplyModel,
    engines: BenchEngines,
    case: int,
    prepared: PreparedApply,
    *,
    synthetic: bool,
    max_tokens: int,
    retokenize: bool = False,
) -> CaseResult:
    def decoder(engine: LlamaEngine, drafter: Drafter | None = None) -> GreedyDecoder:
        return GreedyDecoder(
            engine,
            prepared.prompt,
            max_tokens=max_tokens,
            stop_tokens=model.stop_tokens,
            stop_strings=model.profile.all_stops(),
            drafter=drafter,
            config=model.spec,
        )

    # The prompt is evaluated once; the other contexts get a byte copy of its cache.
    vanilla = decoder(engines.vanilla)
    vanilla.start()
    first = vanilla.out.tokens[0] if vanilla.out.tokens else None
    engines.single.copy_state_from(engines.vanilla)
    engines.spec.copy_state_from(engines.vanilla)
    while not vanilla.done:
        vanilla.step()
    reference = vanilla.result()
    source = prepared.original
    misaligned = 0
    if synthetic and retokenize:
        source, misaligned = perturb_retokenized(
            reference.tokens, 1000 + case, model.model.token_bytes, model.model.tokenize
        )
    elif synthetic:
        source = perturb(reference.tokens, seed=1000 + case, vocab=sorted(set(prepared.original)))
    single = decoder(engines.single)
    spec = decoder(engines.spec, Drafter(source, prepared.sketch))
    single.start(first)
    spec.start(first)
    # Lockstep: after each speculative step, plain steps until the plain loop has caught up,
    # so both are timed through the same stretches of machine load.
    while not spec.done or not single.done:
        spec.step()
        while not single.done and (spec.done or len(single.out.tokens) < len(spec.out.tokens)):
            single.step()
    single_result, spec_result = single.result(), spec.result()
    return CaseResult(
        case=case,
        tokens=len(reference.tokens),
        identical=spec_result.tokens == reference.tokens,
        identical_single_row=single_result.tokens == reference.tokens,
        vanilla_calls=reference.stats.decode_calls,
        spec_calls=spec_result.stats.decode_calls,
        vanilla_s=reference.stats.decode_s,
        single_row_s=single_result.stats.decode_s,
        spec_s=spec_result.stats.decode_s,
        accepted=spec_result.stats.accepted,
        drafted=spec_result.stats.drafted,
        misaligned_windows=misaligned,
    )


def summarize(results: list[CaseResult]) -> dict[str, object]:
    tokens = sum(r.tokens for r in results)
    vanilla_s = sum(r.vanilla_s for r in results)
    single_s = sum(r.single_row_s for r in results)
    spec_s = sum(r.spec_s for r in results)
    vanilla_tok_s = tokens / vanilla_s if vanilla_s else 0.0
    single_tok_s = tokens / single_s if single_s else 0.0
    spec_tok_s = tokens / spec_s if spec_s else 0.0
    best_plain = max(vanilla_tok_s, single_tok_s)
    return {
        "cases": len(results),
        "identical": all(r.identical for r in results),
        "identical_single_row": all(r.identical_single_row for r in results),
        "output_tokens": tokens,
        "vanilla_calls": sum(r.vanilla_calls for r in results),
        "spec_calls": sum(r.spec_calls for r in results),
        "calls_per_token": sum(r.spec_calls for r in results) / tokens if tokens else 0.0,
        "acceptance": sum(r.accepted for r in results) / max(1, sum(r.drafted for r in results)),
        "vanilla_tok_s": round(vanilla_tok_s, 2),
        "single_row_tok_s": round(single_tok_s, 2),
        "spec_tok_s": round(spec_tok_s, 2),
        "speedup": round(spec_tok_s / best_plain, 3) if best_plain else 0.0,
        "speedup_vs_padded_vanilla": round(spec_tok_s / vanilla_tok_s, 3) if vanilla_tok_s else 0.0,
        "misaligned_windows": sum(r.misaligned_windows for r in results),
    }


def cmd_bench_spec(args: argparse.Namespace) -> int:
    """Print per-case and total figures; with --json the last line is the summary object."""
    from cursorish.bench.synthetic_models import synthetic_model_path

    model_path = getattr(args, "model", None)
    preset = getattr(args, "synthetic", None)
    if not model_path:
        preset = preset or "0.5b"
        model_path = str(synthetic_model_path(preset))
    synthetic = not getattr(args, "model", None)
    as_json = bool(getattr(args, "json", False))
    count = int(getattr(args, "cases", None) or 8)
    max_tokens_arg = getattr(args, "max_tokens", None)

    started = time.perf_counter()
    model = LocalApplyModel(model_path, profile="fastapply" if synthetic else None)
    load_s = time.perf_counter() - started
    results = []
    out = sys.stdout
    if not as_json:
        print(
            f"model: {model.name} ({model.model.n_layer} layers, n_vocab {model.model.n_vocab}, "
            f"gpu layers {model.model.n_gpu_layers}, {model.n_threads} threads), "
            f"loaded in {load_s:.1f}s",
            file=out,
        )
    requests = []
    for original, sketch in bench_cases(count):
        prepared = model.prepare(original, sketch)
        limit = max_tokens_arg or (DEFAULT_SYNTHETIC_TOKENS if synthetic else prepared.max_tokens)
        requests.append((prepared, limit))
    n_ctx = max(len(p.prompt) + limit + model.min_rows for p, limit in requests)
    engines = BenchEngines(model, min(model.max_ctx, n_ctx))
    for i, (prepared, limit) in enumerate(requests):
        result = run_case(
            model,
            engines,
            i,
            prepared,
            synthetic=synthetic,
            max_tokens=limit,
            retokenize=preset == "bpe",
        )
        results.append(result)
        line = (
            f"case {i}: {result.tokens} tokens | vanilla {result.vanilla_calls} calls "
            f"{_rate(result.tokens, result.vanilla_s)} tok/s "
            f"(single-row {_rate(result.tokens, result.single_row_s)} tok/s) | spec "
            f"{result.spec_calls} calls ({result.calls_per_token:.3f}/token) "
            f"{_rate(result.tokens, result.spec_s)} tok/s | "
            f"identical: {str(result.identical).lower()}"
        )
        print(json.dumps({"case": asdict(result)}) if as_json else line, file=out, flush=True)
    summary = summarize(results)
    summary.update({"model": model.name, "synthetic": preset if synthetic else None})
    if as_json:
        print(json.dumps(summary), file=out)
    else:
        print(
            f"total: {summary['output_tokens']} tokens; vanilla {summary['vanilla_tok_s']} tok/s "
            f"(single-row {summary['single_row_tok_s']}), spec {summary['spec_tok_s']} tok/s; "
            f"{summary['calls_per_token']:.3f} decode calls/token; "
            f"speed-up {summary['speedup']}x; identical: {str(summary['identical']).lower()}",
            file=out,
        )
        if preset == "bpe":
            print(
                f"draft edits re-tokenized: {summary['misaligned_windows']} edited windows whose "
                "tokens disagree with the answer's at their edges",
                file=out,
            )
    engines.close()
    model.close()
    return 0 if summary["identical"] else 1


def _rate(tokens: int, seconds: float) -> str:
    return f"{tokens / seconds:.1f}" if seconds else "-"
