"""`cursorish bench spec`: speculative edits against plain greedy decoding, on the same model.

Each case is an apply prompt (a generated Python file and a lazy sketch of it). Per case the
model decodes the answer three ways, interleaved so that machine load hits all alike:

- vanilla: plain greedy, one token per decode, on the padded arithmetic the speculative
  verifier also uses (see `LlamaEngine.decode_argmax`) — the reference for `identical`;
- single-row: plain greedy with true one-row decodes (llama.cpp's usual generation loop),
  timed too, so the speed-up is reported against the FASTER of the two plain loops;
- speculative: drafts verified in one batched decode each.

Draft source: with a real model, the original file (as in real use). A random-weight model
writes nonsense that never copies the original, so there the draft source is the vanilla
output with 1-4 edit-like regions changed (inserted, deleted and replaced spans, about 5-15%
of the tokens, seeded) — the situation of an apply where most of the file is unchanged. The
model itself is not made copy-friendly: both decoders run the same weights.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import asdict, dataclass

from cursorish.apply.model.backend import LocalApplyModel, PreparedApply
from cursorish.apply.model.speculative import DecodeResult

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


def bench_cases(count: int) -> list[tuple[str, str]]:
    """(original, sketch) pairs: generated Python modules of various sizes with lazy sketches."""
    from cursorish.apply.bench import generate_file, make_sketch

    cases = []
    for i in range(count):
        original = generate_file(40 + 12 * (i % 4), seed=100 + i)
        cases.append((original, make_sketch(original, edits=1 + i % 3, seed=200 + i)))
    return cases


def run_case(
    model: LocalApplyModel,
    case: int,
    prepared: PreparedApply,
    *,
    synthetic: bool,
    max_tokens: int,
) -> CaseResult:
    vanilla = model.decode(prepared, speculative=False, max_tokens=max_tokens)
    single = _single_row(model, prepared, max_tokens)
    draft = None
    if synthetic:
        vocab = sorted(set(prepared.original))
        draft = perturb(vanilla.tokens, seed=1000 + case, vocab=vocab)
    spec = model.decode(prepared, speculative=True, max_tokens=max_tokens, draft_source=draft)
    return CaseResult(
        case=case,
        tokens=len(vanilla.tokens),
        identical=spec.tokens == vanilla.tokens,
        identical_single_row=single.tokens == vanilla.tokens,
        vanilla_calls=vanilla.stats.decode_calls,
        spec_calls=spec.stats.decode_calls,
        vanilla_s=vanilla.stats.decode_s,
        single_row_s=single.stats.decode_s,
        spec_s=spec.stats.decode_s,
        accepted=spec.stats.accepted,
        drafted=spec.stats.drafted,
    )


def _single_row(model: LocalApplyModel, prepared: PreparedApply, max_tokens: int) -> DecodeResult:
    """Plain greedy with genuine one-row decodes (llama.cpp's own generation arithmetic)."""
    with model._lock:
        engine = model._engine_for(len(prepared.prompt) + max_tokens + 1)
        engine.min_rows = 1
        try:
            from cursorish.apply.model.speculative import generate

            return generate(
                engine,
                prepared.prompt,
                max_tokens=max_tokens,
                stop_tokens=model.stop_tokens,
                stop_strings=model.profile.all_stops(),
            )
        finally:
            engine.min_rows = 2


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
    }


def cmd_bench_spec(args: argparse.Namespace) -> int:
    """Print per-case and total figures; with --json the last line is the summary object."""
    from cursorish.apply.model.testmodels import synthetic_model_path

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
    for i, (original, sketch) in enumerate(bench_cases(count)):
        prepared = model.prepare(original, sketch)
        limit = max_tokens_arg or (DEFAULT_SYNTHETIC_TOKENS if synthetic else prepared.max_tokens)
        result = run_case(model, i, prepared, synthetic=synthetic, max_tokens=limit)
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
    model.close()
    return 0 if summary["identical"] else 1


def _rate(tokens: int, seconds: float) -> str:
    return f"{tokens / seconds:.1f}" if seconds else "-"
