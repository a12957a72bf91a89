"""Architecture boundaries: the engine never imports textual; litellm and llama_cpp load lazily."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import cursorish

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
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
