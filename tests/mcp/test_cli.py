"""`cursorish mcp list` and `cursorish mcp tools NAME`, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from cursorish.config import user_config_path

from .conftest import TIME_SERVER

MakeRepo = Callable[..., Path]
CLI = [sys.executable, "-m", "cursorish"]


def cursorish(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def configure() -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'[mcp_servers.time]\ncommand = "{TIME_SERVER}"\n'
        '[mcp_servers.off]\ncommand = "x"\ndisabled = true\n'
        '[mcp_servers.gh]\ncommand = "srv"\nenv = { T = "${CURSORISH_TEST_UNSET_VAR}" }\n'
    )


def test_list_then_tools(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"a.txt": "a\n"})
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": {"command": "evil"}}}))
    configure()
    listed = cursorish("mcp", "list", "--json", cwd=root)
    assert listed.returncode == 0, listed.stderr
    doc = json.loads(listed.stdout)
    status = {s["name"]: (s["status"], s["tools"]) for s in doc["servers"]}
    assert status == {
        "time": ("ok", None),
        "off": ("disabled", None),
        "gh": ("problem: ${CURSORISH_TEST_UNSET_VAR} not set in the environment", None),
    }
    [ignored] = doc["ignored"]
    assert ignored["name"] == "repo" and "cursorish trust --repo" in ignored["why"]

    tools = cursorish("mcp", "tools", "time", "--json", cwd=root)
    assert tools.returncode == 0, tools.stderr
    names = [t["name"] for t in json.loads(tools.stdout)["tools"]]
    assert names == ["time__get_current_time", "time__convert_time"]
    # The listing is now cached, which `list` shows (and agents start from).
    again = json.loads(cursorish("mcp", "list", "--json", cwd=root).stdout)
    assert next(s for s in again["servers"] if s["name"] == "time")["tools"] == 2
    text = cursorish("mcp", "list", cwd=root).stdout
    assert "time  (stdio, 2 tools, tools named time__*)" in text and "repo  ignored" in text


def test_errors_have_messages_and_exit_codes(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"a.txt": "a\n"})
    configure()
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": {"command": "evil"}}}))
    unknown = cursorish("mcp", "tools", "nope", cwd=root)
    assert unknown.returncode == 2 and "no MCP server named 'nope'" in unknown.stderr
    missing = cursorish("mcp", "tools", cwd=root)
    assert missing.returncode == 2 and "cursorish mcp tools NAME" in missing.stderr
    untrusted = cursorish("mcp", "tools", "repo", cwd=root)
    assert untrusted.returncode == 8 and "not trusted" in untrusted.stderr
    problem = cursorish("mcp", "tools", "gh", cwd=root)
    assert problem.returncode == 8 and "CURSORISH_TEST_UNSET_VAR" in problem.stderr
    user_config_path().write_text('[mcp_servers.bad]\nargs = ["x"]\n')
    bad = cursorish("mcp", "list", cwd=root)
    assert bad.returncode == 8 and "give a command (stdio) or a url (HTTP)" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_a_server_that_fails_to_start(tmp_path: Path, make_repo: MakeRepo) -> None:
    root = make_repo(tmp_path, {"a.txt": "a\n"})
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'[mcp_servers.dies]\ncommand = "{sys.executable}"\nargs = ["-c", '
        "\"import sys; print('no config found', file=sys.stderr); sys.exit(2)\"]\n"
    )
    out = cursorish("mcp", "tools", "dies", cwd=root)
    assert out.returncode == 8
    assert "could not start" in out.stderr and "no config found" in out.stderr
