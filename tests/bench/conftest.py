"""The bench tests use the synthetic-model fixtures of tests/apply/model (shared, not copied)."""

from __future__ import annotations

from tests.apply.model.conftest import tiny_model, tiny_model_path

__all__ = ["tiny_model", "tiny_model_path"]
