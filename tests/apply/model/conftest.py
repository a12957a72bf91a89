"""Shared fixtures: the tiny and BPE synthetic GGUF models, each written and loaded once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cursorish.apply import router
from cursorish.apply.model.backend import LocalApplyModel
from cursorish.bench.synthetic_models import synthetic_model_path


@pytest.fixture(scope="session")
def tiny_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthetic_model_path("tiny", tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="session")
def tiny_model(tiny_model_path: Path) -> Iterator[LocalApplyModel]:
    model = LocalApplyModel(tiny_model_path, profile="fastapply")
    yield model
    model.close()


@pytest.fixture(scope="session")
def bpe_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthetic_model_path("bpe", tmp_path_factory.mktemp("bpe-models"))


@pytest.fixture(scope="session")
def bpe_model(bpe_model_path: Path) -> Iterator[LocalApplyModel]:
    model = LocalApplyModel(bpe_model_path, profile="fastapply")
    yield model
    model.close()


@pytest.fixture
def clean_router(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No apply model configured, neither by `configure` nor by the environment."""
    for name in (
        "CURSORISH_APPLY_MODEL",
        "CURSORISH_APPLY_API_BASE",
        "CURSORISH_APPLY_REMOTE_MODEL",
        "CURSORISH_APPLY_API_KEY",
        "CURSORISH_APPLY_REMOTE_FORMAT",
    ):
        monkeypatch.delenv(name, raising=False)
    router.reset()
    yield
    router.reset()
