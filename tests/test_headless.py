"""`cursorish --task` end to end: real CLI, real litellm over HTTP to a scripted server, real git
worktrees, the real apply engine and store. Each test scripts one planner conversation."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cursorish.cli import main
from cursorish.core.trust import trust_repo
from cursorish.errors import ExitCode
from cursorish.replay.scripted_server import ScriptedServer
from cursorish.store.db import Store
from tests.conftest import ServerFactory, git, snapshot
from tests.scripted_turns import APP, SKETCH, call, finish

EDIT_TURNS: list[dict[str, Any]] = [
    {"content": "reading", "tool_calls": [call("read_file", path="app.py")]},
    {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)]},
    finish(),
]


pytestmark = pytest.mark.usefixtures("one_retry")


@pytest.fixture
def repo(tmp_path: Path, make_repo: Callable[..., Path]) -> Path:
    return make_repo(tmp_path, {"app.py": APP, "README.md": "# demo\n"})


def run_task(repo: Path, server: ScriptedServer, *extra: str, task: str = "say hello") -> int:
    return main(
        [
            "--task",
            task,
            "--repo",
            str(repo),
            "--planner",
            "openai/scripted",
            "--api-base",
            server.base_url,
            *extra,
        ]
    )


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def store_of(repo: Path) -> Store:
    common = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    return Store.for_repo(common)


def test_task_commits_on_agent_branch_and_leaves_checkout_untouched(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(repo)
    code = run_task(repo, scripted_server(EDIT_TURNS), "--json")
    out = capsys.readouterr().out
    assert code == 0, out
    summary = json_lines(out)[-1]
    assert summary["event"] == "summary" and summary["status"] == "done"
    branch = summary["branch"]
    assert branch == f"cursorish/{summary['agent']}"
    assert git(repo, "show", f"{branch}:app.py") == APP.replace('"hi "', '"hello "')
    assert summary["files"] == [{"path": "app.py", "added": 1, "deleted": 1, "status": "M"}]
    assert summary["steps"] == 3 and summary["commit"]
    assert snapshot(repo) == before


def test_json_mode_streams_events_before_the_summary(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    run_task(repo, scripted_server(EDIT_TURNS), "--json")
    kinds = [e["event"] for e in json_lines(capsys.readouterr().out)]
    for kind in ("queued", "worktree_ready", "tool_call", "file_changed", "agent_finished"):
        assert kind in kinds
    assert kinds[-1] == "summary" and kinds.count("summary") == 1


def test_text_mode_prints_branch_files_steps_tokens_cost_time(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_task(repo, scripted_server(EDIT_TURNS)) == 0
    out = capsys.readouterr().out
    assert "agent " in out and ": done" in out
    for needle in ("branch    cursorish/", "app.py  +1 -1", "3 steps", "tokens", "$0.0000", "s)"):
        assert needle in out


def test_quiet_prints_only_the_summary(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_task(repo, scripted_server(EDIT_TURNS), "--quiet") == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "branch    cursorish/" in captured.out


def test_not_a_git_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--task", "x", "--repo", str(tmp_path), "--planner", "openai/x"])
    assert code == ExitCode.NOT_A_REPO
    assert "not a git repository" in capsys.readouterr().err


def test_repo_without_commits(
    tmp_path: Path, make_repo: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    empty = make_repo(tmp_path, {"a.txt": "x\n"}, commit=False)
    code = main(["--task", "x", "--repo", str(empty), "--planner", "openai/x"])
    assert code == ExitCode.NOT_A_REPO
    assert "no commits" in capsys.readouterr().err


def test_without_planner_says_how_to_configure(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--task", "x", "--repo", str(repo)])
    err = capsys.readouterr().err
    assert code == ExitCode.CONFIG
    assert "--planner" in err and "CURSORISH_PLANNER" in err and "cursorish demo" in err


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--task", "x", "--agents", "0"]) == ExitCode.BAD_ARGS
    assert main(["--task", "x", "--tasks", "f"]) == ExitCode.BAD_ARGS
    assert main([]) == ExitCode.BAD_ARGS
    assert main(["--task", "x", "--max-steps", "many"]) == ExitCode.BAD_ARGS
    assert "Traceback" not in capsys.readouterr().err


def test_dirty_checkout_starts_from_head_and_says_so(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "app.py").write_text(APP + "# uncommitted work\n")
    (repo / "notes.txt").write_text("untracked\n")
    before = snapshot(repo)
    assert run_task(repo, scripted_server(EDIT_TURNS)) == 0
    captured = capsys.readouterr()
    assert "uncommitted changes" in captured.err and "start from HEAD" in captured.err
    branch = next(ln.split()[1] for ln in captured.out.splitlines() if "branch " in ln)
    merged = git(repo, "show", f"{branch}:app.py")
    assert "uncommitted work" not in merged and '"hello "' in merged
    assert snapshot(repo) == before


def test_escaping_paths_are_refused_and_nothing_outside_changes(
    repo: Path,
    tmp_path: Path,
    scripted_server: ServerFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    turns = [
        {
            "tool_calls": [
                call("create_file", path="../victim.txt", content="pwned\n"),
                call("create_file", path=str(victim), content="pwned\n"),
                call("edit_file", path=".git/config", sketch="[core]\n"),
            ]
        },
        {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)]},
        finish(),
    ]
    s = scripted_server(turns)
    assert run_task(repo, s, "--json") == 0
    assert victim.read_text() == "keep\n"
    tool_results = [m for m in s.requests[1]["messages"] if m["role"] == "tool"]
    texts = [m["content"] for m in tool_results]
    assert "outside the worktree" in texts[0]
    assert "absolute paths are not allowed" in texts[1]
    assert ".git" in texts[2] and texts[2].startswith("error")


def test_unknown_tool_and_invalid_json_arguments_are_reported_to_the_planner(
    repo: Path, scripted_server: ServerFactory
) -> None:
    turns = [
        {
            "tool_calls": [
                {"name": "rm_rf", "arguments": {"path": "/"}},
                {"name": "read_file", "arguments": '{"path": "app.py"'},
            ]
        },
        {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)]},
        finish(),
    ]
    s = scripted_server(turns)
    assert run_task(repo, s, "--quiet") == 0
    results = [m["content"] for m in s.requests[1]["messages"] if m["role"] == "tool"]
    assert "unknown tool 'rm_rf'" in results[0] and "read_file" in results[0]
    assert "not valid JSON" in results[1]


def test_api_error_mid_run_fails_and_keeps_worktree_and_branch(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    turns = [
        {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)]},
        {"error": {"status": 500, "times": -1, "message": "upstream exploded"}},
    ]
    code = run_task(repo, scripted_server(turns), "--json")
    summary = json_lines(capsys.readouterr().out)[-1]
    assert code == ExitCode.PLANNER_FAILED
    assert summary["status"] == "failed" and "500" in summary["error"]
    assert Path(summary["worktree"]).is_dir()
    # The edit that reached the worktree is committed on the branch, not lost.
    assert '"hello "' in git(repo, "show", f"{summary['branch']}:app.py")
    with store_of(repo) as store:
        agent = store.agent(summary["agent"])
        assert agent is not None and agent["state"] == "failed"
        assert any(c["error"] for c in store.planner_calls(summary["agent"]))


def test_step_budget_exhausted(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_task(repo, scripted_server(EDIT_TURNS), "--max-steps", "1", "--json")
    summary = json_lines(capsys.readouterr().out)[-1]
    assert code == ExitCode.BUDGET_EXHAUSTED
    assert summary["status"] == "budget_exhausted" and "step budget" in summary["error"]


def test_agent_that_gives_up(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_task(repo, scripted_server([finish("cannot be done here", "gave_up")]), "--json")
    summary = json_lines(capsys.readouterr().out)[-1]
    assert code == ExitCode.AGENT_GAVE_UP and summary["status"] == "gave_up"


def test_log_shows_the_transcript_from_the_store(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    run_task(repo, scripted_server(EDIT_TURNS), "--quiet")
    capsys.readouterr()
    assert main(["log", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    for needle in (
        "--- system",
        "--- user",
        "Task: say hello",
        "-> read_file",
        "-> edit_file",
        "[apply app.py",
        "merged",
        "--- tool",
    ):
        assert needle in out, needle
    assert main(["log", "nosuchagent", "--repo", str(repo)]) == ExitCode.BAD_ARGS


def test_failed_setup_exits_failed_and_log_shows_its_output(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ".cursorish").mkdir()
    setup = 'setup = "echo resolving packages; echo no such package: lefpad >&2; exit 3"\n'
    (repo / ".cursorish" / "worktrees.toml").write_text(setup)
    trust_repo(repo)
    code = run_task(repo, scripted_server(EDIT_TURNS), "--json")
    summary = json_lines(capsys.readouterr().out)[-1]
    assert code == ExitCode.WORKTREE and summary["status"] == "failed"
    assert "exited with code 3" in summary["error"] and "lefpad" in summary["error"]
    assert main(["log", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "--- worktree setup output\nresolving packages" in out
    assert "--- ended failed: worktree setup command" in out


def test_config_command_shows_sources_and_hides_secrets(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / ".cursorish").mkdir()
    (repo / ".cursorish" / "config.toml").write_text('planner = "anthropic/claude-sonnet-4-5"\n')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-should-not-print")
    monkeypatch.setenv("CURSORISH_MAX_STEPS", "7")
    assert main(["config", "--repo", str(repo), "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert data["planner"]["value"] == "anthropic/claude-sonnet-4-5"
    assert data["planner"]["source"].endswith(".cursorish/config.toml")
    assert data["max_steps"] == {"value": "7", "source": "$CURSORISH_MAX_STEPS"}
    assert data["OPENAI_API_KEY"]["value"] == "set"
    assert "sk-secret" not in out


def test_version_is_fast_path_without_heavy_imports() -> None:
    code = (
        "import sys; from cursorish.cli import main; "
        "rc = main(['--version']) if False else 0; "
        "import cursorish.cli; "
        "print(sorted(m for m in ('litellm','llama_cpp','textual','git','sqlite_utils') "
        "if m in sys.modules))"
    )
    done = subprocess.run(["python", "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def _agent_branches(repo: Path) -> str:
    return git(repo, "branch", "--list", "cursorish/*") + git(repo, "worktree", "list")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--max-steps", "0"], "--max-steps: 0 is too small"),
        (["--max-tokens", "-5"], "--max-tokens: -5 is too small"),
        (["--max-cost", "nan"], "--max-cost: 'nan' is not a finite number"),
        (["--max-time", "inf"], "--max-time: 'inf' is not a finite number"),
        (["--max-time", "-1"], "--max-time: -1 is too small: give more than 0"),
        (["--concurrency", "0"], "--concurrency: 0 is too small"),
        (["--agents", "-2"], "--agents: -2 is too small"),
    ],
)
def test_bad_numbers_exit_2_before_any_worktree_is_made(
    repo: Path,
    scripted_server: ServerFactory,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    message: str,
) -> None:
    server = scripted_server(EDIT_TURNS)
    before = _agent_branches(repo)
    assert run_task(repo, server, *flags) == ExitCode.BAD_ARGS
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert _agent_branches(repo) == before and server.requests == []


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("file", "not UTF-8 text"),
        ("env", "$CURSORISH_MAX_COST: max_cost_usd must be a finite number"),
    ],
)
def test_bad_configuration_exits_8_before_any_worktree_is_made(
    repo: Path,
    scripted_server: ServerFactory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    setup: str,
    message: str,
) -> None:
    if setup == "file":
        (repo / ".cursorish").mkdir()
        (repo / ".cursorish" / "config.toml").write_bytes(b'profile = "d\xe9faut"\n')
    else:
        monkeypatch.setenv("CURSORISH_MAX_COST", "NaN")
    server = scripted_server(EDIT_TURNS)
    before = _agent_branches(repo)
    assert run_task(repo, server) == ExitCode.CONFIG
    assert message in capsys.readouterr().err
    assert _agent_branches(repo) == before and server.requests == []


def test_a_planner_answer_cut_off_every_time_exits_5_and_is_never_acted_on(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each attempt streams a complete-looking tool call, then the connection drops before the
    # finish reason: acting on it would edit app.py with whatever part of the answer came.
    turns = [
        {
            "tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)],
            "cut": {"how": "no_finish", "times": -1},
        }
    ]
    server = scripted_server(turns)
    code = run_task(repo, server, "--json")
    summary = json_lines(capsys.readouterr().out)[-1]
    assert code == ExitCode.PLANNER_FAILED
    assert summary["status"] == "failed" and "ended without a finish reason" in summary["error"]
    assert len(server.requests) == 2  # one retry (the one_retry fixture), then the error
    assert git(repo, "show", f"{summary['branch']}:app.py") == APP


HOSTILE = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\rfake \u202eevil"
SHOWN = "\\e]52;c;cHduZWQ=\\x07\\e[2J\\rfake \\u202eevil"


def test_planner_and_file_text_is_shown_escaped_in_the_output_and_the_log(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "notes.txt").write_text(f"title {HOSTILE}\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-q", "-m", "a file with escape sequences")
    turns = [
        {"content": f"thinking {HOSTILE}", "tool_calls": [call("read_file", path="notes.txt")]},
        {"tool_calls": [call("read_file", path=f"gone {HOSTILE}")]},  # fails: shown as a result
        {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)]},
        finish(f"done {HOSTILE}"),
    ]
    assert run_task(repo, scripted_server(turns), task=f"say hello {HOSTILE}") == 0
    captured = capsys.readouterr()
    printed = captured.out + captured.err
    assert SHOWN in printed and "\x1b" not in printed and "\r" not in printed
    assert main(["log", "--repo", str(repo)]) == 0
    log = capsys.readouterr().out
    assert f"thinking {SHOWN}" in log and "title \\e]52;c;cHduZWQ=\\x07" in log
    assert not any(c in log for c in "\x1b\x07\r\u202e")


def test_an_internal_error_inside_an_agent_exits_1_and_saves_its_traceback(
    repo: Path,
    scripted_server: ServerFactory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    isolated_env: Path,
) -> None:
    from cursorish.core.tools import ToolBox

    real_target = ToolBox.target

    def buggy(box: ToolBox, name: str, arguments: str) -> str:  # a bug in the loop, after
        if "bye" in arguments:  # the first edit (the agent loop asks for the call's target)
            raise RuntimeError("planted bug")
        return str(real_target(box, name, arguments))

    monkeypatch.setattr(ToolBox, "target", buggy)
    turns = [
        {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)]},
        {"tool_calls": [call("read_file", path="bye")]},
        finish(),
    ]
    code = run_task(repo, scripted_server(turns), "--json")
    summary = json_lines(capsys.readouterr().out)[-1]
    assert code == ExitCode.INTERNAL and summary["exit_code"] == ExitCode.INTERNAL
    assert summary["status"] == "failed" and "RuntimeError('planted bug')" in summary["error"]
    (crash,) = (isolated_env / "crashes").iterdir()
    assert str(crash) in summary["error"]
    text = crash.read_text()
    assert f"agent {summary['agent']}: say hello" in text
    assert "Traceback" in text and "RuntimeError: planted bug" in text and "buggy" in text
    # What the agent did before the bug is committed on its branch, not lost.
    assert '"hello "' in git(repo, "show", f"{summary['branch']}:app.py")


NAME_EDIT = "<<<<<<< SEARCH\nNAME = 1\n=======\nNAME = 2\n>>>>>>> REPLACE\n"


def test_names_and_bytes_that_are_not_utf8_never_fail_the_agent_or_the_review(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    latin = b"def f():\n    return 'caf\xe9'\n\n\ndef g():\n    return 1\n"
    (repo / os.fsdecode(b"caf\xe9.py")).write_bytes(b"NAME = 1\n")
    (repo / "latin.py").write_bytes(latin)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "names and bytes that are not UTF-8")
    turns = [
        {"tool_calls": [call("list_files")]},
        {"tool_calls": [call("grep", pattern="NAME|caf")]},
        {"tool_calls": [call("read_file", path="caf\\xe9.py")]},
        {"tool_calls": [call("edit_file", path="caf\\xe9.py", sketch=NAME_EDIT)]},
        {"tool_calls": [call("edit_file", path="latin.py", sketch="def g():\n    return 2\n")]},
        {"tool_calls": [call("create_file", path="new\\xff.txt", content="made\n")]},
        finish(),
    ]
    server = scripted_server(turns)
    code = run_task(repo, server, "--json")
    summary = json_lines(capsys.readouterr().out)[-1]
    assert code == 0, summary
    branch = summary["branch"]
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", "-z", branch],
        cwd=repo,
        capture_output=True,
        check=True,
    )
    assert listed.stdout.split(b"\0")[2:5] == [b"caf\xe9.py", b"latin.py", b"new\xff.txt"]
    show = subprocess.run(
        ["git", "show", f"{branch}:latin.py"], cwd=repo, capture_output=True, check=True
    )
    assert show.stdout == latin.replace(b"return 1", b"return 2")  # the 0xe9 byte kept
    raw = subprocess.run(
        ["git", "show", b"%s:caf\xe9.py" % branch.encode()],
        cwd=repo,
        capture_output=True,
        check=True,
    )
    assert raw.stdout == b"NAME = 2\n"
    requests = json.dumps(server.requests)  # what the planner saw: the bytes as \xHH
    assert "caf\\\\xe9.py" in requests and "\\udce9" not in requests
    for argv in (["review", branch, "--list"], ["branches"], ["log"]):
        assert main([*argv, "--repo", str(repo)]) == 0, argv
    listing = capsys.readouterr().out
    assert "caf\\xe9.py" in listing and "new\\xff.txt" in listing


def test_a_task_that_is_not_utf8_exits_2_before_any_worktree_is_made(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    server = scripted_server(EDIT_TURNS)
    before = _agent_branches(repo)
    task = os.fsdecode(b"say caf\xe9")  # how Python gets such an argument from the shell
    assert run_task(repo, server, task=task) == ExitCode.BAD_ARGS
    assert "--task is not UTF-8 text (byte 0xe9 at character 7)" in capsys.readouterr().err
    assert _agent_branches(repo) == before and server.requests == []
