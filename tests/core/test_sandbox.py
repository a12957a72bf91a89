"""The OS sandbox (real bubblewrap): what a command inside can and cannot do, its limits, and
how the configuration turns it on, off or onto the network."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cursorish.cli import main
from cursorish.config import load_config, user_config_path
from cursorish.core.command_runner import run_in_worktree
from cursorish.core.sandbox import (
    OFF_WARNING,
    SandboxPolicy,
    SandboxUnavailable,
    check_available,
    default_cache_dir,
    policy_from_config,
    release,
    sandbox_argv,
    scrub_env,
)
from cursorish.core.trust import trust_repo
from cursorish.errors import ConfigError, ExitCode
from cursorish.gitops.repo import open_repo
from cursorish.gitops.worktrees import create_worktree
from cursorish.store.paths import worktrees_dir
from tests.conftest import git

POLICY = SandboxPolicy()


@pytest.fixture
def outside(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory outside /tmp holding the repo, the store and the user config: the sandbox
    has a private /tmp, so what lives under /tmp would be out of reach for that reason alone."""
    base = Path(tempfile.mkdtemp(prefix="cursorish-sandbox-test-", dir="/var/tmp"))
    monkeypatch.setenv("CURSORISH_HOME", str(base / "cursorish-home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "xdg"))
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def agent(outside: Path, make_repo: Callable[..., Path]) -> tuple[Path, Path]:
    """(the user's checkout, an agent worktree of it) with a dirty file in the checkout."""
    repo = make_repo(outside, {"app.py": "x = 1\n", "test_app.py": "def test_x():\n    pass\n"})
    git(repo, "config", "remote.origin.url", "https://user:hunter2@example.com/r.git")
    (repo / "app.py").write_text("x = 2  # the user's uncommitted work\n")
    common = repo / ".git"
    dest = worktrees_dir(common) / "a1"
    head = git(repo, "rev-parse", "HEAD").strip()
    create_worktree(open_repo(repo), agent_id="a1", base_commit=head, dest=dest)
    return repo, dest


def run(
    wt: Path, repo: Path | None, script: str, policy: SandboxPolicy = POLICY
) -> subprocess.CompletedProcess[str]:
    argv, env = sandbox_argv(
        ["bash", "-c", script],
        worktree=wt,
        repo_root=repo,
        policy=policy,
        cache_dir=default_cache_dir(wt),
    )
    try:
        return subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=120, check=False
        )
    finally:
        release(argv)


def test_git_works_in_the_worktree_and_files_there_are_writable(agent: tuple[Path, Path]) -> None:
    repo, wt = agent
    done = run(
        wt,
        repo,
        "echo new > new.txt && git status --porcelain && git log --oneline | wc -l "
        "&& git diff --stat HEAD && python3 -c 'print(1 + 1)' && echo ok > $XDG_CACHE_HOME/c",
    )
    assert done.returncode == 0, done.stderr
    assert "?? new.txt" in done.stdout and "\n1\n" in done.stdout and "2\n" in done.stdout
    assert (wt / "new.txt").read_text() == "new\n"
    assert (default_cache_dir(wt) / "c").read_text() == "ok\n"


def test_the_users_checkout_config_hooks_and_other_worktrees_are_out_of_reach(
    agent: tuple[Path, Path],
) -> None:
    repo, wt = agent
    other = worktrees_dir(repo / ".git") / "b2"
    head = git(repo, "rev-parse", "HEAD").strip()
    create_worktree(open_repo(repo), agent_id="b2", base_commit=head, dest=other)
    (other / "theirs.txt").write_text("another agent's work\n")
    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n")
    config_before = (repo / ".git" / "config").read_bytes()
    done = run(
        wt,
        repo,
        f"cat {repo}/app.py; cat {other}/theirs.txt; cat {repo}/.git/config; "
        f"ls {repo}/.git/hooks; echo pwned >> {repo}/.git/config; echo pwned > {repo}/app.py; "
        f"echo pwned > {other}/theirs.txt; echo pwned > .git; true",
    )
    out = done.stdout + done.stderr
    assert "uncommitted work" not in out and "another agent" not in out
    assert "hunter2" not in out and "repositoryformatversion" in out
    assert "pre-commit" not in out
    assert (repo / ".git" / "config").read_bytes() == config_before
    assert (repo / "app.py").read_text() == "x = 2  # the user's uncommitted work\n"
    assert (other / "theirs.txt").read_text() == "another agent's work\n"
    assert (wt / ".git").read_text().startswith("gitdir:")


def test_secrets_store_and_user_config_are_hidden(agent: tuple[Path, Path], outside: Path) -> None:
    repo, wt = agent
    secret = outside / "secret-dir"
    secret.mkdir()
    (secret / "key").write_text("TOPSECRET\n")
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text('api_key = "USERCONFIGSECRET"\n')
    policy = SandboxPolicy(deny=(*POLICY.deny, str(secret)))
    store = worktrees_dir(repo / ".git").parent / "store.db"
    store.write_text("STORESECRET")
    done = run(wt, repo, f"cat {secret}/key {store} {user_config_path()}; ls {wt.parent}", policy)
    out = done.stdout + done.stderr
    assert "TOPSECRET" not in out and "STORESECRET" not in out and "USERCONFIGSECRET" not in out
    assert out.count("No such file") == 3


def test_environment_is_scrubbed_but_project_variables_stay() -> None:
    env = {"OPENAI_API_KEY": "k", "GH_TOKEN": "t", "AWS_REGION": "r", "DB_PASSWORD": "p"}
    env |= {"PROJECT_MODE": "dev", "PATH": "/bin", "my_secret_x": "s", "MY_SECRET": "s"}
    kept = scrub_env(env, POLICY.env_deny)
    assert kept == {"PROJECT_MODE": "dev", "PATH": "/bin"}
    assert scrub_env({"FOO": "1", "BAR": "2"}, ("FOO",)) == {"BAR": "2"}


def test_network_is_off_unless_the_policy_opens_it(agent: tuple[Path, Path]) -> None:
    repo, wt = agent
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    connect = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3)\""
    try:
        assert run(wt, repo, connect).returncode != 0
        assert run(wt, repo, connect, SandboxPolicy(network=True)).returncode == 0
    finally:
        listener.close()


def _marker_pids(marker: str) -> list[str]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    pids.append(entry.name)
            except OSError:
                continue
    return pids


def test_timeout_kills_every_process_even_setsid_ones(agent: tuple[Path, Path]) -> None:
    repo, wt = agent
    marker = f"9.{os.getpid()}1"
    result = run_in_worktree(
        ["bash", "-c", f"(setsid sleep {marker} &); sleep {marker}"],
        wt,
        timeout_s=1.5,
        sandbox=POLICY,
        repo_root=repo,
    )
    assert result.timed_out
    deadline = time.monotonic() + 5
    while _marker_pids(marker):
        assert time.monotonic() < deadline, _marker_pids(marker)
        time.sleep(0.05)


def test_a_background_process_dies_when_the_command_ends(agent: tuple[Path, Path]) -> None:
    repo, wt = agent
    marker = f"8.{os.getpid()}2"
    result = run_in_worktree(
        ["bash", "-c", f"(setsid nohup sleep {marker} > /dev/null 2>&1 &); echo started"],
        wt,
        timeout_s=30,
        sandbox=POLICY,
        repo_root=repo,
    )
    assert result.exit_code == 0 and "started" in result.output
    assert _marker_pids(marker) == []


def test_tmp_and_memory_are_bounded(agent: tuple[Path, Path]) -> None:
    repo, wt = agent
    policy = SandboxPolicy(tmp_mb=4, memory_mb=256)
    fill = run(wt, repo, "head -c 20000000 /dev/zero > /tmp/big; ls -l /tmp/big", policy)
    assert "No space left" in fill.stderr
    assert int(fill.stdout.split()[4]) <= 4 * 1024 * 1024
    shm = run(wt, repo, "head -c 20000000 /dev/zero > /dev/shm/big", policy)
    assert "No space left" in shm.stderr
    mem = run(wt, repo, "python3 -c 'bytearray(1 << 30)'", policy)
    assert mem.returncode != 0 and "MemoryError" in mem.stderr


def test_the_process_limit_really_stops_forks(agent: tuple[Path, Path]) -> None:
    repo, wt = agent
    code = (
        "import os, time\n"
        "kids = []\n"
        "try:\n"
        "    for _ in range(300):\n"
        "        pid = os.fork()\n"
        "        if pid == 0:\n"
        "            time.sleep(10); os._exit(0)\n"
        "        kids.append(pid)\n"
        "except OSError:\n"
        "    pass\n"
        "print(len(kids))\n"
        "for k in kids: os.kill(k, 9)\n"
    )
    (wt / "bomb.py").write_text(code)
    done = run(wt, repo, "python3 bomb.py", SandboxPolicy(processes=40))
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) < 40


def test_a_command_directory_outside_the_worktree_is_refused(agent: tuple[Path, Path]) -> None:
    repo, wt = agent
    with pytest.raises(Exception, match="not inside the worktree"):
        sandbox_argv(
            ["true"],
            worktree=wt,
            repo_root=repo,
            policy=POLICY,
            cache_dir=default_cache_dir(wt),
            cwd=repo,
        )


def test_missing_bubblewrap_is_exit_9_with_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CURSORISH_BWRAP", "/nonexistent/bwrap")
    with pytest.raises(SandboxUnavailable) as info:
        check_available()
    assert info.value.exit_code == ExitCode.WORKTREE
    assert "apt-get install bubblewrap" in info.value.message
    assert "--no-sandbox" in info.value.message


def test_headless_run_without_bubblewrap_exits_9_before_any_worktree(
    tmp_path: Path, make_repo: Callable[..., Path], isolated_env: Path
) -> None:
    repo = make_repo(tmp_path, {"a.txt": "a\n"})
    env = {**os.environ, "CURSORISH_BWRAP": "/nonexistent/bwrap"}
    argv = [sys.executable, "-m", "cursorish", "--task", "x", "--repo", str(repo)]
    argv += ["--planner", "openai/x", "--api-base", "http://127.0.0.1:9"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == ExitCode.WORKTREE, done.stderr
    assert "apt-get install bubblewrap" in done.stderr and "Traceback" not in done.stderr
    assert not list(isolated_env.glob("repos/*/worktrees/*"))


def test_sandbox_off_and_network_are_never_taken_from_the_repository(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    repo = make_repo(tmp_path, {"a.txt": "a\n"})
    (repo / ".cursorish").mkdir()
    (repo / ".cursorish" / "config.toml").write_text('sandbox = "off"\nsandbox_network = true\n')
    trust_repo(repo)
    policy = policy_from_config(load_config(repo))
    assert policy.enabled and not policy.network
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text('sandbox = "off"\nsandbox_network = true\n')
    policy = policy_from_config(load_config(repo))
    assert not policy.enabled and policy.network
    flags = policy_from_config(load_config(None, {"sandbox": "on", "sandbox_network": False}))
    assert flags.enabled and not flags.network


def test_a_bad_sandbox_value_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSORISH_SANDBOX", "maybe")
    with pytest.raises(ConfigError, match="sandbox must be on or off"):
        policy_from_config(load_config(None))


def test_no_sandbox_warns_on_every_run(
    tmp_path: Path, make_repo: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, {"a.txt": "a\n"})
    # The planner is unreachable: the run fails after the warning, which is what we check.
    main(["--task", "x", "--repo", str(repo), "--planner", "openai/x", "--no-sandbox",
          "--api-base", "http://127.0.0.1:9", "--max-steps", "1"])  # fmt: skip
    assert OFF_WARNING in capsys.readouterr().err


def test_cancel_kills_the_sandboxed_command_and_its_children(agent: tuple[Path, Path]) -> None:
    repo, wt = agent
    marker = f"9.{os.getpid()}3"
    cancel = threading.Event()
    timer = threading.Timer(1.0, cancel.set)
    timer.start()
    result = run_in_worktree(
        ["bash", "-c", f"(setsid sleep {marker} &); sleep {marker}"],
        wt,
        timeout_s=60,
        cancel=cancel,
        sandbox=POLICY,
        repo_root=repo,
    )
    timer.join()
    assert result.cancelled and result.elapsed_s < 10
    assert _marker_pids(marker) == []


def test_a_repository_profile_never_opens_the_network_even_trusted(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    from cursorish.config.settings import build_settings

    repo = make_repo(tmp_path, {"a.txt": "a\n"})
    agents = repo / ".cursorish" / "agents"
    agents.mkdir(parents=True)
    shipped = (Path(__file__).parents[2] / "agents" / "default.toml").read_text()
    (agents / "netty.toml").write_text("sandbox_network = true\n" + shipped)
    trust_repo(repo)
    lines: list[str] = []
    settings = build_settings(
        load_config(repo, {"planner": "openai/x", "profile": "netty"}), repo, warn=lines.append
    )
    assert settings.profile.source.parent == agents and settings.profile.sandbox_network
    assert settings.sandbox.enabled and not settings.sandbox.network
    assert lines == []
    flagged = build_settings(
        load_config(repo, {"planner": "openai/x", "sandbox_network": True}), repo, warn=lines.append
    )
    assert flagged.sandbox.network


def test_a_main_checkout_run_as_a_worktree_keeps_its_git_dir_out_of_reach(
    agent: tuple[Path, Path],
) -> None:
    repo, _wt = agent
    before = (repo / ".git" / "config").read_bytes()
    done = run(repo, None, "cat .git/config; echo pwned >> .git/config; ls .git/hooks | wc -l")
    assert "hunter2" not in done.stdout
    assert (repo / ".git" / "config").read_bytes() == before


def test_tool_caches_go_to_the_per_agent_cache_dir(agent: tuple[Path, Path]) -> None:
    repo, wt = agent
    (wt / "mod.py").write_text("x: int = 1\n")
    py = sys.executable  # the venv's, which has mypy and ruff
    done = run(wt, repo, f"{py} -m mypy mod.py && {py} -m ruff check mod.py")
    assert done.returncode == 0, done.stdout + done.stderr
    cache = default_cache_dir(wt)
    assert (cache / "mypy").is_dir() and (cache / "ruff").is_dir()
    assert not (wt / ".mypy_cache").exists() and not (wt / ".ruff_cache").exists()
