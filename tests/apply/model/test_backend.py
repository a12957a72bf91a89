"""The local apply model: loading errors, context sizing, output validation, sharing."""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from pathlib import Path

import pytest

from cursorish.apply.model.backend import LocalApplyModel, _FairLock
from cursorish.apply.model.lowlevel import gpu_offload_supported
from cursorish.apply.model.validate import REFUSAL_PREFIX
from cursorish.apply.result import Refused
from cursorish.errors import CursorishError, ExitCode

ORIGINAL = "def add(a, b):\n    return a + b\n\n\nclass Box:\n    size = 1\n"
SKETCH = "# ... existing code ...\nclass Box:\n    size = 2\n"


def test_missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(CursorishError, match="apply model not found") as info:
        LocalApplyModel(tmp_path / "nope.gguf")
    assert info.value.exit_code == ExitCode.CONFIG


def test_not_a_gguf_file(tmp_path: Path) -> None:
    path = tmp_path / "model.gguf"
    path.write_text("hello, I am not a model\n")
    with pytest.raises(CursorishError, match="not a GGUF file"):
        LocalApplyModel(path)


def test_corrupt_gguf_file(tmp_path: Path, tiny_model_path: Path) -> None:
    path = tmp_path / "truncated.gguf"
    path.write_bytes(tiny_model_path.read_bytes()[:5000])  # header intact, tensors missing
    with pytest.raises(CursorishError, match="corrupt or unsupported GGUF") as info:
        LocalApplyModel(path)
    assert info.value.exit_code == ExitCode.CONFIG


def test_gpu_layers_follow_the_build(tiny_model: LocalApplyModel) -> None:
    assert tiny_model.model.n_gpu_layers == (-1 if gpu_offload_supported() else 0)


def test_file_larger_than_the_context_is_refused(tiny_model: LocalApplyModel) -> None:
    big = "".join(f"value_{i} = compute({i})\n" for i in range(600))
    outcome = tiny_model.apply(big, SKETCH, path="big.py")
    assert isinstance(outcome, Refused)
    assert "too large for the apply model's context" in outcome.reason
    assert str(tiny_model.max_ctx) in outcome.reason


def test_context_is_sized_to_the_request(tiny_model: LocalApplyModel) -> None:
    prepared = tiny_model.prepare(ORIGINAL, SKETCH)
    assert prepared.max_tokens >= len(prepared.original) + len(prepared.sketch)
    tiny_model.decode(prepared, speculative=False)
    engine = tiny_model._engine
    assert engine is not None
    assert prepared.n_ctx_needed <= engine.n_ctx <= tiny_model.max_ctx


def test_unfinished_answer_is_refused(tiny_model: LocalApplyModel) -> None:
    # The random model never writes the closing tag: its answer would be cut off.
    outcome = tiny_model.apply(ORIGINAL, SKETCH, path="box.py")
    assert isinstance(outcome, Refused)
    assert "did not finish" in outcome.reason


def _model_that_stops(tiny_model_path: Path, tiny_model: LocalApplyModel) -> LocalApplyModel:
    """The tiny model with a closing tag it actually writes: a piece of its own greedy output."""
    prepared = tiny_model.prepare(ORIGINAL, SKETCH)
    text = tiny_model.decode(prepared, speculative=False, max_tokens=60).text
    match = re.search(r"[!-~]{3}", text[10:])
    assert match, f"no printable run in {text!r}"
    stop = match.group(0)
    profile = dataclasses.replace(tiny_model.profile, output_close=stop)
    return LocalApplyModel(tiny_model_path, profile=profile)


def test_a_finished_answer_goes_through_the_merge_verifier(
    tiny_model_path: Path, tiny_model: LocalApplyModel
) -> None:
    model = _model_that_stops(tiny_model_path, tiny_model)
    streamed: list[str] = []
    for path in ("notes.txt", "box.py"):
        streamed.clear()
        outcome = model.apply(ORIGINAL, SKETCH, path=path, on_token=streamed.append)
        # The answer ended at its closing tag (it was not cut off), and the random model's
        # nonsense lacks the sketch's lines: the verifier refuses it and says so.
        assert isinstance(outcome, Refused) and outcome.engine == "model", outcome
        assert outcome.reason.startswith(REFUSAL_PREFIX), outcome.reason
        assert "sketch lines" in outcome.reason
        text = "".join(streamed)
        assert text.strip() and model.profile.output_close not in text
    model.close()


def test_concurrent_applies_match_sequential_ones(tiny_model: LocalApplyModel) -> None:
    requests = [(ORIGINAL * (1 + i % 3), f"x = {i}\n") for i in range(6)]
    prepared = [tiny_model.prepare(o, s) for o, s in requests]
    sequential = [tiny_model.decode(p, max_tokens=80).tokens for p in prepared]
    results: dict[int, list[int]] = {}
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            results[i] = tiny_model.decode(prepared[i], max_tokens=80).tokens
        except BaseException as error:  # surfaced below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(prepared))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    assert [results[i] for i in range(len(prepared))] == sequential


def test_queue_serves_agents_in_arrival_order() -> None:
    lock = _FairLock()
    order: list[int] = []

    def agent(i: int) -> None:
        with lock:
            order.append(i)

    threads = []
    with lock:
        for i in range(6):
            thread = threading.Thread(target=agent, args=(i,))
            thread.start()
            threads.append(thread)
            deadline = time.monotonic() + 10
            while lock._next_ticket < i + 2 and time.monotonic() < deadline:
                time.sleep(0.001)  # until agent i holds its ticket
    for thread in threads:
        thread.join(timeout=10)
    assert order == list(range(6))
