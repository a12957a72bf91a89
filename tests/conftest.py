"""Shared fixtures: an isolated cursorish home and git config for every test, and `make_repo`.

Tests must not depend on (or touch) the developer's global git config or ~/.local/share.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from cursorish.replay.scripted_server import ScriptedServer

# Property tests replay the same examples on every run so CI never fails at random; set
# HYPOTHESIS_PROFILE=explore to search fresh examples (and add what it finds as @example).
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
}


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """CURSORISH_HOME in a tmp dir; git sees an empty global config and no system config."""
    base = tmp_path_factory.mktemp("env")
    home = base / "cursorish-home"
    gitconfig = base / "gitconfig"
    gitconfig.write_text("")
    monkeypatch.setenv("CURSORISH_HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key, value in GIT_IDENTITY.items():
        monkeypatch.setenv(key, value)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES"):
        monkeypatch.delenv(key, raising=False)
    # No user config or CURSORISH_* setting of the developer's may leak into a test.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "xdg"))
    for key in [k for k in os.environ if k.startswith("CURSORISH_") and k != "CURSORISH_HOME"]:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return home


@pytest.fixture
def one_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planner failures are retried once, not with the default backoff (fast error tests)."""
    monkeypatch.setenv("CURSORISH_PLANNER_RETRIES", "1")


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` for test setup; fails the test on a non-zero exit."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout


def create_repo(root: Path, files: dict[str, str], *, commit: bool = True) -> Path:
    """A git repo at `root` (branch main) holding `files`, committed once unless commit=False."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", "initial")
    return root


@pytest.fixture
def make_repo() -> Callable[..., Path]:
    """`make_repo(tmp_path, files, *, name="repo", commit=True) -> Path`.

    Creates the repo at `tmp_path / name` (so tmp_path stays free for other files) and
    returns its root.
    """

    def factory(
        base: Path, files: dict[str, str], *, name: str = "repo", commit: bool = True
    ) -> Path:
        return create_repo(base / name, files, commit=commit)

    return factory


def imported_after(modules: list[str], watched: tuple[str, ...]) -> list[str]:
    """Which of `watched` a fresh interpreter has in sys.modules after importing `modules`."""
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in {watched!r} if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def snapshot(root: Path) -> dict[str, object]:
    """Everything about a checkout that cursorish promises not to change."""
    files: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            files[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    index = root / ".git" / "index"
    return {
        "files": files,
        # --no-optional-locks: a plain `git status` would itself refresh (rewrite) the index.
        "status": git(
            root, "--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=all"
        ),
        "head": git(root, "rev-parse", "HEAD"),
        "head_ref": (root / ".git" / "HEAD").read_bytes(),
        "index": index.read_bytes(),
        "index_mtime": index.stat().st_mtime_ns,
    }


ServerFactory = Callable[..., ScriptedServer]


@pytest.fixture
def scripted_server() -> Iterator[ServerFactory]:
    """Factory: `scripted_server(script, latency_s=...)` starts a server, stopped at teardown."""
    servers: list[ScriptedServer] = []

    def make(script: Any, **kwargs: Any) -> ScriptedServer:
        server = ScriptedServer(script, **kwargs)
        server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()
