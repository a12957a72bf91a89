"""Agent profiles: a bad budget in a profile file is a configuration error, not a silent limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursorish.core.profiles import parse_profile
from cursorish.errors import ConfigError, ExitCode


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("max_steps = -1", "max_steps must be a number >= 0, got -1"),
        ("max_cost_usd = nan", "max_cost_usd must be a number >= 0, got nan"),
        ("max_wall_s = inf", "max_wall_s must be a number >= 0, got inf"),
    ],
)
def test_a_negative_or_non_finite_budget_is_a_config_error(
    tmp_path: Path, line: str, message: str
) -> None:
    path = tmp_path / "p.toml"
    path.write_text(f'[prompt]\nsystem = "work"\n\n[budgets]\n{line}\n')
    with pytest.raises(ConfigError, match=message) as info:
        parse_profile(path)
    assert info.value.exit_code == ExitCode.CONFIG
    path.write_text('[prompt]\nsystem = "work"\n\n[budgets]\nmax_steps = 0\n')
    assert parse_profile(path).budgets.max_steps == 0
