"""Architecture boundaries: the engine never imports textual; litellm and llama_cpp load lazily."""

from __future__ import annotations

import pkgutil

import cursorish
from tests.conftest import imported_after

HEAVY = ("textual", "litellm", "llama_cpp")


def engine_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(cursorish.__path__, "cursorish."):
        if info.name.startswith("cursorish.tui") or info.name == "cursorish.__main__":
            continue
        names.append(info.name)
    return names


def test_every_module_outside_tui_imports_without_textual_litellm_or_llama_cpp() -> None:
    modules = engine_modules()
    assert "cursorish.core.agent" in modules and "cursorish.apply.router" in modules
    assert imported_after(modules, HEAVY) == []
