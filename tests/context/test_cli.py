"""`cursorish context` and `cursorish eval locate` end to end on real repositories."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cursorish.cli import main
from cursorish.errors import ExitCode
from tests.conftest import create_repo, git

FILES = {
    "src/retry.py": "def retry_delay(attempt):\n    return 2 ** attempt\n",
    "src/client.py": (
        "from src.retry import retry_delay\n\n\nclass HttpClient:\n"
        "    def send(self, request):\n        return retry_delay(1)\n"
    ),
    "src/cookies.py": "def parse_cookie_header(value):\n    return value.split(';')\n",
    "tests/test_retry.py": "from src.retry import retry_delay\n\n\ndef test_delay():\n"
    "    assert retry_delay(0) == 1\n",
}


def test_context_prints_ranked_files_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = create_repo(tmp_path / "repo", FILES)
    assert main(["context", "retry delay", "--repo", str(repo), "--k", "2"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith(" 1. src/retry.py") and "bm25" in first
    assert main(["context", "parse cookie header", "--repo", str(repo), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["results"][0]["path"] == "src/cookies.py"
    assert data["results"][0]["lines"][0] == {
        "line": 1,
        "text": "def parse_cookie_header(value):",
    }


def test_context_outside_a_repository_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["context", "anything", "--repo", str(tmp_path)])
    assert code != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip()


def test_eval_locate_scores_cases_from_a_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = create_repo(tmp_path / "repo", FILES)
    parent = git(repo, "rev-parse", "HEAD").strip()
    (repo / "src" / "cookies.py").write_text("def parse_cookie_header(value):\n    return []\n")
    git(repo, "commit", "-qam", "Fix cookie header parsing")
    commit = git(repo, "rev-parse", "HEAD").strip()
    bundle = tmp_path / "data" / "repo.bundle"
    bundle.parent.mkdir()
    subprocess.run(["git", "bundle", "create", str(bundle), "HEAD"], cwd=repo, check=True)
    cases = tmp_path / "data" / "cases.jsonl"
    case = {
        "id": "c1",
        "repo": "r",
        "commit": commit,
        "parent": parent,
        "task": "Fix cookie header parsing",
        "gold": ["src/cookies.py"],
        "bundle": "repo.bundle",
    }
    cases.write_text(json.dumps(case) + "\n")
    assert main(["eval", "locate", str(cases), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["id"] == "c1" and lines[0]["recall@1"] == 1.0
    summary = lines[-1]["summary"]
    assert summary["recall@5"] == 1.0 and summary["hit@5"] == 1.0
    assert {"query_p95_ms", "index_s", "bm25_recall@5"} <= set(summary)


def test_eval_locate_rejects_a_bad_case_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "x"}\n')
    assert main(["eval", "locate", str(cases)]) == ExitCode.BAD_ARGS
    assert "missing 'bundle'" in capsys.readouterr().err
