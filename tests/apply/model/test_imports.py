"""llama_cpp and litellm cost about a second each to import: only a model apply may pay it."""

from __future__ import annotations

from tests.conftest import imported_after


def test_importing_the_apply_model_modules_loads_neither_library() -> None:
    modules = [
        "cursorish.apply.router",
        "cursorish.apply.model.backend",
        "cursorish.apply.model.remote",
        "cursorish.bench.spec",
        "cursorish.bench.synthetic_models",
    ]
    assert imported_after(modules, ("llama_cpp", "litellm")) == []
