"""Architecture boundaries: the engine never imports textual, a front end, a benchmark or the
replay; litellm and llama_cpp load lazily; import-linter fails on a forbidden import."""

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
# The engine and the packages below it (the layers contract in pyproject.toml).
ENGINE = (
    "core", "context", "mcp", "config", "apply", "planner", "gitops", "store",
)  # fmt: skip


def engine_modules() -> list[str]:
    """Every module but the app's, the TUI bench's (both drive Textual) and `__main__`."""
    names = []
    for info in pkgutil.walk_packages(cursorish.__path__, "cursorish."):
        if info.name.startswith(("cursorish.tui", "cursorish.bench.tui")):
            continue
        if info.name == "cursorish.__main__":
            continue
        names.append(info.name)
    return names


def front_ends() -> tuple[str, ...]:
    """The front ends, the benchmarks and the replay: what the engine must never load."""
    tops = [info.name for info in pkgutil.iter_modules(cursorish.__path__, "cursorish.")]
    return tuple(
        name
        for name in tops
        if name.endswith("_cli")
        or name in ("cursorish.cli", "cursorish.headless", "cursorish.tui")
        or name in ("cursorish.bench", "cursorish.replay")
    )


def test_every_module_outside_tui_imports_without_textual_litellm_or_llama_cpp() -> None:
    modules = engine_modules()
    assert "cursorish.core.agent" in modules and "cursorish.apply.router" in modules
    assert imported_after(modules, HEAVY) == []


def test_importing_the_engine_loads_no_front_end_benchmark_replay_or_textual() -> None:
    modules = [
        info.name
        for info in pkgutil.walk_packages(cursorish.__path__, "cursorish.")
        if info.name.split(".")[1] in ENGINE
    ]
    watched = ("textual", *front_ends())
    assert "cursorish.bench" in watched and "cursorish.replay" in watched
    assert "cursorish.apply_cli" in watched and "cursorish.core.orchestrator" in modules
    assert imported_after(modules, watched) == []


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


def test_benchmarks_and_replay_stay_out_of_the_engine_and_the_app(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parent.parent
    shutil.copytree(repo / "cursorish", tmp_path / "cursorish")
    shutil.copy(repo / "pyproject.toml", tmp_path / "pyproject.toml")
    forbidden = {
        # the engine and the packages below it never import a benchmark or the replay,
        ("core", "_bench.py"): "import cursorish.bench.apply\n",
        ("planner", "_replay.py"): "import cursorish.replay.scripted_server\n",
        # nor does the app,
        ("tui", "_bench.py"): "import cursorish.bench.tui\n",
        # and the replay sits below the benchmarks that use it.
        ("replay", "_bench.py"): "import cursorish.bench.stats\n",
    }
    for (package, name), text in forbidden.items():
        (tmp_path / "cursorish" / package / name).write_text(text, encoding="utf-8")
    broken = _lint_imports(tmp_path)
    assert broken.returncode != 0
    for line in (
        "cursorish.core._bench -> cursorish.bench.apply",
        "cursorish.planner._replay -> cursorish.replay.scripted_server",
        "cursorish.tui._bench -> cursorish.bench.tui",
        "cursorish.replay._bench -> cursorish.bench.stats",
    ):
        assert line in broken.stdout, broken.stdout[-3000:]
