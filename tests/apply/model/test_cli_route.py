"""`cursorish apply` and `cursorish eval apply` as a user runs them: the apply model comes from
the same configuration `cursorish config` shows (config files, CURSORISH_APPLY_*, flags), a
refusal of the deterministic merge falls to it with `--engine auto`, and a bad endpoint is one
line on stderr with exit code 3, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cursorish.cli import main
from cursorish.replay.scripted_server import ScriptedServer

ORIGINAL = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"
AMBIGUOUS = "# ... existing code ...\n    return 2\n# ... existing code ...\n"  # which function?
ANSWER = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"

pytestmark = pytest.mark.usefixtures("clean_router")


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory outside any repository holding a.py and its sketch; an empty user config."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("CURSORISH_HOME", str(tmp_path / "home"))
    (tmp_path / "config" / "cursorish").mkdir(parents=True)
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.py").write_text(ORIGINAL)
    (work / "sketch.txt").write_text(AMBIGUOUS)
    monkeypatch.chdir(work)
    return tmp_path


def _user_config(root: Path, text: str) -> None:
    (root / "config" / "cursorish" / "config.toml").write_text(text)


def test_the_user_config_backs_engine_auto(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer([{"content": f"<updated-code>{ANSWER}</updated-code>"}]) as server:
        _user_config(
            files,
            f'apply_api_base = "{server.base_url}"\n'
            'apply_remote_model = "Kortix/FastApply-7B-v1.0"\napply_remote_format = "fastapply"\n',
        )
        assert main(["apply", "a.py", "sketch.txt"]) == 0  # --engine defaults to the config's
        assert [r["model"] for r in server.requests] == ["Kortix/FastApply-7B-v1.0"]
    assert capsys.readouterr().out == ANSWER


def test_apply_engine_from_the_config_is_obeyed(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedServer([{"content": f"<updated-code>{ANSWER}</updated-code>"}]) as server:
        _user_config(
            files, f'apply_engine = "deterministic"\napply_api_base = "{server.base_url}"\n'
        )
        assert main(["apply", "a.py", "sketch.txt"]) == 3
        assert server.requests == []
        assert main(["apply", "a.py", "sketch.txt", "--engine", "auto"]) == 0  # the flag wins
        assert len(server.requests) == 1


def test_eval_apply_with_engine_auto_uses_the_configured_model(
    files: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    case = {"id": "g", "path": "a.py", "original": ORIGINAL, "sketch": AMBIGUOUS}
    (files / "cases.jsonl").write_text(json.dumps(case | {"expected": ANSWER}) + "\n")
    with ScriptedServer([{"content": ANSWER}]) as server:
        monkeypatch.setenv("CURSORISH_APPLY_API_BASE", server.base_url)
        monkeypatch.setenv("CURSORISH_APPLY_REMOTE_FORMAT", "morph")
        assert main(["eval", "apply", str(files / "cases.jsonl"), "--json"]) == 0
        assert server.requests == []  # eval's default engine is the deterministic merge
        assert main(["eval", "apply", str(files / "cases.jsonl"), "--engine", "auto"]) == 0
        assert len(server.requests) == 1
    assert "1 cases: 1 exact" in capsys.readouterr().out


def test_an_unreachable_endpoint_is_one_line_and_exit_3(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _user_config(files, 'apply_api_base = "http://127.0.0.1:1/v1"\n')
    assert main(["apply", "a.py", "sketch.txt"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("cursorish apply: refused (remote): deterministic merge: ")
    assert "; remote: remote apply model apply at http://127.0.0.1:1/v1 failed: cannot" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_format_nobody_knows_is_exit_8(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _user_config(files, 'apply_remote_format = "cursor-fast"\n')
    assert main(["apply", "a.py", "sketch.txt"]) == 8
    assert "known: fastapply, morph, relace, openai-predicted" in capsys.readouterr().err


def test_apply_timeout_s_bounds_the_wait(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer([{"content": ANSWER, "delay_s": 3}]) as server:
        _user_config(
            files,
            f'apply_api_base = "{server.base_url}"\napply_remote_format = "morph"\n'
            "apply_timeout_s = 0.5\n",
        )
        assert main(["apply", "a.py", "sketch.txt"]) == 3
    assert capsys.readouterr().err.endswith("failed: no answer within 0.5 s\n")
