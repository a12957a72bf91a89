"""Architecture boundaries: the engine never imports textual; litellm and llama_cpp load lazily."""

from __future__ import annotations

import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

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


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--config", "pyproject.toml"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(root)},
    )


def test_the_layer_contracts_hold_and_fail_on_a_forbidden_import(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parent.parent
    shutil.copytree(repo / "cursorish", tmp_path / "cursorish")
    shutil.copy(repo / "pyproject.toml", tmp_path / "pyproject.toml")
    kept = _lint_imports(tmp_path)
    assert kept.returncode == 0, kept.stdout[-2000:]

    # The engine reaching up into a front end must break a contract.
    (tmp_path / "cursorish" / "core" / "_forbidden.py").write_text(
        "from cursorish import run_cli\n", encoding="utf-8"
    )
    # So must the app importing the headless front end, and one front end importing another.
    (tmp_path / "cursorish" / "tui" / "_forbidden.py").write_text(
        "import cursorish.cli\n", encoding="utf-8"
    )
    with (tmp_path / "cursorish" / "agents_cli.py").open("a", encoding="utf-8") as f:
        f.write("\nimport cursorish.run_cli\n")
    # The review CLI opening the app itself (the dispatcher hands it an opener instead).
    with (tmp_path / "cursorish" / "review_cli.py").open("a", encoding="utf-8") as f:
        f.write("\nimport cursorish.tui.review_app\n")
    broken = _lint_imports(tmp_path)
    assert broken.returncode != 0
    assert "cursorish.core._forbidden -> cursorish.run_cli" in broken.stdout
    assert "cursorish.tui._forbidden -> cursorish.cli" in broken.stdout
    assert "cursorish.agents_cli -> cursorish.run_cli" in broken.stdout
    assert "cursorish.review_cli -> cursorish.tui.review_app" in broken.stdout
