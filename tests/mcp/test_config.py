"""Where MCP servers come from: the user's config.toml and mcp.json, a repository's .mcp.json
and .cursorish/mcp.json (only once trusted), the formats other tools write."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cursorish.config import load_config, user_config_path
from cursorish.core.trust import trust_repo
from cursorish.errors import ConfigError
from cursorish.mcp.config import load_mcp_config, parse_entry, server_key


def write_user_toml(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_user_toml_table_and_json(tmp_path: Path) -> None:
    write_user_toml(
        'planner = "x"\n[mcp_servers.time]\ncommand = "uvx"\nargs = ["mcp-server-time"]\n'
        'auto_approve = ["get_current_time"]\ntimeout_s = 5\n'
    )
    (user_config_path().parent / "mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"web": {"type": "http", "url": "http://h/mcp", "headers": {"X": "1"}}}}
        )
    )
    cfg = load_mcp_config(None)
    time = cfg.servers["time"]
    assert (time.transport, time.command, time.args) == ("stdio", "uvx", ("mcp-server-time",))
    assert time.auto_approve == ("get_current_time",) and time.call_timeout_s == 5
    web = cfg.servers["web"]
    assert (web.transport, web.url, dict(web.headers)) == ("http", "http://h/mcp", {"X": "1"})
    # The table does not upset the ordinary settings.
    assert load_config(None).get_str("planner") == "x"


def test_repo_files_need_trust(make_repo: object, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"git": {"command": "mcp-server-git", "args": ["-r", "."]}}})
    )
    cfg = load_mcp_config(repo)
    assert "git" not in cfg.servers
    [ignored] = cfg.ignored
    assert ignored.name == "git" and "cursorish trust --repo" in ignored.why
    trust_repo(repo)
    cfg = load_mcp_config(repo)
    assert cfg.servers["git"].args == ("-r", ".") and not cfg.ignored
    # A change after trusting is untrusted again.
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"git": {"command": "evil"}}}))
    assert "git" not in load_mcp_config(repo).servers


def test_a_trusted_repository_file_never_opens_the_network(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    entry = {"command": "srv", "network": True}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"web": entry}}))
    trust_repo(repo)
    assert load_mcp_config(repo).servers["web"].network is False
    # The user's own entry may.
    write_user_toml('[mcp_servers.mine]\ncommand = "srv"\nnetwork = true\n')
    assert load_mcp_config(repo).servers["mine"].network is True


def test_repo_config_toml_cannot_add_servers(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".cursorish").mkdir(parents=True)
    (repo / ".cursorish" / "config.toml").write_text('[mcp_servers.x]\ncommand = "evil"\n')
    cfg = load_config(repo)
    assert any(key == "mcp_servers" for key, *_ in cfg.ignored)
    assert load_mcp_config(repo).servers == {}


def test_variables_are_expanded_and_unset_ones_are_a_problem() -> None:
    env = {"TOKEN": "t0k", "HOST": "h"}
    s = parse_entry(
        "gh",
        {"command": "srv", "env": {"GITHUB_TOKEN": "${TOKEN}"}, "args": ["${HOST}", "${PORT:-80}"]},
        "f",
        env,
    )
    assert dict(s.env) == {"GITHUB_TOKEN": "t0k"} and s.args == ("h", "80") and not s.problem
    bad = parse_entry("gh", {"command": "srv", "env": {"T": "${MISSING}"}}, "f", env)
    assert bad.problem == "${MISSING} not set in the environment"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"args": ["x"]}, "give a command (stdio) or a url (HTTP)"),
        ({"type": "sse", "url": "http://x"}, "SSE transport is not supported"),
        ({"type": "http"}, "an HTTP server needs a url"),
        ({"command": "x", "args": "y"}, "args must be a list"),
        ({"command": "x", "timeout": -1}, "timeout must be a positive number"),
        ({"type": "ws", "url": "x"}, "unknown type 'ws'"),
    ],
)
def test_bad_entries_are_precise(entry: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_entry("s", entry, "f", {})


def test_malformed_files_are_config_errors(tmp_path: Path) -> None:
    (user_config_path().parent).mkdir(parents=True, exist_ok=True)
    (user_config_path().parent / "mcp.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"mcp\.json: not valid JSON"):
        load_mcp_config(None)
    (user_config_path().parent / "mcp.json").write_text('{"mcpServers": []}')
    with pytest.raises(ConfigError, match=re.escape('expected {"mcpServers"')):
        load_mcp_config(None)


def test_names_become_tool_prefixes() -> None:
    assert server_key("github.com") == "github_com"
    assert server_key("a__b") == "a_b"
    assert server_key("my server!") == "my_server"
