"""Layered configuration: defaults < user file < repo file < environment < flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursorish.config import load_config, require_planner
from cursorish.errors import ConfigError, ExitCode


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cfg_home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(cfg_home))
    for var in ("CURSORISH_PLANNER", "CURSORISH_API_BASE", "CURSORISH_MAX_STEPS"):
        monkeypatch.delenv(var, raising=False)
    (cfg_home / "cursorish").mkdir(parents=True)
    return cfg_home / "cursorish"


def test_precedence_default_user_repo_env_flag(
    user_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (user_dir / "config.toml").write_text('planner = "user/model"\nmax_steps = 5\n')
    repo = tmp_path / "repo"
    (repo / ".cursorish").mkdir(parents=True)
    (repo / ".cursorish" / "config.toml").write_text('planner = "repo/model"\n')

    cfg = load_config(repo, {}, environ={})
    assert cfg["planner"] == "repo/model"
    assert cfg.sources["planner"].endswith(".cursorish/config.toml")
    assert cfg["max_steps"] == 5
    assert cfg.sources["max_steps"].endswith("cursorish/config.toml")

    cfg = load_config(repo, {}, environ={"CURSORISH_PLANNER": "env/model"})
    assert (cfg["planner"], cfg.sources["planner"]) == ("env/model", "$CURSORISH_PLANNER")

    cfg = load_config(repo, {"planner": "flag/model"}, environ={"CURSORISH_PLANNER": "env/model"})
    assert (cfg["planner"], cfg.sources["planner"]) == ("flag/model", "--planner")


def test_secret_is_never_printed(user_dir: Path) -> None:
    cfg = load_config(None, {}, environ={"CURSORISH_API_KEY": "sk-very-secret-value"})
    rows = {k: (v, s) for k, v, s in cfg.printable()}
    assert rows["api_key"] == ("set", "$CURSORISH_API_KEY")
    assert "sk-very-secret-value" not in repr(cfg.printable())


def test_bad_toml_and_unknown_keys_are_clear_errors(user_dir: Path) -> None:
    (user_dir / "config.toml").write_text("planner = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(None, {}, environ={})
    (user_dir / "config.toml").write_text('planer = "x"\n')
    with pytest.raises(ConfigError, match="unknown key"):
        load_config(None, {}, environ={})


def test_wrong_type_from_env_is_a_clear_error(user_dir: Path) -> None:
    with pytest.raises(ConfigError, match="max_steps must be an integer"):
        load_config(None, {}, environ={"CURSORISH_MAX_STEPS": "many"})


def test_missing_planner_message_says_how_to_configure(user_dir: Path) -> None:
    cfg = load_config(None, {}, environ={})
    with pytest.raises(ConfigError) as info:
        require_planner(cfg)
    assert info.value.exit_code == ExitCode.CONFIG
    for hint in ("--planner", "CURSORISH_PLANNER", "config.toml", "cursorish demo"):
        assert hint in info.value.message


def test_a_config_file_that_is_not_utf8_is_a_config_error(user_dir: Path) -> None:
    (user_dir / "config.toml").write_bytes(b'planner = "caf\xe9/model"\n')
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 0xe9 at offset 14\)") as info:
        load_config(None, {}, environ={})
    assert info.value.exit_code == ExitCode.CONFIG


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"CURSORISH_CONCURRENCY": "0"}, "concurrency must be at least 1"),
        ({"CURSORISH_MAX_STEPS": "-3"}, "max_steps must be at least 0"),
        ({"CURSORISH_MAX_COST": "nan"}, "max_cost_usd must be a finite number"),
        ({"CURSORISH_MAX_WALL": "inf"}, "max_wall_s must be a finite number"),
        ({"CURSORISH_COMMAND_TIMEOUT": "0"}, "command_timeout_s must be more than 0"),
    ],
)
def test_numbers_out_of_range_are_config_errors(
    user_dir: Path, environ: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(None, {}, environ=environ)


def test_a_negative_number_in_a_config_file_names_the_file(user_dir: Path) -> None:
    (user_dir / "config.toml").write_text("concurrency = -2\n")
    with pytest.raises(ConfigError, match=r"config\.toml: concurrency must be at least 1"):
        load_config(None, {}, environ={})


def test_override_checks_the_type_and_records_the_source(user_dir: Path) -> None:
    cfg = load_config(None, {"max_steps": 3})
    cfg.override("profile", "fast", "the app")
    cfg.override("max_steps", "12", "profile fast")  # converted to the key's type
    assert (cfg["profile"], cfg.source("profile")) == ("fast", "the app")
    assert (cfg.get_int("max_steps"), cfg.source("max_steps")) == (12, "profile fast")
    assert cfg.is_default("concurrency") and not cfg.is_default("profile")
    with pytest.raises(ConfigError, match="profile fast: concurrency must be at least 1"):
        cfg.override("concurrency", 0, "profile fast")
    assert cfg.get_int("concurrency") == 8  # a refused value changes nothing
    rows = {key: (value, source) for key, value, source in cfg.printable()}
    assert rows["profile"] == ("fast", "the app")


def test_values_and_sources_are_read_only_views(user_dir: Path) -> None:
    cfg = load_config(None)
    with pytest.raises(TypeError):
        cfg.values["planner"] = "x"  # type: ignore[index]
    with pytest.raises(TypeError):
        cfg.sources["planner"] = "x"  # type: ignore[index]
    assert cfg.get_list("sandbox_deny") == () and cfg.get_bool("stream") is True
