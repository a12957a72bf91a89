"""The review engine without a front end (core/review/: resolve, branches, compare,
merge_policy, feedback) on real repositories and a real store: what review_cli prints and the
app shows is computed here."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cursorish.core.review import ReviewSession, resolve_branch
from cursorish.core.review.branches import list_branches
from cursorish.core.review.compare import compare_json, sides
from cursorish.core.review.feedback import revise_callback
from cursorish.core.review.merge_policy import check_reviewed, merge_reviewed
from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.merge import MergeRefused
from cursorish.gitops.repo import RepoInfo, open_repo
from cursorish.store.db import Store
from tests.conftest import git
from tests.core.agent_helpers import finished_agent

APP = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(6))
CHANGED = APP.replace("return 1\n", "return 100\n", 1)


@pytest.fixture
def repo(tmp_path: Path, make_repo: Callable[..., Path]) -> RepoInfo:
    return open_repo(make_repo(tmp_path, {"app.py": APP}))


@pytest.fixture
def store(repo: RepoInfo) -> Iterator[Store]:
    with Store.for_repo(repo.git_common_dir) as s:
        yield s


def agent(repo: RepoInfo, store: Store, agent_id: str, **fields: Any) -> dict[str, Any]:
    return finished_agent(repo, store, agent_id, {"app.py": CHANGED}, **fields)


def test_resolve_names_a_branch_an_agent_prefix_or_the_latest(repo: RepoInfo, store: Store) -> None:
    agent(repo, store, "a1b2c3")
    assert resolve_branch(repo, store, "a1b")[0] == "cursorish/a1b2c3"
    assert resolve_branch(repo, store, "refs/heads/cursorish/a1b2c3")[1] is not None
    assert resolve_branch(repo, store, None)[0] == "cursorish/a1b2c3"
    with pytest.raises(CursorishError, match="no branch or agent 'zzz'") as info:
        resolve_branch(repo, store, "zzz")
    assert info.value.exit_code == ExitCode.BAD_ARGS


def test_merge_policy_refuses_until_a_review_is_committed_then_merges(
    repo: RepoInfo, store: Store
) -> None:
    row = agent(repo, store, "a1b2c3")
    head = git(repo.root, "rev-parse", "HEAD").strip()
    with pytest.raises(MergeRefused, match="never reviewed"):
        merge_reviewed(repo, store, "a1b2c3", squash=False, title=None)
    session = ReviewSession.open(repo, store, "a1b2c3")
    session.accept_all()
    with pytest.raises(MergeRefused, match="not committed yet"):
        check_reviewed(repo, store, "cursorish/a1b2c3")
    assert git(repo.root, "rev-parse", "HEAD").strip() == head  # refusals change nothing
    session.commit()
    done = merge_reviewed(repo, store, "a1b2c3", squash=True, title="f1 returns 100")
    assert (done.branch, done.plan.squash) == ("cursorish/a1b2c3", True)
    assert git(repo.root, "rev-parse", "HEAD").strip() == done.sha
    assert (repo.root / "app.py").read_text() == CHANGED
    merged = [e for e in store.events(row["id"]) if e["kind"] == "merged"]
    assert [e["data"]["commit"] for e in merged] == [done.sha]


def test_branches_and_compare_read_git_and_the_store(repo: RepoInfo, store: Store) -> None:
    agent(repo, store, "aaaaaa", tests_run=2, tests_passed=2)
    agent(repo, store, "bbbbbb")
    views = {v.branch: v for v in list_branches(repo, store)}
    assert set(views) == {"cursorish/aaaaaa", "cursorish/bbbbbb"}
    assert (views["cursorish/aaaaaa"].pending, views["cursorish/aaaaaa"].added) == (1, 1)
    a, b = sides(repo, store, "aaaaaa", "bbbbbb")
    data = compare_json(a, b)
    assert [(f["path"], f["same"]) for f in data["files"]] == [("app.py", True)]
    assert data["A"]["tests_passed"] == 2 and data["same_task"]
    with pytest.raises(CursorishError, match="are the same branch"):
        sides(repo, store, "aaaaaa", "cursorish/aaaaaa")


def test_feedback_needs_an_agent_and_a_planner(
    repo: RepoInfo, store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CURSORISH_PLANNER", raising=False)
    row = agent(repo, store, "a1b2c3", planner_model="")
    assert revise_callback(repo, store, None, warn=print) is None
    assert revise_callback(repo, store, row["id"], warn=print) is None  # no planner at all
    # The agent runs again with the planner it started with.
    other = agent(repo, store, "d4e5f6", planner_model="openai/scripted-planner")
    assert callable(revise_callback(repo, store, other["id"], warn=print))
