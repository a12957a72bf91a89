"""Worktree provisioning: which local files are copied, the setup command, failures."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.core.provision import (
    ProvisionSpec,
    SetupFailed,
    copy_ignored_files,
    load_spec,
    provision,
)
from cursorish.core.trust import trust_repo
from cursorish.errors import ConfigError
from cursorish.replay.scripted_server import ScriptedServer
from tests.core.agent_helpers import finish, run_tasks, settings_for

MakeRepo = Callable[..., Path]


@pytest.fixture
def checkout(tmp_path: Path, make_repo: MakeRepo) -> Path:
    root = make_repo(
        tmp_path,
        {".gitignore": ".env\n*.local\nconfig/\nlinked.env\n", "tracked.txt": "t\n"},
    )
    (root / ".env").write_text("SECRET=1\n")
    (root / "app.local").write_text("local\n")
    (root / "config").mkdir()
    (root / "config" / "local.yml").write_text("a: 1\n")
    (tmp_path / "elsewhere.env").write_text("outside\n")
    (root / "linked.env").symlink_to(tmp_path / "elsewhere.env")
    return root


def test_copies_only_ignored_regular_files_inside(checkout: Path, tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    names: tuple[str, ...] = (".env", "*.local", "config/local.yml", "tracked.txt")
    names += ("missing.env", "linked.env", "../elsewhere.env", "/etc/passwd")
    copied, skipped = copy_ignored_files(checkout, dest, names)
    assert copied == [".env", "app.local", "config/local.yml"]
    assert (dest / ".env").read_text() == "SECRET=1\n"
    assert (dest / "config" / "local.yml").read_text() == "a: 1\n"
    why = dict(skipped)
    assert "not git-ignored" in why["tracked.txt"]
    assert "symlink" in why["linked.env"]
    assert "inside the checkout" in why["../elsewhere.env"]
    assert "inside the checkout" in why["/etc/passwd"]
    assert "missing.env" not in why and not (dest / "missing.env").exists()
    assert not (dest / "linked.env").exists() and not (dest / "tracked.txt").exists()


def test_never_writes_through_a_symlink_in_the_destination(checkout: Path, tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    trap = tmp_path / "trap"
    trap.mkdir()
    (dest / "config").symlink_to(trap)
    copied, skipped = copy_ignored_files(checkout, dest, ("config/local.yml",))
    assert copied == [] and "outside the worktree" in dict(skipped)["config/local.yml"]
    assert list(trap.iterdir()) == []


def test_repo_list_adds_to_defaults_and_setup_replaces(checkout: Path, tmp_path: Path) -> None:
    defaults = tmp_path / "defaults.toml"
    defaults.write_text('copy = [".env"]\nsetup = "echo default"\nsetup_timeout_s = 5\n')
    (checkout / ".cursorish").mkdir()
    (checkout / ".cursorish" / "worktrees.toml").write_text(
        'copy = ["*.local", ".env"]\nsetup = "echo mine"\n'
    )
    trust_repo(checkout)  # a repository's setup command runs only once trusted
    spec = load_spec(checkout, defaults=defaults)
    assert spec == ProvisionSpec((".env", "*.local"), "echo mine", 5.0)


def test_shipped_defaults_load(checkout: Path) -> None:
    spec = load_spec(checkout)
    assert ".env" in spec.copy and spec.setup == ""


def test_bad_repo_file_is_a_config_error(checkout: Path) -> None:
    (checkout / ".cursorish").mkdir()
    (checkout / ".cursorish" / "worktrees.toml").write_text("copy = 3\nextra = 1\n")
    with pytest.raises(ConfigError, match="unknown key"):
        load_spec(checkout)


def test_setup_runs_in_the_worktree_and_its_failure_is_clear(
    checkout: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    ok = provision(checkout, dest, ProvisionSpec((), "pwd > where.txt && echo set up", 10))
    assert ok.setup is not None and ok.setup.exit_code == 0 and "set up" in ok.setup.output
    assert (dest / "where.txt").read_text().strip() == str(dest.resolve())
    with pytest.raises(SetupFailed, match=r"exited with code 4; its output ends with:\nboom"):
        provision(checkout, dest, ProvisionSpec((), "echo boom; exit 4", 10))
    with pytest.raises(SetupFailed, match="timed out after 1s"):
        provision(checkout, dest, ProvisionSpec((), "sleep 30", 1))


def test_agent_with_failing_setup_fails_with_the_message(checkout: Path) -> None:
    spec = ProvisionSpec((".env",), "echo installing; echo 'no such package' >&2; exit 1", 10)
    # The planner is asked while the setup runs; its slow answer is abandoned when the setup
    # fails (waiting for it would end the agent on the planner's 20 s timeout instead).
    with ScriptedServer([{**finish(), "delay_s": 60}]) as server:
        (report,), store = run_tasks(checkout, ["t"], settings_for(server), provision=spec)
    assert report.status == "failed"
    assert report.error.startswith("worktree setup command") and "no such package" in report.error
    row = store.agent(report.agent_id)
    assert row is not None and row["state"] == "failed" and row["error"] == report.error
    assert "installing" in (row["setup_output"] or "")
    assert row["provisioned_at"] is None
    assert store.tool_calls(report.agent_id) == []
    assert store.planner_calls(report.agent_id) == []  # abandoned, not a planner failure
    assert (Path(report.worktree) / ".env").read_text() == "SECRET=1\n"


def test_agent_worktree_gets_the_local_files(checkout: Path) -> None:
    spec = ProvisionSpec((".env",), "test -f .env", 10)
    with ScriptedServer([finish()]) as server:
        (report,), _ = run_tasks(checkout, ["t"], settings_for(server), provision=spec)
    assert (Path(report.worktree) / ".env").read_text() == "SECRET=1\n"
    assert report.status == "gave_up"  # nothing changed; .env stays out of the commit
    assert report.commit is None
