"""Synthetic llama-architecture GGUF models (random weights, own tokenizer) for tests and bench.

No weights can be downloaded here, so tests and the speculative-edits benchmark run on models
written by this module: seeded random weights (deterministic), a SentencePiece-style ("llama")
vocabulary of byte tokens `<0xNN>` plus printable characters and code fragments. They write
nonsense, but greedy decoding is deterministic, which is all "speculative == vanilla" needs.

Presets: `tiny` (a few hundred KB, written into a test's tmp dir in well under a second),
`bpe` (the tiny shape with a byte-level BPE vocabulary of 4096 tokens trained on cursorish's own
source, as real apply models have; see `synthetic_bpe.py`) and `0.5b` (realistic shape: >= 0.3 B
parameters, 24 layers, q8_0), cached under `$XDG_CACHE_HOME/cursorish/models/` and reused.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FORMAT_VERSION = 4  # bump when the written file changes, so stale cached models are not reused

BOS_ID = 1
EOS_ID = 2
SPACE_PIECE = "\u2581"  # SentencePiece's visible space

# Control tokens the apply prompt formats use; one token each, like in the real models.
SPECIAL_TOKENS = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")

# Fragments common in source code; every prefix of each becomes a token too, because the
# SentencePiece merge in llama.cpp only joins adjacent pieces whose concatenation is in the vocab.
_CODE_WORDS = [
    "def",
    "return",
    "import",
    "from",
    "class",
    "self",
    "None",
    "True",
    "False",
    "print",
    "async",
    "await",
    "yield",
    "lambda",
    "raise",
    "except",
    "finally",
    "while",
    "for",
    "if",
    "elif",
    "else",
    "with",
    "pass",
    "break",
    "continue",
    "global",
    "assert",
    "function",
    "const",
    "let",
    "var",
    "new",
    "this",
    "null",
    "undefined",
    "typeof",
    "export",
    "default",
    "require",
    "module",
    "package",
    "func",
    "struct",
    "interface",
    "type",
    "string",
    "int",
    "float",
    "bool",
    "error",
    "range",
    "make",
    "append",
    "public",
    "private",
    "static",
    "void",
    "main",
    "args",
    "value",
    "values",
    "key",
    "keys",
    "index",
    "items",
    "result",
    "name",
    "path",
    "file",
    "data",
    "list",
    "dict",
    "tuple",
    "len",
    "str",
    "set",
    "get",
    "put",
    "post",
    "test",
    "assert_equal",
    "context",
    "options",
    "config",
    "request",
    "response",
    "error",
    "err",
    "nil",
    "fmt",
    "Println",
    "Errorf",
]
_OPERATORS = (
    "==",
    "!=",
    "<=",
    ">=",
    "->",
    "=>",
    "+=",
    "-=",
    "::",
    ":=",
    "&&",
    "||",
    "**",
    "//",
    "()",
    "[]",
    "{}",
    "):",
    "),",
    '");',
    "');",
    "();",
    "self.",
    "this.",
)


@dataclass(frozen=True)
class SynthSpec:
    """The shape of a synthetic model."""

    name: str
    n_embd: int
    n_layer: int
    n_head: int
    n_head_kv: int
    n_ff: int
    n_ctx: int
    weight_type: str  # "f32" | "f16" | "q8_0"
    rich_vocab: bool  # code fragments and character pairs (a few thousand tokens) vs ~400
    seed: int = 0
    tokenizer: str = "spm"  # "spm": SentencePiece-style with byte tokens; "bpe": GPT-2 style


PRESETS: dict[str, SynthSpec] = {
    "tiny": SynthSpec("tiny", 64, 2, 4, 2, 128, 4096, "f32", rich_vocab=False),
    "bpe": SynthSpec("bpe", 64, 2, 4, 2, 128, 4096, "f32", rich_vocab=False, tokenizer="bpe"),
    "0.5b": SynthSpec("0.5b", 1024, 24, 16, 8, 3072, 8192, "q8_0", rich_vocab=True),
}
BPE_VOCAB_SIZE = 4096  # trained merges + specials (a multiple of 64, so no padding is added)


def build_vocab(rich: bool) -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores and token types of the synthetic SentencePiece-style vocabulary."""
    tokens: list[str] = ["<unk>", "<s>", "</s>"]
    types: list[int] = [2, 3, 3]  # UNKNOWN, CONTROL, CONTROL
    for byte in range(256):
        tokens.append(f"<0x{byte:02X}>")
        types.append(6)  # BYTE
    for special in SPECIAL_TOKENS:
        tokens.append(special)
        types.append(3)
    n_fixed = len(tokens)
    pieces: list[str] = [SPACE_PIECE]
    pieces += [chr(c) for c in range(33, 127)]
    pieces += [SPACE_PIECE * n for n in (2, 3, 4, 6, 8, 12, 16)]
    words = list(_CODE_WORDS) if rich else ["def", "return", "self", "import", "class"]
    for word in words:
        for end in range(2, len(word) + 1):
            pieces.append(word[:end])
            pieces.append(SPACE_PIECE + word[:end])
    pieces += list(_OPERATORS) if rich else ["==", "()", "):"]
    if rich:
        letters = "abcdefghijklmnopqrstuvwxyz_"
        pieces += [a + b for a in letters for b in letters]
        pieces += [SPACE_PIECE + a for a in letters + letters.upper()]
        pieces += ["\u00e9", "\u00fc", "\u2192"]  # a few non-ASCII characters as whole pieces
    seen: set[str] = set(tokens)
    unique = []
    for piece in pieces:
        if piece not in seen:
            seen.add(piece)
            unique.append(piece)
    tokens += unique
    types += [1] * len(unique)  # NORMAL
    # Longer pieces score higher, so merges prefer them (SentencePiece merges by score).
    scores = [0.0] * n_fixed + [float(len(p)) - i * 1e-6 for i, p in enumerate(unique)]
    # Pad the vocabulary to a multiple of 64 like real models do: llama.cpp's repacked CPU
    # kernels for q8_0 crash on an output matrix whose row count is not a multiple of 8.
    while len(tokens) % 64:
        tokens.append(f"<unused{len(tokens)}>")
        types.append(5)  # UNUSED
        scores.append(0.0)
    return tokens, scores, types


def _never_emitted(types: list[int]) -> list[int]:
    return [i for i, kind in enumerate(types) if kind in (2, 3, 5)]


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cursorish" / "models"


def synthetic_model_path(preset: str, cache_dir: Path | None = None) -> Path:
    """The synthetic model for `preset`, written on first use and reused afterwards."""
    spec = PRESETS.get(preset)
    if spec is None:
        raise ValueError(f"unknown synthetic preset {preset!r}; choose one of {', '.join(PRESETS)}")
    directory = cache_dir if cache_dir is not None else default_cache_dir()
    tag = ""
    if spec.tokenizer == "bpe":
        from cursorish.bench.synthetic_bpe import corpus_digest, corpus_files

        tag = "-c" + corpus_digest(corpus_files())  # the vocabulary follows the source tree
    path = directory / f"cursorish-synth-{spec.name}-v{FORMAT_VERSION}-s{spec.seed}{tag}.gguf"
    if not path.exists():
        write_synthetic_model(path, spec)
        # Older format versions of the same preset are dead weight (the 0.5b one is ~325 MB).
        for stale in directory.glob(f"cursorish-synth-{spec.name}-v*-s{spec.seed}*.gguf"):
            if stale != path:
                stale.unlink(missing_ok=True)
    return path


def parameter_count(spec: SynthSpec) -> int:
    n_vocab = BPE_VOCAB_SIZE if spec.tokenizer == "bpe" else len(build_vocab(spec.rich_vocab)[0])
    return sum(int(np.prod(shape)) for _, shape, _ in _tensor_plan(spec, n_vocab))


def _tensor_plan(spec: SynthSpec, n_vocab: int) -> Iterator[tuple[str, tuple[int, ...], str]]:
    """(name, numpy shape (out, in), role) of every tensor, in file order."""
    d, ff = spec.n_embd, spec.n_ff
    d_kv = d // spec.n_head * spec.n_head_kv
    yield "token_embd.weight", (n_vocab, d), "embed"
    for i in range(spec.n_layer):
        yield f"blk.{i}.attn_norm.weight", (d,), "norm"
        yield f"blk.{i}.attn_q.weight", (d, d), "qk"
        yield f"blk.{i}.attn_k.weight", (d_kv, d), "qk"
        yield f"blk.{i}.attn_v.weight", (d_kv, d), "in"
        yield f"blk.{i}.attn_output.weight", (d, d), "out"
        yield f"blk.{i}.ffn_norm.weight", (d,), "norm"
        yield f"blk.{i}.ffn_gate.weight", (ff, d), "in"
        yield f"blk.{i}.ffn_up.weight", (ff, d), "in"
        yield f"blk.{i}.ffn_down.weight", (d, ff), "out"
    yield "output_norm.weight", (d,), "norm"
    yield "output.weight", (n_vocab, d), "lm_head"


def _init(
    rng: np.random.Generator, shape: tuple[int, ...], role: str, silent: list[int]
) -> np.ndarray:
    """Random weights scaled so the residual stream neither explodes nor collapses.

    Attention logits get a larger scale so attention is peaked and position-dependent: with
    near-uniform attention the next token depends almost only on the current one and greedy
    output falls into short cycles.
    """
    if role == "norm":
        return np.ones(shape, dtype=np.float32)
    fan_in = shape[-1]
    scale = {
        "embed": 1.0,
        "qk": 2.0 / np.sqrt(fan_in),
        "in": 1.0 / np.sqrt(fan_in),
        "out": 1.0 / np.sqrt(fan_in),
        "lm_head": 1.0 / np.sqrt(fan_in),
    }[role]
    data = rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)
    if role == "lm_head":
        # Control tokens (EOS, <|im_end|>, ...) and padding are never the argmax: a random model
        # would otherwise stop after a handful of tokens in some prompts. Both decoders see the
        # same weights, so this favours neither.
        data[silent] = 0.0
    return data


def _tensor_type(spec: SynthSpec, role: str, shape: tuple[int, ...]) -> str:
    """Storage type of one tensor: norms stay f32, as in every real GGUF."""
    if len(shape) == 1:
        return "f32"
    return spec.weight_type


def _encode_tensor(data: np.ndarray, weight_type: str) -> np.ndarray:
    if weight_type == "f32":
        return data.astype(np.float32)
    if weight_type == "f16":
        return data.astype(np.float16)
    # q8_0: blocks of 32 values, one f16 scale each; the same rounding as ggml's reference code
    rows, cols = data.shape
    blocks = data.reshape(-1, 32)
    d = np.abs(blocks).max(axis=1, keepdims=True) / 127.0
    inv = np.where(d == 0, 0.0, 1.0 / np.where(d == 0, 1.0, d))
    qs = np.trunc(blocks * inv + np.copysign(0.5, blocks)).astype(np.int8)
    out = np.concatenate([d.astype(np.float16).view(np.uint8), qs.view(np.uint8)], axis=1)
    return out.reshape(rows, cols // 32 * 34)


def write_synthetic_model(path: Path, spec: SynthSpec) -> Path:
    """Write `spec` as a GGUF file at `path` (atomically: a temp file renamed into place)."""
    import gguf

    merges: list[str] = []
    scores: list[float] = []
    if spec.tokenizer == "bpe":
        from cursorish.bench.synthetic_bpe import corpus_files, train_bpe

        vocab = train_bpe(corpus_files(), BPE_VOCAB_SIZE)
        tokens, types, merges = vocab.tokens, vocab.types, vocab.merges
    else:
        tokens, scores, types = build_vocab(spec.rich_vocab)
    n_vocab = len(tokens)
    silent = _never_emitted(types)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        writer = gguf.GGUFWriter(tmp_name, "llama")
        writer.add_name(f"cursorish synthetic {spec.name}")
        writer.add_description("random weights; for tests and benchmarks only")
        writer.add_context_length(spec.n_ctx)
        writer.add_embedding_length(spec.n_embd)
        writer.add_block_count(spec.n_layer)
        writer.add_feed_forward_length(spec.n_ff)
        writer.add_head_count(spec.n_head)
        writer.add_head_count_kv(spec.n_head_kv)
        writer.add_rope_dimension_count(spec.n_embd // spec.n_head)
        writer.add_layer_norm_rms_eps(1e-5)
        writer.add_vocab_size(n_vocab)
        file_type = {"f32": 0, "f16": 1, "q8_0": 7}[spec.weight_type]
        writer.add_file_type(file_type)
        if spec.tokenizer == "bpe":
            _add_bpe_tokenizer(writer, tokens, types, merges)
        else:
            writer.add_tokenizer_model("llama")
            writer.add_token_list(tokens)
            writer.add_token_scores(scores)
            writer.add_token_types(types)
            writer.add_bos_token_id(BOS_ID)
            writer.add_eos_token_id(EOS_ID)
            writer.add_uint32("tokenizer.ggml.unknown_token_id", 0)
            writer.add_add_bos_token(True)
            writer.add_add_eos_token(False)
            writer.add_add_space_prefix(False)
        plan = list(_tensor_plan(spec, n_vocab))
        for name, shape, role in plan:
            kind = _tensor_type(spec, role, shape)
            if kind == "q8_0":
                byte_shape = (shape[0], shape[1] // 32 * 34)
                nbytes = byte_shape[0] * byte_shape[1]
                qtype = gguf.GGMLQuantizationType.Q8_0
                writer.add_tensor_info(
                    name, byte_shape, np.dtype(np.uint8), nbytes, raw_dtype=qtype
                )
            else:
                dtype = np.dtype(np.float16 if kind == "f16" else np.float32)
                writer.add_tensor_info(name, shape, dtype, dtype.itemsize * int(np.prod(shape)))
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_ti_data_to_file()
        # Tensors are generated one at a time and streamed out: the 0.5b model never sits in RAM.
        rng = np.random.default_rng(spec.seed)
        for _name, shape, role in plan:
            data = _init(rng, shape, role, silent)
            writer.write_tensor_data(_encode_tensor(data, _tensor_type(spec, role, shape)))
        writer.close()
        os.chmod(tmp_name, 0o644)  # mkstemp makes it private; a model cache is not secret
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return path


def _add_bpe_tokenizer(writer: Any, tokens: list[str], types: list[int], merges: list[str]) -> None:
    """A GPT-2 style tokenizer as llama.cpp reads it (as converted Qwen2 models carry it)."""
    from cursorish.bench.synthetic_bpe import ENDOFTEXT_ID, IM_END_ID, PRE_TOKENIZER

    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(PRE_TOKENIZER)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(ENDOFTEXT_ID)
    writer.add_eos_token_id(IM_END_ID)
    writer.add_eot_token_id(IM_END_ID)
    writer.add_pad_token_id(ENDOFTEXT_ID)
    writer.add_add_bos_token(False)  # Qwen2 does not prepend one either
    writer.add_add_eos_token(False)
