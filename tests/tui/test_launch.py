"""`cursorish tui`: what fails before the app takes over the terminal, and with which exit
code; the command policy the app uses; and that opening the app imports no model library."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.cli import main
from cursorish.config import load_config
from cursorish.errors import ExitCode
from cursorish.tui.bridge import EngineSetup
from cursorish.tui.launch import tui_command_policy
from tests.conftest import imported_after

SetupFactory = Callable[..., EngineSetup]


def test_not_a_repository_exits_4_before_the_app(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tui", "--repo", str(tmp_path), "--planner", "openai/x"]) == ExitCode.NOT_A_REPO
    err = capsys.readouterr().err
    assert "not a git repository" in err and "Traceback" not in err


def test_without_a_terminal_exits_2_with_what_to_do_instead(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tui", "--repo", str(repo), "--planner", "openai/x"]) == ExitCode.BAD_ARGS
    err = capsys.readouterr().err
    assert "the app needs a terminal" in err and "--task" in err


def test_unknown_profile_exits_8(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tui", "--repo", str(repo), "--planner", "openai/x", "--profile", "nope"])
    assert code == ExitCode.CONFIG
    assert "no agent profile named 'nope'" in capsys.readouterr().err


def test_malformed_repo_config_exits_8(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".cursorish").mkdir()
    (repo / ".cursorish" / "config.toml").write_text("planner = \n")
    assert main(["tui", "--repo", str(repo)]) == ExitCode.CONFIG
    assert "not valid TOML" in capsys.readouterr().err


def test_a_missing_planner_does_not_stop_the_app(make_setup: SetupFactory) -> None:
    setup = make_setup()
    assert "No planner model is configured" in setup.notice
    assert setup.profiles and setup.default_profile in setup.profiles


def test_the_app_asks_before_commands_unless_told_otherwise(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert tui_command_policy(load_config(repo)) == "ask"
    monkeypatch.setenv("CURSORISH_COMMAND_POLICY", "allowlist")  # the headless setting
    assert tui_command_policy(load_config(repo)) == "ask"
    assert tui_command_policy(load_config(repo, {"command_policy": "allowlist"})) == "allowlist"
    monkeypatch.setenv("CURSORISH_COMMAND_POLICY", "deny")
    assert tui_command_policy(load_config(repo)) == "deny"


def test_settings_use_the_chosen_profile_and_the_app_policy(make_setup: SetupFactory) -> None:
    setup = make_setup(planner="openai/x")
    settings = setup.settings_for("explain")
    assert settings.profile.name == "explain" and settings.command_policy == "ask"
    assert setup.settings_for(None).profile.name == "default"


def test_opening_the_app_imports_no_model_library() -> None:
    modules = ["cursorish.tui.launch", "cursorish.tui.app", "cursorish.tui.bridge"]
    assert imported_after(modules, ("litellm", "llama_cpp")) == []


def test_the_app_says_when_the_sandbox_is_off(make_setup: SetupFactory) -> None:
    assert "sandbox is off" not in make_setup(planner="openai/x").notice
    notice = make_setup(planner="openai/x", sandbox="off").notice
    assert "sandbox is off" in notice and "full rights" in notice
