"""`cursorish --task ... --base REF`: the agent starts from a branch, a tag or a remote-tracking
ref instead of HEAD; the base is stored and shown, and review and merge diff against it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cursorish.cli import main
from tests.conftest import ServerFactory, git, snapshot
from tests.scripted_turns import APP, SKETCH, call, finish
from tests.test_headless import json_lines, run_task, store_of

EDIT_TURNS: list[dict[str, Any]] = [
    {"tool_calls": [call("edit_file", path="app.py", sketch=SKETCH)]},
    finish(),
]
HELLO = APP.replace('"hi "', '"hello "')

pytestmark = pytest.mark.usefixtures("one_retry")


@pytest.fixture
def repo(tmp_path: Path, make_repo: Callable[..., Path]) -> Path:
    """main (HEAD) with README v2; `feature` adds feat.txt; tag v1 is the first commit;
    origin/remote-work (a remote-tracking ref only) adds remote.txt."""
    root = make_repo(tmp_path, {"app.py": APP, "README.md": "v1\n"})
    git(root, "tag", "v1")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "feat.txt").write_text("feature\n")
    git(root, "add", "feat.txt")
    git(root, "commit", "-qm", "feature work")
    git(root, "checkout", "-q", "main")
    (root / "README.md").write_text("v2\n")
    git(root, "commit", "-qam", "readme v2")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(root), str(origin))
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(origin), str(other))
    git(other, "checkout", "-q", "-b", "remote-work")
    (other / "remote.txt").write_text("from the remote\n")
    git(other, "add", "remote.txt")
    git(other, "commit", "-qm", "remote work")
    git(other, "push", "-q", "origin", "remote-work")
    git(root, "remote", "add", "origin", str(origin))
    git(root, "fetch", "-q", "origin")
    return root


@pytest.mark.parametrize(
    ("ref", "only_there"),
    [("feature", "feat.txt"), ("v1", None), ("origin/remote-work", "remote.txt")],
)
def test_task_starts_from_base_and_review_diffs_against_it(
    repo: Path,
    scripted_server: ServerFactory,
    capsys: pytest.CaptureFixture[str],
    ref: str,
    only_there: str | None,
) -> None:
    before = snapshot(repo)
    code = run_task(repo, scripted_server(EDIT_TURNS), "--base", ref, "--json")
    out = capsys.readouterr().out
    assert code == 0, out
    events = json_lines(out)
    summary = events[-1]
    base = git(repo, "rev-parse", f"{ref}^{{commit}}").strip()
    assert (summary["base_commit"], summary["base_ref"]) == (base, ref)
    queued = next(e for e in events if e.get("event") == "queued")
    assert (queued["base"], queued["base_ref"]) == (base, ref)
    branch = summary["branch"]
    assert git(repo, "rev-parse", f"{branch}~1").strip() == base
    assert git(repo, "show", f"{branch}:app.py") == HELLO
    readme = git(repo, "show", f"{branch}:README.md")
    assert readme == ("v1\n" if ref in ("feature", "v1") else "v2\n")
    if only_there:
        assert git(repo, "show", f"{branch}:{only_there}")
    with store_of(repo) as store:
        row = store.agent(summary["agent"])
        assert row is not None and (row["base_ref"], row["base_commit"]) == (ref, base)
    # Review shows the agent's change only, not what the base differs by from HEAD.
    assert main(["review", branch, "--list", "--json", "--repo", str(repo)]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in listing["files"]] == ["app.py"]
    assert main(["review", branch, "--accept-all", "--commit", "--repo", str(repo)]) == 0
    capsys.readouterr()
    assert snapshot(repo) == before  # the user's checkout was never touched


def test_text_report_shows_the_base(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_task(repo, scripted_server(EDIT_TURNS), "--base", "v1") == 0
    out = capsys.readouterr().out
    sha = git(repo, "rev-parse", "v1").strip()
    assert f"  base      v1 ({sha[:10]})" in out


def test_merge_of_a_branch_based_on_feature_brings_the_agent_change(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_task(repo, scripted_server(EDIT_TURNS), "--base", "feature", "--json") == 0
    branch = json_lines(capsys.readouterr().out)[-1]["branch"]
    assert main(["review", branch, "--accept-all", "--commit", "--repo", str(repo)]) == 0
    git(repo, "checkout", "-q", "feature")
    assert main(["merge", branch, "--repo", str(repo)]) == 0
    assert (repo / "app.py").read_text() == HELLO
    assert git(repo, "diff", "--name-only", "feature@{1}", "HEAD").split() == ["app.py"]


def test_unknown_base_is_a_clear_error_and_creates_nothing(
    repo: Path, scripted_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(EDIT_TURNS)
    assert run_task(repo, server, "--base", "no-such-branch") == 2
    err = capsys.readouterr().err
    assert "--base no-such-branch: no such commit" in err and "Traceback" not in err
    assert git(repo, "branch", "--list", "cursorish/*") == ""
    assert server.requests == []
