"""llama_cpp and litellm cost about a second each to import: only a model apply may pay it."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_apply_model_modules_loads_neither_library() -> None:
    code = (
        "import sys\n"
        "import cursorish.apply.router, cursorish.apply.model.backend\n"
        "import cursorish.apply.model.remote, cursorish.apply.model.bench\n"
        "import cursorish.apply.model.testmodels\n"
        "print(sorted(m for m in ('llama_cpp', 'litellm') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
