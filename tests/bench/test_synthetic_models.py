"""The synthetic GGUF models: deterministic, loadable, with a working byte-level tokenizer."""

from __future__ import annotations

from pathlib import Path

from cursorish.apply.model.backend import LocalApplyModel
from cursorish.bench.synthetic_models import PRESETS, parameter_count, synthetic_model_path


def test_tiny_model_is_small_and_deterministic(tmp_path: Path, tiny_model_path: Path) -> None:
    again = synthetic_model_path("tiny", tmp_path)
    assert again.read_bytes() == tiny_model_path.read_bytes()
    assert again.stat().st_size < 1_000_000
    assert synthetic_model_path("tiny", tmp_path) == again  # reused, not rewritten


def test_realistic_preset_shape() -> None:
    spec = PRESETS["0.5b"]
    assert parameter_count(spec) >= 300_000_000
    assert spec.n_layer >= 16


def test_tokenizer_round_trips_code_and_unicode(tiny_model: LocalApplyModel) -> None:
    text = "def f(x):\n\treturn x  # héllo → 日本\r\n"
    tokens = tiny_model.model.tokenize(text)
    assert b"".join(tiny_model.model.token_bytes(t) for t in tokens).decode("utf-8") == text
    assert len(tokens) < len(text.encode("utf-8"))  # merges happen, not only byte tokens


def test_greedy_output_varies(tiny_model: LocalApplyModel) -> None:
    prepared = tiny_model.prepare("def add(a, b):\n    return a + b\n" * 3, "x")
    result = tiny_model.decode(prepared, speculative=False, max_tokens=200)
    assert len(set(result.tokens)) > 40  # not a constant or a short cycle
