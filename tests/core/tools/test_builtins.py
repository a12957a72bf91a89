"""The agent tools against a real agent worktree (git worktree add of a real repository)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.core.tools import ToolBox, ToolContext, ToolResult
from cursorish.core.tools.builtins.read_file import MAX_READ_LINES
from cursorish.gitops.repo import open_repo
from cursorish.gitops.worktrees import create_worktree

MakeRepo = Callable[..., Path]


@pytest.fixture
def worktree(tmp_path: Path, make_repo: MakeRepo) -> Path:
    big = "".join(f"line {i}\n" for i in range(1, 3001))
    root = make_repo(
        tmp_path,
        {
            "app.py": "def main():\n    return 0\n",
            "big.txt": big,
            "pkg/mod.py": "VALUE = 1\n",
            ".gitignore": "secret.env\nbuild/\n",
        },
    )
    (root / "secret.env").write_text("KEY=1\n")
    repo = open_repo(root)
    dest = tmp_path / "wt"
    create_worktree(repo, agent_id="t00001", base_commit=repo.head_commit, dest=dest)
    (dest / "build").mkdir()
    (dest / "build" / "out.py").write_text("generated\n")
    (dest / "secret.env").write_text("KEY=2\n")
    return dest


def box(root: Path, **ctx: object) -> ToolBox:
    return ToolBox(ToolContext(root=root, agent_id="t00001", **ctx))  # type: ignore[arg-type]


def run(tb: ToolBox, name: str, **args: object) -> ToolResult:
    return tb.call(name, json.dumps(args))


def test_read_file_whole_and_ranges(worktree: Path) -> None:
    tb = box(worktree)
    assert run(tb, "read_file", path="app.py").text.startswith("app.py (lines 1-2 of 2)")
    part = run(tb, "read_file", path="big.txt", start_line=10, end_line=12)
    assert part.text.splitlines() == [
        "big.txt (lines 10-12 of 3000)",
        "line 10",
        "line 11",
        "line 12",
    ]
    whole = run(tb, "read_file", path="big.txt")
    assert f"more follows: read_file with start_line={MAX_READ_LINES + 1}" in whole.text
    assert len(whole.text.splitlines()) == MAX_READ_LINES + 1
    past = run(tb, "read_file", path="big.txt", start_line=5000)
    assert not past.ok and "3000 lines" in past.text
    bad = run(tb, "read_file", path="big.txt", start_line="ten")
    assert not bad.ok and "integers" in bad.text


def test_list_files_respects_gitignore(worktree: Path) -> None:
    tb = box(worktree)
    listed = run(tb, "list_files").text.splitlines()
    assert "app.py" in listed and "pkg/mod.py" in listed
    assert "secret.env" not in listed and "build/out.py" not in listed
    assert run(tb, "list_files", directory="pkg").text == "pkg/mod.py"
    assert run(tb, "list_files", glob="*.py").text.splitlines() == ["app.py", "pkg/mod.py"]


def test_grep_finds_and_skips_ignored(worktree: Path) -> None:
    tb = box(worktree)
    assert run(tb, "grep", pattern="VALUE").text == "pkg/mod.py:1: VALUE = 1"
    assert run(tb, "grep", pattern="KEY").text == "no matches"  # secret.env is ignored
    assert run(tb, "grep", pattern="line 2999$").text == "big.txt:2999: line 2999"
    assert run(tb, "grep", pattern="^line 3000", glob="*.txt").text == "big.txt:3000: line 3000"
    bad = run(tb, "grep", pattern="(")
    assert not bad.ok and "invalid regular expression" in bad.text


def test_edit_file_applies_and_reports_refusals(worktree: Path) -> None:
    tb = box(worktree, apply_engine="deterministic")
    ok = run(tb, "edit_file", path="app.py", sketch="def main():\n    return 1\n")
    assert ok.ok and ok.changed_path == "app.py"
    assert (worktree / "app.py").read_text() == "def main():\n    return 1\n"
    before = (worktree / "big.txt").read_text()
    refused = run(
        tb,
        "edit_file",
        path="big.txt",
        sketch="line 5\nNEW\n# ... existing code ...\nline 5\nNEW2\n",
    )
    assert not refused.ok and "refused" in refused.text and "unchanged" in refused.text
    assert (worktree / "big.txt").read_text() == before
    missing = run(tb, "edit_file", path="nope.py", sketch="x")
    assert not missing.ok and "use create_file" in missing.text


def test_create_and_delete_file(worktree: Path) -> None:
    tb = box(worktree)
    made = run(tb, "create_file", path="new/dir/x.py", content="X = 1\n")
    assert made.ok and (worktree / "new/dir/x.py").read_text() == "X = 1\n"
    again = run(tb, "create_file", path="new/dir/x.py", content="")
    assert not again.ok and "already exists" in again.text
    gone = run(tb, "delete_file", path="new/dir/x.py")
    assert gone.ok and not (worktree / "new/dir/x.py").exists()
    assert not run(tb, "delete_file", path="new/dir/x.py").ok


def test_run_command_policies(worktree: Path) -> None:
    allow = box(worktree, command_allowlist=("ls",))
    listed = run(allow, "run_command", command="ls")
    assert listed.ok and listed.exit_code == 0 and "app.py" in listed.text
    refused = run(allow, "run_command", command="rm -rf pkg")
    assert not refused.ok and "not in the headless allowlist" in refused.text
    assert (worktree / "pkg/mod.py").exists()
    piped = run(allow, "run_command", command="ls | wc")
    assert not piped.ok and "shell syntax" in piped.text
    denied = run(box(worktree, command_policy="deny"), "run_command", command="ls")
    assert not denied.ok and "disabled by policy" in denied.text
    asked: list[str] = []

    def no(command: str) -> bool:
        asked.append(command)
        return False

    refused_by_user = run(box(worktree, command_policy="ask", ask=no), "run_command", command="ls")
    assert asked == ["ls"] and not refused_by_user.ok and "did not allow" in refused_by_user.text


def test_run_command_runs_in_the_worktree_with_timeout_and_cap(worktree: Path) -> None:
    tb = box(worktree, command_policy="allow", command_timeout_s=1.0)
    pwd = run(tb, "run_command", command="pwd")
    assert str(worktree.resolve()) in pwd.text
    started = time.monotonic()
    slow = run(tb, "run_command", command="sleep 30")
    assert not slow.ok and "timed out" in slow.text and time.monotonic() - started < 10
    loud = run(tb, "run_command", command="yes | head -c 300000")
    assert "output truncated" in loud.text and len(loud.text) < 30_000
    failing = run(tb, "run_command", command="exit 3")
    assert not failing.ok and failing.exit_code == 3


def test_tool_errors_are_results(worktree: Path) -> None:
    tb = box(worktree)
    assert "not valid JSON" in tb.call("read_file", "{not json").text
    assert "unknown tool" in tb.call("explode", "{}").text
    assert "must be a JSON object" in tb.call("read_file", "[1]").text
    assert "must be a string" in run(tb, "read_file", path=5).text
    assert "must be a non-empty string" in run(tb, "run_command", command="").text
    restricted = ToolBox(ToolContext(root=worktree, agent_id="x"), ("read_file", "finish"))
    assert "unknown tool 'edit_file'" in run(restricted, "edit_file", path="a", sketch="b").text


def test_finish(worktree: Path) -> None:
    tb = box(worktree)
    done = run(tb, "finish", summary="ok")
    assert done.finished and done.finish_status == "done" and done.summary == "ok"
    assert run(tb, "finish", summary="no", status="gave_up").finish_status == "gave_up"
    assert not run(tb, "finish", summary="?", status="maybe").ok


def test_write_tools_refuse_paths_git_refuses_with_the_reason(worktree: Path) -> None:
    tb = box(worktree)
    for name in (".GIT/config", "pkg/git~1/x", ".git./hooks/post-commit", ".git /x"):
        result = run(tb, "create_file", path=name, content="planted\n")
        assert not result.ok and "git refuses this path" in result.text, result.text
        assert not (worktree / name).exists()


def test_write_tools_refuse_a_submodule_and_a_nested_repository(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    from tests.conftest import git

    lib = make_repo(tmp_path / "lib", {"lib.py": "X = 1\n"})
    root = make_repo(tmp_path / "main", {"app.py": "A = 1\n"})
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    git(root, "commit", "-q", "-m", "submodule")
    repo = open_repo(root)
    dest = tmp_path / "wt"
    create_worktree(repo, agent_id="t00002", base_commit=repo.head_commit, dest=dest)
    (dest / "nested" / ".git").mkdir(parents=True)  # a repository a command cloned
    tb = box(dest)
    # The submodule's directory is there, empty: a file written in it would never be committed.
    refused = run(tb, "create_file", path="vendor/lib/lib2.py", content="Y = 2\n")
    assert not refused.ok and "inside the submodule vendor/lib/" in refused.text
    assert not (dest / "vendor" / "lib" / "lib2.py").exists()
    nested = run(tb, "create_file", path="nested/x.py", content="Y = 2\n")
    assert not nested.ok and "nested git repository" in nested.text
    assert run(tb, "create_file", path="vendor/notes.txt", content="ok\n").ok


LATIN1 = b"def f():\n    return 'caf\xe9'\n\n\ndef g():\n    return 1\n"


def test_a_file_name_that_is_not_utf8_is_listed_searched_and_read_as_escaped_bytes(
    worktree: Path,
) -> None:
    (worktree / os.fsdecode(b"caf\xe9.py")).write_bytes(b"NAME = 1\n")
    tb = box(worktree)
    results = [
        run(tb, "list_files", glob="*.py"),
        run(tb, "grep", pattern="NAME = "),
        run(tb, "read_file", path="caf\\xe9.py"),  # the escaped name names the byte again
    ]
    for result in results:
        assert result.ok, result.text
        result.text.encode("utf-8")  # valid UTF-8: it can go to the planner and the store
    assert "caf\\xe9.py" in results[0].text.splitlines()
    assert results[1].text == "caf\\xe9.py:1: NAME = 1"
    assert results[2].text == "caf\\xe9.py (lines 1-1 of 1)\nNAME = 1"


def test_bytes_that_are_not_utf8_near_an_edit_are_kept_or_the_edit_is_refused(
    worktree: Path,
) -> None:
    (worktree / "latin.py").write_bytes(LATIN1)
    tb = box(worktree)
    shown = run(tb, "read_file", path="latin.py")
    assert "return 'caf\ufffd'" in shown.text and "not UTF-8" in shown.text
    # A sketch that copies the line as the planner saw it would write U+FFFD over the byte.
    copied = run(tb, "edit_file", path="latin.py", sketch=shown.text.split("\n", 1)[1] + "# x\n")
    assert not copied.ok and "byte 0xe9 on line 2" in copied.text
    assert (worktree / "latin.py").read_bytes() == LATIN1
    # An edit that leaves that line out keeps it byte for byte.
    kept = run(tb, "edit_file", path="latin.py", sketch="def g():\n    return 2\n")
    assert kept.ok, kept.text
    assert (worktree / "latin.py").read_bytes() == LATIN1.replace(b"return 1", b"return 2")


def test_create_file_with_a_lone_surrogate_is_refused(worktree: Path) -> None:
    result = box(worktree).call("create_file", '{"path": "x.py", "content": "caf\\udce9"}')
    assert not result.ok and "not text" in result.text and not (worktree / "x.py").exists()


def test_a_cancel_stops_the_model_route_at_its_next_token(worktree: Path) -> None:
    from cursorish.core.tools.builtins.edit_file import ApplyProgress
    from cursorish.errors import CursorishError

    tb = box(worktree)
    progress = ApplyProgress(tb.ctx, "app.py")
    progress("def main")  # decoding goes on while nobody cancels
    tb.ctx.cancel.set()
    with pytest.raises(CursorishError, match="the edit was stopped"):
        progress("():")


def test_read_file_numbers_lines_as_grep_does(worktree: Path) -> None:
    # A form feed, a lone CR and U+2028 are inside lines, not line ends (str.splitlines()
    # would split at each and shift every later line number).
    (worktree / "odd.py").write_bytes("a = 1\x0c\nb = '\r'\nc = '\u2028'\r\nTARGET = 4\n".encode())
    tb = box(worktree)
    assert run(tb, "grep", pattern="TARGET").text == "odd.py:4: TARGET = 4"
    shown = run(tb, "read_file", path="odd.py", start_line=4, end_line=4).text
    assert shown == "odd.py (lines 4-4 of 4)\nTARGET = 4"
