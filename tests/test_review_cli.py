"""`cursorish branches|review|merge|compare` through the real CLI: real git repositories, real
agent worktrees and branches, the real store and review engine."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cursorish.cli import main
from cursorish.errors import ExitCode
from cursorish.gitops.repo import open_repo
from cursorish.store.db import Store
from tests.conftest import ServerFactory, git, snapshot
from tests.core.agent_helpers import finished_agent

APP = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(12))
NOTES = "one\ntwo\nthree\n"


@pytest.fixture
def repo(tmp_path: Path, make_repo: Callable[..., Path]) -> Path:
    return make_repo(tmp_path, {"app.py": APP, "notes.txt": NOTES})


@pytest.fixture
def store(repo: Path) -> Iterator[Store]:
    s = Store.for_repo(open_repo(repo).git_common_dir)
    yield s
    s.close()


def make_agent(
    repo: Path,
    store: Store,
    agent_id: str,
    files: dict[str, str | None],
    *,
    task: str = "improve the app",
    task_id: int | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """An agent as the orchestrator leaves it: worktree, one commit on its branch, a store row."""
    return finished_agent(
        open_repo(repo), store, agent_id, files, task=task, task_id=task_id, **fields
    )


def edited(text: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert old in text
        text = text.replace(old, new, 1)
    return text


TWO_HUNKS = edited(APP, ("return 1\n", "return 100\n"), ("return 10\n", "return 1000\n"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def review_json(capsys: pytest.CaptureFixture[str], repo: Path, *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, "review", *argv, "--repo", str(repo), "--json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def hunk_ids(listing: dict[str, Any], state: str = "pending") -> list[str]:
    return [h["id"] for f in listing["files"] for h in f["hunks"] if h["state"] == state]


# -- compare ---------------------------------------------------------------------------------


@pytest.fixture
def two_agents(repo: Path, store: Store) -> tuple[dict[str, Any], dict[str, Any]]:
    task_id = store.create_task("make f1 return 100", str(repo))
    a = make_agent(
        repo,
        store,
        "aaaaaa",
        {"app.py": edited(APP, ("return 1\n", "return 100\n")), "notes.txt": NOTES + "four\n"},
        task_id=task_id,
        tests_run=3,
        tests_passed=3,
        prompt_tokens=1000,
        completion_tokens=200,
        cost_usd=0.0123,
        started_at="2025-01-01T00:00:00+00:00",
        finished_at="2025-01-01T00:00:42.5+00:00",
    )
    b = make_agent(
        repo,
        store,
        "bbbbbb",
        {"app.py": edited(APP, ("return 1\n", "return 100\n")), "new.py": "x = 1\n"},
        task_id=task_id,
        tests_run=3,
        tests_passed=1,
    )
    return a, b


def test_compare_json_sides_and_files(
    capsys: pytest.CaptureFixture[str], repo: Path, two_agents: tuple[dict[str, Any], ...]
) -> None:
    code, out, err = run(
        capsys, "compare", "aaa", "cursorish/bbbbbb", "--repo", str(repo), "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    a, b = data["A"], data["B"]
    assert (a["agent"], a["files"], a["added"], a["deleted"]) == ("aaaaaa", 2, 2, 1)
    assert (a["tests_run"], a["tests_passed"], a["tokens"], a["time_s"]) == (3, 3, 1200, 42.5)
    assert (b["agent"], b["branch"], b["tests_passed"], b["time_s"]) == (
        "bbbbbb",
        "cursorish/bbbbbb",
        1,
        None,
    )
    assert data["same_task"] is True
    files = {f["path"]: f for f in data["files"]}
    assert sorted(files) == ["app.py", "new.py", "notes.txt"]
    assert files["app.py"]["changed_by"] == ["A", "B"] and files["app.py"]["same"] is True
    assert files["notes.txt"]["changed_by"] == ["A"] and files["notes.txt"]["B"] is None
    assert files["new.py"]["changed_by"] == ["B"]
    assert files["new.py"]["B"]["hunks"][0]["lines"] == ["+x = 1"]


def test_compare_text_prints_table_then_files(
    capsys: pytest.CaptureFixture[str], repo: Path, two_agents: tuple[dict[str, Any], ...]
) -> None:
    code, out, _ = run(capsys, "compare", "aaaaaa", "bbbbbb", "--repo", str(repo), "--text")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "task: make f1 return 100"
    assert any(ln.startswith("tests passed/run") and "3/3" in ln and "1/3" in ln for ln in lines)
    assert "app.py  changed by A and B (same result)" in lines
    assert "notes.txt  changed by A" in lines
    assert "      +four" in lines


def test_compare_without_terminal_prints_text(
    capsys: pytest.CaptureFixture[str], repo: Path, two_agents: tuple[dict[str, Any], ...]
) -> None:
    code, out, _ = run(capsys, "compare", "aaaaaa", "bbbbbb", "--repo", str(repo))
    assert code == 0 and "changed by A and B" in out


def test_compare_notes_different_tasks(
    capsys: pytest.CaptureFixture[str], repo: Path, store: Store
) -> None:
    make_agent(repo, store, "cccccc", {"notes.txt": "x\n"}, task="one thing")
    make_agent(repo, store, "dddddd", {"notes.txt": "y\n"}, task="another")
    code, out, _ = run(capsys, "compare", "cccccc", "dddddd", "--repo", str(repo), "--text")
    assert code == 0 and "note: the two agents did not work on the same task" in out


def test_compare_refuses_unknown_and_same(
    capsys: pytest.CaptureFixture[str], repo: Path, two_agents: tuple[dict[str, Any], ...]
) -> None:
    code, _, err = run(capsys, "compare", "aaaaaa", "zzzz", "--repo", str(repo), "--text")
    assert code == ExitCode.BAD_ARGS and "no branch or agent 'zzzz'" in err
    code, _, err = run(capsys, "compare", "aaaaaa", "cursorish/aaaaaa", "--repo", str(repo))
    assert code == ExitCode.BAD_ARGS and "same branch" in err


# -- review ----------------------------------------------------------------------------------


@pytest.fixture
def agent(repo: Path, store: Store) -> dict[str, Any]:
    """An agent that changed two places of app.py and one of notes.txt: three hunks."""
    return make_agent(repo, store, "a1b2c3", {"app.py": TWO_HUNKS, "notes.txt": NOTES + "four\n"})


def test_review_list_json_shows_every_hunk_pending(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    listing = review_json(capsys, repo, "a1b2c3", "--list")
    assert listing["branch"] == "cursorish/a1b2c3" and listing["agent"] == "a1b2c3"
    assert [f["path"] for f in listing["files"]] == ["app.py", "notes.txt"]
    assert listing["counts"] == {"pending": 3, "accepted": 0, "rejected": 0}
    notes = listing["files"][1]["hunks"][0]
    assert notes["lines"][-1] == "+four" and len(notes["id"]) == 8


def test_review_without_options_and_without_terminal_lists(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    code, out, _ = run(capsys, "review", "--repo", str(repo))  # the latest agent
    assert code == 0
    assert out.startswith("review of cursorish/a1b2c3 (agent a1b2c3)")
    assert "3 pending, 0 accepted, 0 rejected" in out


def test_review_accept_by_prefix_then_reject_with_reason(
    capsys: pytest.CaptureFixture[str], repo: Path, store: Store, agent: dict[str, Any]
) -> None:
    first, second, third = hunk_ids(review_json(capsys, repo, "a1b2c3", "--list"))
    code, out, err = run(capsys, "review", "a1b2c3", "--repo", str(repo), "--accept", first[:5])
    assert code == 0, err
    assert out.splitlines()[0].startswith(f"accepted  {first}  app.py  @@")
    assert out.splitlines()[-1] == "2 pending, 1 accepted, 0 rejected"
    done = review_json(
        capsys, repo, "a1b2c3", "--reject", f"{second},{third}", "--reason", "keep f10 as it is"
    )
    assert [d["decision"] for d in done["decisions"]] == ["rejected", "rejected"]
    assert done["counts"] == {"pending": 0, "accepted": 1, "rejected": 2}
    rows = store.review_decisions("cursorish/a1b2c3")
    assert [(r["hunk_id"], r["decision"], r["reason"]) for r in rows] == [
        (first, "accepted", ""),
        (second, "rejected", "keep f10 as it is"),
        (third, "rejected", "keep f10 as it is"),
    ]


def test_unknown_id_changes_nothing(
    capsys: pytest.CaptureFixture[str], repo: Path, store: Store, agent: dict[str, Any]
) -> None:
    first = hunk_ids(review_json(capsys, repo, "a1b2c3", "--list"))[0]
    wt = Path(agent["worktree"])
    before = (snapshot_worktree(wt), git(wt, "rev-parse", "HEAD"))
    code, _, err = run(
        capsys, "review", "a1b2c3", "--repo", str(repo), "--accept", f"{first},ffffffff"
    )
    assert code == ExitCode.BAD_ARGS and "ffffffff" in err
    assert (snapshot_worktree(wt), git(wt, "rev-parse", "HEAD")) == before
    assert store.review_decisions("cursorish/a1b2c3") == []


def snapshot_worktree(wt: Path) -> tuple[str, str, str]:
    """Files and index of a review worktree, as git sees them."""
    return (
        git(wt, "--no-optional-locks", "diff"),
        git(wt, "--no-optional-locks", "diff", "--cached"),
        git(wt, "--no-optional-locks", "status", "--porcelain"),
    )


def test_reason_without_reject_is_refused(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    code, _, err = run(capsys, "review", "--repo", str(repo), "--accept-all", "--reason", "x")
    assert code == ExitCode.BAD_ARGS and "--reason goes with --reject" in err


def test_accept_all_and_commit_puts_everything_on_the_branch(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    tip = git(repo, "rev-parse", "cursorish/a1b2c3").strip()
    done = review_json(capsys, repo, "cursorish/a1b2c3", "--accept-all", "--commit")
    assert len(done["decisions"]) == 3 and done["commit"]
    assert done["counts"] == {"pending": 0, "accepted": 3, "rejected": 0}
    assert git(repo, "show", "cursorish/a1b2c3:app.py") == TWO_HUNKS
    # Everything was already on the branch: the review commit (if any) changes no file.
    assert git(repo, "diff", tip, "cursorish/a1b2c3") == ""


def fake_app(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """Stand-in for cursorish.tui.review_app (the app has its own pilot tests): records what
    the CLI opens, with stdout made to look like a terminal."""
    import sys
    import types

    opened: list[tuple[str, Any]] = []
    module = types.ModuleType("cursorish.tui.review_app")

    def run_review(session: Any, *, revise: Any = None) -> int:
        opened.append(("review", session))
        return 0

    def run_compare(a: Any, b: Any) -> int:
        opened.append(("compare", (a, b)))
        return 0

    module.run_review = run_review  # type: ignore[attr-defined]
    module.run_compare = run_compare  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cursorish.tui.review_app", module)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    return opened


def test_review_on_a_terminal_opens_the_app(
    repo: Path, agent: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = fake_app(monkeypatch)
    assert main(["review", "a1b2c3", "--repo", str(repo)]) == 0
    assert [(kind, s.branch) for kind, s in opened] == [("review", "cursorish/a1b2c3")]


def test_compare_on_a_terminal_opens_the_app(
    repo: Path, two_agents: tuple[dict[str, Any], ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = fake_app(monkeypatch)
    assert main(["compare", "aaaaaa", "bbbbbb", "--repo", str(repo)]) == 0
    [(kind, (a, b))] = opened
    assert (kind, a.branch, b.branch) == ("compare", "cursorish/aaaaaa", "cursorish/bbbbbb")
    opened.clear()
    assert main(["compare", "aaaaaa", "bbbbbb", "--repo", str(repo), "--text"]) == 0
    assert opened == []


def test_reject_one_and_accept_the_rest(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    _, second, _ = hunk_ids(review_json(capsys, repo, "a1b2c3", "--list"))
    done = review_json(capsys, repo, "a1b2c3", "--reject", second, "--accept-all", "--commit")
    assert [d["decision"] for d in done["decisions"]] == ["rejected", "accepted", "accepted"]
    assert git(repo, "show", "cursorish/a1b2c3:app.py") == edited(
        APP, ("return 1\n", "return 100\n")
    )


def test_conflicting_or_empty_options_are_refused(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    first = hunk_ids(review_json(capsys, repo, "a1b2c3", "--list"))[0]
    for argv, needle in (
        (["--accept", first, "--reject", first[:6]], "given to both --accept and --reject"),
        (["--accept", ","], "--accept needs hunk ids"),
        (["--accept", ""], "--accept needs hunk ids"),
        (["--reject", " "], "--reject needs hunk ids"),
        (["--list", "--commit"], "--list only prints"),
    ):
        code, _, err = run(capsys, "review", "a1b2c3", "--repo", str(repo), *argv)
        assert code == ExitCode.BAD_ARGS and needle in err, argv
    assert review_json(capsys, repo, "a1b2c3", "--list")["counts"]["pending"] == 3


# -- merge -----------------------------------------------------------------------------------


def merge(capsys: pytest.CaptureFixture[str], repo: Path, *argv: str) -> tuple[int, str, str]:
    return run(capsys, "merge", *argv, "--repo", str(repo))


def refused_merge(capsys: pytest.CaptureFixture[str], repo: Path, *argv: str) -> str:
    before = snapshot(repo)
    code, _, err = merge(capsys, repo, *argv)
    assert code == ExitCode.BAD_ARGS
    assert snapshot(repo) == before
    return err


def test_merge_refuses_a_branch_never_reviewed(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    err = refused_merge(capsys, repo, "a1b2c3")
    assert "never reviewed" in err
    assert "cursorish review cursorish/a1b2c3 --accept-all --commit" in err


def test_merge_refuses_uncommitted_decisions(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    first, second, _ = hunk_ids(review_json(capsys, repo, "a1b2c3", "--list"))
    review_json(capsys, repo, "a1b2c3", "--reject", first)
    assert "nothing was accepted in the review" in refused_merge(capsys, repo, "a1b2c3")
    review_json(capsys, repo, "a1b2c3", "--accept", second)
    err = refused_merge(capsys, repo, "a1b2c3")
    assert "decisions not committed yet (2 file(s): app.py, notes.txt)" in err
    assert "cursorish review cursorish/a1b2c3 --commit" in err


def test_merge_refuses_accept_all_without_commit(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    # The accepted tree equals the tip here, but no review commit says so: still refused.
    review_json(capsys, repo, "a1b2c3", "--accept-all")
    assert "decisions not committed yet" in refused_merge(capsys, repo, "a1b2c3")


def test_merge_refuses_a_branch_changed_after_its_review(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    review_json(capsys, repo, "a1b2c3", "--accept-all", "--commit")
    wt = Path(agent["worktree"])
    # The agent revises with a private index, as the orchestrator does after feedback.
    index = wt / "private-index"
    env_git = ["env", f"GIT_INDEX_FILE={index}", "git"]
    (wt / "notes.txt").write_text(NOTES + "four\nfive\n")
    subprocess.run([*env_git, "read-tree", "HEAD"], cwd=wt, check=True)
    subprocess.run([*env_git, "add", "notes.txt"], cwd=wt, check=True)
    subprocess.run([*env_git, "commit", "-qm", "revision"], cwd=wt, check=True)
    err = refused_merge(capsys, repo, "a1b2c3")
    assert "changed after its review was committed" in err


def test_merge_brings_only_accepted_hunks_with_trailers(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    first, second, third = hunk_ids(review_json(capsys, repo, "a1b2c3", "--list"))
    review_json(capsys, repo, "a1b2c3", "--accept", f"{first},{third}", "--reject", second)
    review_json(capsys, repo, "a1b2c3", "--commit")
    head = git(repo, "rev-parse", "HEAD").strip()
    tip = git(repo, "rev-parse", "cursorish/a1b2c3").strip()
    code, out, err = merge(capsys, repo, "a1b2c3")
    assert code == 0, err
    assert out.startswith("merged cursorish/a1b2c3 into main: ")
    assert (repo / "app.py").read_text() == edited(APP, ("return 1\n", "return 100\n"))
    assert (repo / "notes.txt").read_text() == NOTES + "four\n"
    assert git(repo, "log", "-1", "--format=%P").split() == [head, tip]
    body = git(repo, "log", "-1", "--format=%B")
    assert body.startswith("Merge cursorish/a1b2c3 into main: improve the app\n")
    trailers = git(repo, "log", "-1", "--format=%(trailers:only,unfold)").strip().splitlines()
    assert trailers == [
        "Cursorish-Agent: a1b2c3",
        "Cursorish-Task: improve the app",
        "Cursorish-Planner: openai/scripted-planner",
        "Cursorish-Apply-Engine: deterministic",
    ]
    assert git(repo, "status", "--porcelain") == ""
    # The agent's work is all still there: the branch, and the rejected hunk nowhere lost.
    assert git(repo, "rev-parse", "cursorish/a1b2c3").strip() == tip


def test_merge_squash_with_message(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    review_json(capsys, repo, "a1b2c3", "--accept-all", "--commit")
    head = git(repo, "rev-parse", "HEAD").strip()
    code, out, err = merge(capsys, repo, "cursorish/a1b2c3", "--squash", "-m", "Better app")
    assert code == 0, err and out.startswith("squashed")
    assert git(repo, "log", "-1", "--format=%P").split() == [head]
    assert git(repo, "log", "-1", "--format=%s").strip() == "Better app"
    assert "Cursorish-Agent: a1b2c3" in git(repo, "log", "-1", "--format=%B")
    assert (repo / "app.py").read_text() == TWO_HUNKS
    # Merging again brings nothing: refused, nothing changed.
    assert "brings no change" in refused_merge(capsys, repo, "a1b2c3")


def test_merge_refuses_dirty_checkout_naming_files(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    review_json(capsys, repo, "a1b2c3", "--accept-all", "--commit")
    (repo / "notes.txt").write_text("the user's unsaved work\n")
    err = refused_merge(capsys, repo, "a1b2c3")
    assert "uncommitted changes in 1 file(s): notes.txt" in err
    assert (repo / "notes.txt").read_text() == "the user's unsaved work\n"


def test_merge_refuses_detached_head(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    review_json(capsys, repo, "a1b2c3", "--accept-all", "--commit")
    git(repo, "checkout", "-q", "--detach")
    assert "detached HEAD" in refused_merge(capsys, repo, "a1b2c3")


def test_merge_refuses_branch_not_ahead(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    review_json(capsys, repo, "a1b2c3", "--accept-all", "--commit")
    git(repo, "merge", "-q", "--ff-only", "cursorish/a1b2c3")
    assert "not ahead" in refused_merge(capsys, repo, "a1b2c3")


def test_merge_conflict_is_found_before_anything_changes(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    review_json(capsys, repo, "a1b2c3", "--accept-all", "--commit")
    (repo / "notes.txt").write_text(NOTES + "five\n")
    git(repo, "commit", "-qam", "user edit")
    refs = git(repo, "for-each-ref")
    err = refused_merge(capsys, repo, "a1b2c3")
    assert "would conflict in 1 file(s)" in err and "notes.txt" in err
    assert git(repo, "for-each-ref") == refs


def test_merge_unknown_branch(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    assert "no branch or agent 'nope'" in refused_merge(capsys, repo, "nope")


def test_review_merge_and_compare_resolve_names_alike(
    capsys: pytest.CaptureFixture[str], repo: Path, store: Store
) -> None:
    row = make_agent(repo, store, "a1b2c3", {"notes.txt": NOTES + "four\n"})
    make_agent(repo, store, "d4e5f6", {"notes.txt": "other\n"})
    listing = review_json(capsys, repo, "refs/heads/cursorish/a1b2c3", "--list")
    assert hunk_ids(listing)  # a full ref names the branch too

    store.update_agent("a1b2c3", discarded_at="2026-01-01T00:00:00+00:00")
    gone = "agent a1b2c3 was discarded: its branch is gone"
    for argv in (["review", "a1b2c3", "--list"], ["compare", "a1b2c3", "d4e5f6", "--json"]):
        code, _, err = run(capsys, *argv, "--repo", str(repo))
        assert code == ExitCode.BAD_ARGS and gone in err
    assert gone in refused_merge(capsys, repo, "a1b2c3")

    store.update_agent("a1b2c3", discarded_at=None)
    git(repo, "worktree", "remove", "--force", row["worktree"])
    git(repo, "branch", "-D", "cursorish/a1b2c3")
    lost = "the branch cursorish/a1b2c3 of agent a1b2c3 no longer exists"
    code, _, err = run(capsys, "review", "a1b2c3", "--list", "--repo", str(repo))
    assert code == ExitCode.BAD_ARGS and lost in err
    assert lost in refused_merge(capsys, repo, "a1b2c3")


# -- branches --------------------------------------------------------------------------------


def test_branches_lists_agents_and_other_cursorish_branches(
    capsys: pytest.CaptureFixture[str], repo: Path, store: Store, agent: dict[str, Any]
) -> None:
    git(repo, "branch", "cursorish/manual")
    code, out, _ = run(capsys, "branches", "--repo", str(repo), "--json")
    assert code == 0
    views = {v["branch"]: v for v in json.loads(out)}
    a = views["cursorish/a1b2c3"]
    assert (a["agent_id"], a["task"], a["state"]) == ("a1b2c3", "improve the app", "done")
    assert (a["files"], a["added"], a["deleted"]) == (2, 3, 2)
    assert (a["pending"], a["accepted"], a["rejected"], a["reviewed"]) == (3, 0, 0, False)
    manual = views["cursorish/manual"]
    assert (manual["agent_id"], manual["state"], manual["files"]) == (None, "-", 0)
    assert store.review("cursorish/a1b2c3") is None  # listing started no review


def test_branches_without_any(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    assert run(capsys, "branches", "--repo", str(repo))[:2] == (
        0,
        'no agent branches in this repository (run: cursorish --task "...")\n',
    )


def test_branches_shows_decisions_so_far(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    first, second, _ = hunk_ids(review_json(capsys, repo, "a1b2c3", "--list"))
    review_json(capsys, repo, "a1b2c3", "--accept", first, "--reject", second)
    code, out, _ = run(capsys, "branches", "--repo", str(repo))
    assert code == 0
    row = next(ln for ln in out.splitlines() if ln.startswith("cursorish/a1b2c3"))
    assert row.split()[1:8] == ["done", "2", "+3", "-2", "1", "1", "1"]
    assert row.endswith("improve the app")


# -- end to end with a real agent run ---------------------------------------------------------


def test_task_then_review_then_merge(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    scripted_server: ServerFactory,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for var in ("CURSORISH_PLANNER", "CURSORISH_API_BASE", "CURSORISH_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    sketch = (
        "def f0():\n    return 0\n\n\ndef f1():\n    return 'one'\n\n\n# ... existing code ...\n"
    )
    server = scripted_server(
        [
            {
                "tool_calls": [
                    {"name": "edit_file", "arguments": {"path": "app.py", "sketch": sketch}}
                ]
            },
            {"tool_calls": [{"name": "finish", "arguments": {"summary": "f1 says one"}}]},
        ]
    )
    argv = ["--task", "f1 returns 'one'", "--repo", str(repo), "--planner", "openai/scripted"]
    code, out, err = run(capsys, *argv, "--api-base", server.base_url, "--quiet")
    assert code == 0, out + err
    done = review_json(capsys, repo, "--accept-all", "--commit")  # the latest agent
    assert len(done["decisions"]) == 1
    code, out, err = merge(capsys, repo, done["branch"])
    assert code == 0, err
    assert "return 'one'" in (repo / "app.py").read_text()
    trailers = git(repo, "log", "-1", "--format=%(trailers:only,unfold)")
    assert "Cursorish-Planner: openai/scripted\n" in trailers
    assert "Cursorish-Task: f1 returns 'one'\n" in trailers


def test_a_file_git_refuses_in_one_worktree_breaks_neither_branches_nor_review(
    capsys: pytest.CaptureFixture[str], repo: Path, store: Store, agent: dict[str, Any]
) -> None:
    # A command run by another agent left files git refuses to track in its worktree.
    bad = make_agent(repo, store, "d4e5f6", {"notes.txt": NOTES + "five\n"})
    for name in (".GIT/config", "git~1/x", ".git. /y"):
        path = Path(bad["worktree"]) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("planted\n")
    code, out, err = run(capsys, "branches", "--repo", str(repo), "--json")
    assert code == 0, err
    views = {v["branch"]: v for v in json.loads(out)}
    assert views["cursorish/a1b2c3"]["pending"] == 3
    assert views["cursorish/d4e5f6"]["pending"] == 1
    listing = review_json(capsys, repo, "d4e5f6", "--list")
    assert [f["path"] for f in listing["files"]] == ["notes.txt"]
    done = review_json(capsys, repo, "d4e5f6", "--accept-all", "--commit")
    assert done["counts"] == {"pending": 0, "accepted": 1, "rejected": 0}
    assert git(repo, "show", "cursorish/d4e5f6:notes.txt") == NOTES + "five\n"


def test_review_list_and_branches_show_file_and_task_text_escaped(
    capsys: pytest.CaptureFixture[str], repo: Path, store: Store
) -> None:
    hostile = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\rfake \u202eevil\x9b31m"
    shown = "\\e]52;c;cHduZWQ=\\x07\\e[2J\\rfake \\u202eevil\\x9b31m"
    make_agent(repo, store, "e5c4pe", {"notes.txt": NOTES + f"{hostile}\n"}, task=hostile)
    code, out, _ = run(capsys, "review", "e5c4pe", "--repo", str(repo), "--list")
    assert code == 0
    first = "\\e]52;c;cHduZWQ=\\x07\\e[2J"  # a task shows its first line; CR ends one
    assert f"    +{shown}" in out and f"task: {first}\n" in out
    code, table, _ = run(capsys, "branches", "--repo", str(repo))
    assert code == 0 and f"  {first}\n" in table
    for printed in (out, table):
        assert not any(c in printed for c in "\x1b\x07\r\u202e\x9b")


def test_a_reason_that_is_not_utf8_is_refused_and_decides_nothing(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: dict[str, Any]
) -> None:
    import os

    first = hunk_ids(review_json(capsys, repo, "a1b2c3", "--list"))[0]
    reason = os.fsdecode(b"trop compliqu\xe9")
    argv = ["review", "a1b2c3", "--repo", str(repo), "--reject", first, "--reason", reason]
    code, _, err = run(capsys, *argv)
    assert code == ExitCode.BAD_ARGS and "--reason is not UTF-8 text (byte 0xe9" in err
    assert review_json(capsys, repo, "a1b2c3", "--list")["counts"]["pending"] == 3
