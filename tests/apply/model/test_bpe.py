"""Speculative edits on the synthetic model with a byte-level BPE vocabulary trained on code.

With BPE the same text splits differently depending on its neighbours, so at the edges of an
edit the original's tokens and the answer's tokens disagree; these tests check that the
drafter still finds its place and that decoding stays lossless on llama.cpp.
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import textwrap
from difflib import SequenceMatcher
from pathlib import Path

import gguf
import pytest

from cursorish.apply.model.backend import LocalApplyModel
from cursorish.apply.model.speculative import Drafter, generate
from cursorish.bench.spec import cmd_bench_spec, perturb_retokenized
from cursorish.bench.synthetic_bpe import SPECIAL_TOKENS, corpus_files, train_bpe
from tests.apply.model.test_speculative import ScriptEngine

# Real code the vocabulary was not trained on (cursorish's own files are the corpus).
FOREIGN_CODE = inspect.getsource(textwrap)


def edit_text(text: str, seed: int) -> tuple[str, int]:
    """1-4 edits an apply model makes: renames inside identifiers, new and dropped lines,
    changed literals. Returns the new text and the number of edits."""
    rng = random.Random(seed)
    lines = text.split("\n")
    count = rng.randint(1, 4)
    for _ in range(count):
        at = rng.randrange(len(lines))
        kind = rng.choice(("rename", "insert", "delete", "literal"))
        line = lines[at]
        if kind == "rename" and line.strip():
            col = rng.randrange(len(line))
            lines[at] = line[:col] + rng.choice(("_new", "s", "Count", "2")) + line[col:]
        elif kind == "insert":
            indent = line[: len(line) - len(line.lstrip())]
            lines.insert(at, indent + rng.choice(("total += 1", "return None", "# checked")))
        elif kind == "delete":
            del lines[at]
        else:
            lines[at] = line.replace("0", "10", 1).replace("'", '"', 1)
    return "\n".join(lines), count


def run_script(target: list[int], draft: list[int]) -> tuple[list[int], int]:
    engine = ScriptEngine(target)
    result = generate(
        engine, [1, 2, 3], max_tokens=len(target), stop_tokens=frozenset(), drafter=Drafter(draft)
    )
    return result.tokens, result.stats.decode_calls


def test_vocabulary_is_trained_bpe_with_specials_first(tmp_path: Path) -> None:
    # A snapshot of the corpus: the source tree may change while the tests run.
    files = []
    for i, source in enumerate(corpus_files()):
        files.append(tmp_path / f"{i}.py")
        files[-1].write_bytes(source.read_bytes())
    vocab = train_bpe(files, 1024)
    assert vocab.tokens[: len(SPECIAL_TOKENS)] == list(SPECIAL_TOKENS)
    assert len(vocab.tokens) % 64 == 0 and len(vocab.merges) > 500
    assert "Ġreturn" in vocab.tokens  # a learned merge across a space and a keyword
    assert train_bpe(files, 1024) == vocab  # deterministic for a given corpus


def test_gguf_declares_a_gpt2_tokenizer(bpe_model_path: Path) -> None:
    reader = gguf.GGUFReader(str(bpe_model_path))
    field = reader.fields["tokenizer.ggml.model"]
    assert bytes(field.parts[field.data[0]]).decode() == "gpt2"
    pre = reader.fields["tokenizer.ggml.pre"]
    assert bytes(pre.parts[pre.data[0]]).decode() == "gpt-2"
    assert len(reader.fields["tokenizer.ggml.merges"].data) > 1000


def test_tokenizer_round_trips_and_merges(bpe_model: LocalApplyModel) -> None:
    text = "def f(x):\n\treturn x  # héllo → 日本\r\n" + FOREIGN_CODE[:2000]
    tokens = bpe_model.model.tokenize(text)
    assert b"".join(bpe_model.model.token_bytes(t) for t in tokens).decode("utf-8") == text
    assert len(tokens) < len(text) / 2.5  # real merges: code compresses like in real models
    # Control tokens are recognised in special segments and never in file text.
    assert bpe_model.model.tokenize("<|im_end|>", special=True) == [2]
    assert 2 not in bpe_model.model.tokenize("<|im_end|>")
    assert 2 in bpe_model.stop_tokens


def test_edits_make_the_tokens_disagree_beyond_the_edited_text(bpe_model: LocalApplyModel) -> None:
    """The premise: in BPE an edit changes tokens next to it, not only its own bytes."""
    tokenize, piece = bpe_model.model.tokenize, bpe_model.model.token_bytes
    original = tokenize(FOREIGN_CODE)
    wider = 0
    for seed in range(12):
        edited = tokenize(edit_text(FOREIGN_CODE, seed)[0])
        matcher = SequenceMatcher(None, original, edited, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            old = b"".join(piece(t) for t in original[i1:i2])
            new = b"".join(piece(t) for t in edited[j1:j2])
            # Tokens changed over text that is the same on both sides: the split moved.
            if old and new and (old[0] == new[0] or old[-1] == new[-1]):
                wider += 1
    assert wider >= 6


@pytest.mark.parametrize("seed", range(12))
def test_drafter_realigns_on_bpe_tokens_of_real_edits(
    bpe_model: LocalApplyModel, seed: int
) -> None:
    tokenize = bpe_model.model.tokenize
    edited, edits = edit_text(FOREIGN_CODE, seed)
    draft, target = tokenize(FOREIGN_CODE), tokenize(edited)
    tokens, calls = run_script(target, draft)
    assert tokens == target
    matcher = SequenceMatcher(None, draft, target, autojunk=False)
    changed = sum(j2 - j1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal")
    _, copy_calls = run_script(draft, draft)  # drafts are capped at k_max tokens a call
    # Beyond a plain copy: a call per new token at most, and per edit a few to find the place
    # again and let the draft length grow back (it restarts at 8 and doubles up to 64).
    assert calls <= copy_calls + changed + 8 * edits, (calls, copy_calls, changed, edits)
    assert calls < len(target) / 20


@pytest.mark.parametrize("seed", range(4))
def test_llama_lossless_with_retokenized_drafts(bpe_model: LocalApplyModel, seed: int) -> None:
    prepared = bpe_model.prepare(FOREIGN_CODE[:3000], "def shorten(text, width):\n    ...\n")
    vanilla = bpe_model.decode(prepared, speculative=False, max_tokens=250)
    assert len(vanilla.tokens) == 250
    draft, _ = perturb_retokenized(
        vanilla.tokens, seed, bpe_model.model.token_bytes, bpe_model.model.tokenize
    )
    assert draft != vanilla.tokens
    spec = bpe_model.decode(prepared, max_tokens=250, draft_source=draft)
    assert spec.tokens == vanilla.tokens and spec.text == vanilla.text
    assert spec.stats.decode_calls < vanilla.stats.decode_calls / 3


def test_llama_draft_from_the_original_is_lossless(bpe_model: LocalApplyModel) -> None:
    # The real use: the draft is the original file; the random model does not copy it.
    prepared = bpe_model.prepare(FOREIGN_CODE[:1500], FOREIGN_CODE[:300])
    vanilla = bpe_model.decode(prepared, speculative=False, max_tokens=150)
    spec = bpe_model.decode(prepared, speculative=True, max_tokens=150)
    assert spec.tokens == vanilla.tokens and spec.stats.drafted > 0


def test_retokenized_perturbation_disagrees_at_edges(bpe_model: LocalApplyModel) -> None:
    prepared = bpe_model.prepare(FOREIGN_CODE[:2000], "x")
    tokens = bpe_model.decode(prepared, speculative=False, max_tokens=200).tokens
    total = 0
    for seed in range(10):
        draft, misaligned = perturb_retokenized(
            tokens, seed, bpe_model.model.token_bytes, bpe_model.model.tokenize
        )
        kept = sum(b.size for b in SequenceMatcher(None, tokens, draft).get_matching_blocks())
        assert kept >= 0.7 * len(tokens)  # edits, not a rewrite
        total += misaligned
    assert total >= 10


def test_bench_spec_on_the_bpe_model(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    args = argparse.Namespace(model=None, json=True, max_tokens=None, synthetic="bpe", cases=2)
    code = cmd_bench_spec(args)
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and summary["identical"] is True and summary["synthetic"] == "bpe"
    assert summary["output_tokens"] == 600
    assert float(summary["calls_per_token"]) <= 0.25
    assert int(summary["misaligned_windows"]) >= 1
