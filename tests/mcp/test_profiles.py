"""Profiles choose MCP tools: [mcp] allow/deny globs; an untrusted repository profile offers
none (it would act with the user's servers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursorish.core.profiles import load_profile
from cursorish.core.trust import trust_repo
from cursorish.errors import ConfigError

PROFILE = """
name = "{name}"
tools = ["read_file", "finish"]
[mcp]
allow = {allow}
deny = ["time__convert*"]
[prompt]
system = "be brief"
"""


def repo_profile(repo: Path, name: str, allow: str) -> None:
    folder = repo / ".cursorish" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.toml").write_text(PROFILE.format(name=name, allow=allow))


def test_builtin_profiles() -> None:
    assert load_profile("default", None).mcp_allow == ("*",)
    assert load_profile("explain", None).mcp_allow == ()


def test_repository_profile_needs_trust_for_mcp_tools(tmp_path: Path) -> None:
    repo_profile(tmp_path, "timekeeper", '["time__*"]')
    untrusted = load_profile("timekeeper", tmp_path)
    assert untrusted.mcp_allow == () and "mcp tools" in untrusted.ignored
    trust_repo(tmp_path)
    trusted = load_profile("timekeeper", tmp_path)
    assert trusted.mcp_allow == ("time__*",) and trusted.mcp_deny == ("time__convert*",)


def test_bad_mcp_table_is_a_config_error(tmp_path: Path) -> None:
    repo_profile(tmp_path, "bad", '"time__*"')
    trust_repo(tmp_path)
    with pytest.raises(ConfigError, match=r"\[mcp\] allow must be a list"):
        load_profile("bad", tmp_path)
