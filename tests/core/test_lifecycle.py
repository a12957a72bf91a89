"""Agent lifecycle outside a run: owners, interrupted detection, cancel, discard, gc."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.core import lifecycle
from cursorish.errors import CursorishError
from cursorish.gitops.repo import RepoInfo, branch_exists, open_repo
from cursorish.replay.scripted_server import ScriptedServer
from cursorish.store.db import Store
from cursorish.store.paths import worktrees_dir
from tests.conftest import git
from tests.core.agent_helpers import call, finish, run_tasks, settings_for

MakeRepo = Callable[..., Path]


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.fixture
def repo(tmp_path: Path, make_repo: MakeRepo) -> RepoInfo:
    return open_repo(make_repo(tmp_path, {"app.py": "X = 1\n"}))


@pytest.fixture
def store(repo: RepoInfo) -> Store:
    return Store.for_repo(repo.git_common_dir)


def _row(store: Store, repo: RepoInfo, agent_id: str, state: str, pid: int | None) -> None:
    task = store.create_task("t", str(repo.root))
    store.create_agent(
        agent_id=agent_id,
        task_id=task,
        profile="default",
        branch=f"cursorish/{agent_id}",
        worktree=str(worktrees_dir(repo.git_common_dir) / agent_id),
        base_commit=repo.head_commit,
        planner_model="m",
        apply_engine="auto",
        state=state,
    )
    start = lifecycle.process_start(pid) if pid else None
    store.update_agent(agent_id, pid=pid, owner_start=start)


def test_owner_alive() -> None:
    pid, start = lifecycle.owner_token()
    assert lifecycle.owner_alive(pid, start)
    assert not lifecycle.owner_alive(_dead_pid(), "123")
    assert not lifecycle.owner_alive(None, None)
    # A live pid whose start time differs is a recycled pid, not the owner.
    assert not lifecycle.owner_alive(os.getppid(), "1")


def test_dead_owner_means_interrupted(store: Store, repo: RepoInfo) -> None:
    _row(store, repo, "aaaaaa", "planning", _dead_pid())
    _row(store, repo, "bbbbbb", "planning", os.getpid())
    _row(store, repo, "cccccc", "done", _dead_pid())
    views = {v.id: v for v in lifecycle.list_agents(store)}
    assert views["aaaaaa"].state == "interrupted"
    assert views["bbbbbb"].state == "planning"
    assert views["cccccc"].state == "done"
    row = store.agent("aaaaaa")
    assert row is not None and row["state"] == "interrupted"  # recorded, not only shown
    assert "resume" in row["error"]


def test_cancel_without_owner_marks_cancelled(store: Store, repo: RepoInfo) -> None:
    _row(store, repo, "aaaaaa", "applying", _dead_pid())
    assert lifecycle.request_cancel(store, "aaa").how == "marked"
    row = store.agent("aaaaaa")
    assert row is not None and row["state"] == "cancelled" and row["cancel_requested"] == 1
    with pytest.raises(CursorishError, match="already ended"):
        lifecycle.request_cancel(store, "aaaaaa")
    with pytest.raises(CursorishError, match="no agent"):
        lifecycle.request_cancel(store, "zzzzzz")


def test_discard_removes_worktree_and_branch(repo: RepoInfo) -> None:
    script = [call("create_file", path="n.txt", content="n\n"), finish()]
    with ScriptedServer(script) as server:
        (report,), store = run_tasks(repo.root, ["t"], settings_for(server))
    assert Path(report.worktree).is_dir() and branch_exists(repo.root, report.branch)
    removed = lifecycle.discard(store, repo, report.agent_id)
    assert removed == [f"worktree {report.worktree}", f"branch {report.branch}"]
    assert not Path(report.worktree).exists() and not branch_exists(repo.root, report.branch)
    (view,) = lifecycle.list_agents(store)
    assert view.discarded and view.state == "done"
    assert lifecycle.gc(store, repo).removed == []


def test_discard_refuses_a_running_agent(store: Store, repo: RepoInfo) -> None:
    _row(store, repo, "aaaaaa", "planning", os.getpid())
    with pytest.raises(CursorishError, match="cancel it first"):
        lifecycle.discard(store, repo, "aaaaaa")


def test_gc_removes_orphans_and_keeps_live_work(store: Store, repo: RepoInfo) -> None:
    parent = worktrees_dir(repo.git_common_dir)
    root = repo.root
    # A git worktree in our folder with no agent in the store (its branch has no own commits).
    git(root, "worktree", "add", "-q", "-b", "cursorish/orphan", str(parent / "orphan"))
    # A worktree whose directory was deleted by hand: git keeps a stale record.
    git(root, "worktree", "add", "-q", "-b", "other", str(root.parent / "gone"))
    subprocess.run(["rm", "-rf", str(root.parent / "gone")], check=True)
    # A discarded agent whose removal never happened.
    _row(store, repo, "dddddd", "done", None)
    git(root, "worktree", "add", "-q", "-b", "cursorish/dddddd", str(parent / "dddddd"))
    store.update_agent("dddddd", discarded_at="2024-01-01T00:00:00+00:00")
    # An interrupted agent: kept.
    _row(store, repo, "iiiiii", "planning", _dead_pid())
    git(root, "worktree", "add", "-q", "-b", "cursorish/iiiiii", str(parent / "iiiiii"))

    dry = lifecycle.gc(store, repo, dry_run=True)
    assert all(line.startswith("would remove") for line in dry.removed)
    assert (parent / "orphan").exists() and (parent / "dddddd").exists()

    report = lifecycle.gc(store, repo)
    text = "\n".join(report.removed)
    assert "worktree " + str(parent / "dddddd") in text and "branch cursorish/dddddd" in text
    assert str(parent / "orphan") in text and "branch cursorish/orphan" in text
    assert "stale record" in text
    assert not (parent / "orphan").exists() and not (parent / "dddddd").exists()
    assert not branch_exists(root, "cursorish/orphan")
    assert (parent / "iiiiii").is_dir() and branch_exists(root, "cursorish/iiiiii")
    assert "gone" not in git(root, "worktree", "list")
    assert lifecycle.gc(store, repo).removed == []


def test_gc_keeps_an_orphan_branch_with_its_own_commits(store: Store, repo: RepoInfo) -> None:
    parent = worktrees_dir(repo.git_common_dir)
    wt = parent / "ownwrk"
    git(repo.root, "worktree", "add", "-q", "-b", "cursorish/ownwrk", str(wt))
    (wt / "f.txt").write_text("work\n")
    git(wt, "add", "f.txt")
    git(wt, "commit", "-q", "-m", "work")
    report = lifecycle.gc(store, repo)
    assert not wt.exists()
    assert branch_exists(repo.root, "cursorish/ownwrk")
    assert any("kept branch cursorish/ownwrk" in k for k in report.kept)


def _agent_with_change(store: Store, repo: RepoInfo, agent_id: str) -> Path:
    from cursorish.gitops.agent_commits import commit_all
    from cursorish.gitops.worktrees import create_worktree

    _row(store, repo, agent_id, "done", None)
    wt = worktrees_dir(repo.git_common_dir) / agent_id
    create_worktree(repo, agent_id=agent_id, base_commit=repo.head_commit, dest=wt)
    (wt / "app.py").write_text("X = 2\n")
    commit_all(wt, "agent", private_index=True)
    return wt


def test_discard_removes_the_review_worktree_of_the_branch(store: Store, repo: RepoInfo) -> None:
    from cursorish.core.review import ReviewSession

    wt = _agent_with_change(store, repo, "eeeeee")
    git(repo.root, "worktree", "remove", "--force", str(wt))
    review_wt = ReviewSession.open(repo, store, "eeeeee").worktree
    assert review_wt.is_dir() and store.review("cursorish/eeeeee") is not None
    removed = lifecycle.discard(store, repo, "eeeeee")
    assert removed == [f"review worktree {review_wt.resolve()}", "branch cursorish/eeeeee"]
    assert not review_wt.exists() and not branch_exists(repo.root, "cursorish/eeeeee")
    assert store.review("cursorish/eeeeee") is None


def test_discard_forgets_a_review_in_the_agents_own_worktree(store: Store, repo: RepoInfo) -> None:
    from cursorish.core.review import ReviewSession

    wt = _agent_with_change(store, repo, "ffffff")
    assert ReviewSession.open(repo, store, "ffffff").worktree == wt
    assert lifecycle.discard(store, repo, "ffffff") == [
        f"worktree {wt}",
        "branch cursorish/ffffff",
    ]
    assert store.review("cursorish/ffffff") is None


def test_gc_keeps_live_reviews_and_removes_orphan_review_worktrees(
    store: Store, repo: RepoInfo
) -> None:
    from cursorish.core.review import ReviewSession

    parent = worktrees_dir(repo.git_common_dir)
    root = repo.root
    # A branch reviewed in its own review worktree: kept.
    git(root, "branch", "feature")
    feature = parent / "review-feature"
    git(root, "worktree", "add", "-q", str(feature), "feature")
    (feature / "app.py").write_text("X = 3\n")
    git(feature, "commit", "-q", "-am", "feature work")
    assert ReviewSession.open(repo, store, "feature").worktree == feature
    # A review worktree the store knows nothing about: removed (its branch stays).
    git(root, "branch", "lost")
    git(root, "worktree", "add", "-q", str(parent / "review-lost"), "lost")
    # A discarded agent whose review worktree was left behind: removed with its branch.
    wt = _agent_with_change(store, repo, "cccccc")
    git(root, "worktree", "remove", "--force", str(wt))
    review_wt = ReviewSession.open(repo, store, "cccccc").worktree
    store.update_agent("cccccc", discarded_at="2024-01-01T00:00:00+00:00")

    dry = lifecycle.gc(store, repo, dry_run=True)
    assert review_wt.exists() and (parent / "review-lost").exists()
    report = lifecycle.gc(store, repo)
    assert report.removed == [line.replace("would remove", "removed") for line in dry.removed]
    text = "\n".join(report.removed)
    assert f"review worktree {review_wt.resolve()} (agent cccccc was discarded)" in text
    assert "branch cursorish/cccccc" in text
    assert f"review worktree {(parent / 'review-lost').resolve()} (no review of lost" in text
    assert not review_wt.exists() and not (parent / "review-lost").exists()
    assert branch_exists(root, "lost") and not branch_exists(root, "cursorish/cccccc")
    assert feature.is_dir() and store.review("feature") is not None
    assert store.review("cursorish/cccccc") is None
    assert lifecycle.gc(store, repo).removed == []


def test_gc_collects_agents_whose_worktree_was_never_created(store: Store, repo: RepoInfo) -> None:
    parent = worktrees_dir(repo.git_common_dir)
    # Killed during `git worktree add`: a half-made directory, no branch, the owner gone.
    _row(store, repo, "aaaaaa", "provisioning", _dead_pid())
    (parent / "aaaaaa").mkdir(parents=True)
    (parent / "aaaaaa" / "app.py").write_text("X = 1\n")
    # Killed before the directory was made at all.
    _row(store, repo, "bbbbbb", "planning", _dead_pid())
    store.add_message("bbbbbb", {"role": "user", "content": "the task"})
    # Kept: an ended agent whose branch is its result (worktree gone), one still running, and a
    # discarded one (its row is the record of the discard).
    _row(store, repo, "cccccc", "done", None)
    git(repo.root, "branch", "cursorish/cccccc")
    _row(store, repo, "dddddd", "planning", os.getpid())
    _row(store, repo, "eeeeee", "done", None)
    store.update_agent("eeeeee", discarded_at="2024-01-01T00:00:00+00:00")

    dry = lifecycle.gc(store, repo, dry_run=True)
    assert sum("store record" in line for line in dry.removed) == 2
    assert store.agent("aaaaaa") is not None and store.agent("bbbbbb") is not None

    report = lifecycle.gc(store, repo)
    records = [line for line in report.removed if "store record" in line]
    assert len(records) == 2 and all("worktree was never created" in r for r in records)
    assert store.agent("aaaaaa") is None and store.agent("bbbbbb") is None
    assert store.messages("bbbbbb") == []  # its transcript went with it
    assert {v.id for v in lifecycle.list_agents(store)} == {"cccccc", "dddddd", "eeeeee"}
    assert lifecycle.gc(store, repo).removed == []


def test_gc_removes_sandbox_caches_of_discarded_and_unknown_agents(
    store: Store, repo: RepoInfo
) -> None:
    from cursorish.core.sandbox import default_cache_dir

    parent = worktrees_dir(repo.git_common_dir)
    _row(store, repo, "aaaaaa", "done", None)  # kept: its commands may run again
    git(repo.root, "worktree", "add", "-q", "-b", "cursorish/aaaaaa", str(parent / "aaaaaa"))
    _row(store, repo, "dddddd", "done", None)
    store.update_agent("dddddd", discarded_at="2024-01-01T00:00:00+00:00")
    caches = {name: default_cache_dir(parent / name) for name in ("aaaaaa", "dddddd", "ffffff")}
    for cache in caches.values():
        (cache / "pip").mkdir(parents=True)
        (cache / "pip" / "wheel").write_text("x")

    dry = lifecycle.gc(store, repo, dry_run=True)
    assert sum("sandbox cache" in line for line in dry.removed) == 2
    assert all(cache.is_dir() for cache in caches.values())

    text = "\n".join(lifecycle.gc(store, repo).removed)
    assert "agent dddddd was discarded" in text and "agent ffffff is not in the store" in text
    assert caches["aaaaaa"].is_dir()
    assert not caches["dddddd"].exists() and not caches["ffffff"].exists()
