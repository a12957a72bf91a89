"""A byte-level BPE vocabulary trained on source code, for the synthetic `bpe` test model.

Real apply models (Qwen2.5-Coder, Llama 3) use GPT-2 style byte-level BPE: a token is a run of
bytes learned from data, so merges cross character classes the way code does (`Ġreturn`,
`):`, runs of indentation), and the same text can be split differently depending on what
surrounds it. That last property is what speculative edits must survive: at the edges of an
edit the original's tokens and the answer's tokens disagree, and the drafter has to find its
place again. The byte-level SentencePiece vocabulary of the other presets does not show it.

The vocabulary is trained with the `tokenizers` library on cursorish's own source files (read
at build time, so nothing is downloaded) and written into the GGUF as a `gpt2` tokenizer with
the `gpt-2` pre-tokenizer, which is the split rule the trainer used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

# Control tokens of the ChatML prompt formats, one token each (ids 0, 1, 2).
SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
ENDOFTEXT_ID = 0
IM_END_ID = 2
PRE_TOKENIZER = "gpt-2"  # llama.cpp's name for the GPT-2 split regex (ByteLevel use_regex)

TOKEN_NORMAL = 1
TOKEN_CONTROL = 3
TOKEN_UNUSED = 5


@dataclass(frozen=True)
class BpeVocab:
    """Tokens (GPT-2 byte-to-unicode strings, by id), their types, and the merge rules."""

    tokens: list[str]
    types: list[int]
    merges: list[str]  # "left right", in priority order


def corpus_files(root: Path | None = None) -> list[Path]:
    """The training corpus: every .py file of the cursorish package, in a stable order."""
    base = root if root is not None else Path(__file__).resolve().parents[1]
    return sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)


def corpus_digest(files: list[Path]) -> str:
    """A short hash of the corpus, so a cached model is rebuilt when the sources change."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:12]


def train_bpe(files: list[Path], vocab_size: int) -> BpeVocab:
    """Train a byte-level BPE on `files`; padded to a multiple of 64 entries like real models.

    (llama.cpp's repacked CPU kernels want an output matrix whose row count is a multiple
    of 8; real vocabularies are padded for the same kind of reason.)
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train([str(f) for f in files], trainer)
    data = json.loads(tokenizer.to_str())
    by_id = {index: token for token, index in data["model"]["vocab"].items()}
    tokens = [by_id[i] for i in range(len(by_id))]
    types = [TOKEN_CONTROL if t in SPECIAL_TOKENS else TOKEN_NORMAL for t in tokens]
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    if tokens[: len(SPECIAL_TOKENS)] != list(SPECIAL_TOKENS):
        raise RuntimeError("the BPE trainer did not put the special tokens first")
    while len(tokens) % 64:
        tokens.append(f"<|unused{len(tokens)}|>")
        types.append(TOKEN_UNUSED)
    return BpeVocab(tokens, types, merges)
