"""The remote apply route from configuration files: keys, defaults, errors, and trust."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursorish.apply import router
from cursorish.apply.model.remote import RemoteApplyModel
from cursorish.config import load_config
from cursorish.config.settings import configure_apply
from cursorish.errors import ConfigError, ExitCode

pytestmark = pytest.mark.usefixtures("clean_router")


@pytest.fixture
def user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("CURSORISH_HOME", str(tmp_path / "home"))
    path = tmp_path / "config" / "cursorish" / "config.toml"
    path.parent.mkdir(parents=True)
    return path


def test_user_config_configures_a_hosted_apply_model(user_config: Path) -> None:
    user_config.write_text(
        'apply_remote_format = "relace"\n'
        'apply_remote_model = "relace-apply-3"\n'
        'apply_api_key = "rk-from-config"\n'
    )
    cfg = load_config(None, {}, environ={})
    configure_apply(cfg)
    model = router.configured_model()
    assert isinstance(model, RemoteApplyModel)
    assert model.profile.name == "relace" and model.model == "relace-apply-3"
    assert model.api_base == "https://instantapply.endpoint.relace.run/v1/apply"
    assert model.request("a", "b")["api_key"] == "rk-from-config"


def test_unknown_format_in_the_config_is_a_config_error(user_config: Path) -> None:
    user_config.write_text('apply_remote_format = "cursor-fast"\n')
    with pytest.raises(ConfigError, match=r"cursor-fast.*known: fastapply, morph") as info:
        configure_apply(load_config(None, {}, environ={}))
    assert info.value.exit_code == ExitCode.CONFIG


def test_an_untrusted_repository_cannot_pick_where_code_is_sent(
    user_config: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".cursorish").mkdir(parents=True)
    (repo / ".cursorish" / "config.toml").write_text(
        'apply_remote_format = "openai-predicted"\napply_remote_model = "gpt-4o"\n'
    )
    cfg = load_config(repo, {}, environ={})
    assert cfg.get_str("apply_remote_format") == ""  # needs the user's trust
    assert cfg.get_str("apply_remote_model") == "gpt-4o"  # harmless without a format or base
    assert any(key == "apply_remote_format" for key, *_ in cfg.ignored)
    configure_apply(cfg)
    assert router.configured_model() is None


def test_an_api_base_that_is_no_url_is_a_config_error(user_config: Path) -> None:
    user_config.write_text('apply_api_base = "localhost:8000"\n')
    with pytest.raises(ConfigError, match=r"'localhost:8000' is not an http") as info:
        configure_apply(load_config(None, {}, environ={}))
    assert info.value.exit_code == ExitCode.CONFIG


def test_cursorish_config_shows_whether_the_hosted_apply_keys_are_set(
    user_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MORPH_API_KEY", "mk-secret")
    monkeypatch.delenv("RELACE_API_KEY", raising=False)
    rows = {key: (value, source) for key, value, source in load_config(None, {}).printable()}
    assert rows["MORPH_API_KEY"] == ("set", "environment")
    assert rows["RELACE_API_KEY"] == ("not set", "environment")
    assert "mk-secret" not in repr(rows)


def test_apply_timeout_s_reaches_the_remote_model(user_config: Path) -> None:
    user_config.write_text('apply_remote_format = "morph"\napply_timeout_s = 600\n')
    configure_apply(load_config(None, {}, environ={}))
    model = router.configured_model()
    assert isinstance(model, RemoteApplyModel) and model.timeout_s == 600
    user_config.write_text('apply_remote_format = "morph"\napply_timeout_s = 0\n')
    with pytest.raises(ConfigError, match="apply_timeout_s must be more than 0"):
        load_config(None, {}, environ={})
