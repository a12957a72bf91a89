"""Branch review (core/review/session.py) on real git repositories and a real store: open, accept,
reject, undo, commit, decisions, feedback; the user's checkout stays byte-for-byte untouched."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from cursorish.core.review import ReviewSession, is_whole_file
from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops.agent_commits import commit_all
from cursorish.gitops.repo import RepoInfo, open_repo
from cursorish.store.db import Store
from cursorish.store.paths import worktrees_dir
from tests.conftest import ServerFactory, git, snapshot
from tests.core.agent_helpers import (
    Recorder,
    call,
    finish,
    finished_agent,
    orchestrator_for,
    run_tasks,
    settings_for,
)

MakeRepo = Callable[..., Path]

LINES = [f"line {i}\n" for i in range(1, 31)]
BASE_TEXT = "".join(LINES)
# Two edits far apart: two hunks.
EDITED = "".join(
    ["line 1\n", "line 2\n", "LINE THREE\n", *LINES[3:24], "line 25 changed\n", *LINES[25:]]
)


@pytest.fixture
def root(tmp_path: Path, make_repo: MakeRepo) -> Path:
    return make_repo(tmp_path, {"app.py": BASE_TEXT, "README.md": "demo\n", "lib/util.py": "X\n"})


@pytest.fixture
def repo(root: Path) -> RepoInfo:
    return open_repo(root)


@pytest.fixture
def store(repo: RepoInfo) -> Store:
    return Store.for_repo(repo.git_common_dir)


def make_agent(
    repo: RepoInfo,
    store: Store,
    edits: dict[str, bytes | None],
    *,
    agent_id: str = "a1b2c3",
    task: str = "improve the app",
    commit: bool = True,
) -> Path:
    """An agent row, its worktree and branch with `edits` (None deletes) committed on it."""
    row = finished_agent(repo, store, agent_id, edits, task=task, commit=commit)
    return Path(row["worktree"])


def pending_ids(session: ReviewSession, path: str | None = None) -> list[str]:
    return [
        h.id
        for f in session.files()
        if f.pending is not None and (path is None or f.path == path)
        for h in f.pending.hunks
    ]


def cached(wt: Path, base: str) -> str:
    return git(wt, "diff", "--cached", base)


def test_open_latest_agent_shows_every_change_as_pending(repo: RepoInfo, store: Store) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode(), "lib/util.py": b"Y\n"})
    session = ReviewSession.open(repo, store)
    assert session.branch == "cursorish/a1b2c3" and session.agent_id == "a1b2c3"
    assert session.base == repo.head_commit and session.worktree == wt
    assert session.task == "improve the app"
    files = session.files()
    assert [f.path for f in files] == ["app.py", "lib/util.py"]
    app = files[0]
    assert app.status == "M" and app.accepted is None and app.pending is not None
    assert [h.header.split(" @@")[0] for h in app.pending.hunks] == [
        "@@ -1,6 +1,6",
        "@@ -22,7 +22,7",
    ]
    assert session.counts() == {"pending": 3, "accepted": 0, "rejected": 0}
    # The agent committed through the worktree's real index (as older runs did): the first
    # review put that index back at the base.
    assert cached(wt, repo.head_commit) == ""


def test_accept_stages_one_hunk_and_find_sees_it(repo: RepoInfo, store: Store) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode()})
    session = ReviewSession.open(repo, store, "a1b2")
    first, second = pending_ids(session)
    decision = session.accept(first[:5])
    assert (decision.hunk_id, decision.path, decision.decision) == (first, "app.py", "accepted")
    staged = cached(wt, repo.head_commit)
    assert "+LINE THREE" in staged and "line 25 changed" not in staged
    assert (wt / "app.py").read_text() == EDITED  # the files keep every proposed change
    assert pending_ids(session) == [second]
    rf, hunk, side = session.find(second)
    assert (rf.path, hunk.id, side) == ("app.py", second, "pending")
    accepted_hunk = rf.accepted.hunks[0] if rf.accepted else None
    assert accepted_hunk is not None
    assert session.find(accepted_hunk.id)[2] == "accepted"
    assert session.counts() == {"pending": 1, "accepted": 1, "rejected": 0}
    assert [d.hunk_id for d in session.decisions()] == [first]
    with pytest.raises(CursorishError, match="already accepted") as info:
        session.accept(accepted_hunk.id)
    assert info.value.exit_code == ExitCode.BAD_ARGS


def test_reject_reverts_only_that_hunk_and_undo_restores_it(repo: RepoInfo, store: Store) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode()})
    session = ReviewSession.open(repo, store)
    first, second = pending_ids(session)
    session.reject(second, "keep line 25 as it is")
    text = (wt / "app.py").read_text()
    assert "LINE THREE" in text and "line 25 changed" not in text and "line 25\n" in text
    assert cached(wt, repo.head_commit) == ""  # nothing staged by a rejection
    assert pending_ids(session) == [first]
    assert session.counts() == {"pending": 1, "accepted": 0, "rejected": 1}
    undone = session.undo()
    assert undone is not None and undone.hunk_id == second and undone.decision == "rejected"
    assert (wt / "app.py").read_bytes() == EDITED.encode()
    assert session.decisions() == [] and session.undo() is None


def test_undo_of_accept_unstages_it(repo: RepoInfo, store: Store) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode()})
    session = ReviewSession.open(repo, store)
    first, _ = pending_ids(session)
    session.accept(first)
    index_before = git(wt, "ls-files", "-s")
    assert session.undo() is not None
    assert cached(wt, repo.head_commit) == ""
    assert git(wt, "ls-files", "-s") != index_before
    assert first in pending_ids(session)
    assert session.counts()["pending"] == 2


def test_commit_puts_accepted_on_the_branch_and_leaves_pending(
    repo: RepoInfo, store: Store
) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode(), "lib/util.py": b"Y\n"})
    session = ReviewSession.open(repo, store)
    assert session.commit() is None  # nothing accepted yet
    first, second, util = pending_ids(session)
    session.accept(first)
    session.reject(util, "no")
    sha = session.commit()
    assert sha is not None
    assert git(repo.root, "rev-parse", "cursorish/a1b2c3").strip() == sha
    committed = git(repo.root, "show", f"{sha}:app.py")
    assert "LINE THREE" in committed and "line 25 changed" not in committed
    assert git(repo.root, "show", f"{sha}:lib/util.py") == "X\n"
    message = git(repo.root, "log", "-1", "--format=%B", sha)
    assert message.startswith("Review of cursorish/a1b2c3: 1 hunk accepted, 1 rejected\n")
    trailers = git(repo.root, "log", "-1", "--format=%(trailers)", sha)
    assert "Cursorish-Agent: a1b2c3\n" in trailers
    assert "Cursorish-Task: improve the app\n" in trailers
    assert "Cursorish-Review: 1 accepted, 1 rejected\n" in trailers
    # Still pending: the second hunk, uncommitted in the worktree and still reviewable.
    assert pending_ids(session) == [second]
    assert (wt / "app.py").read_text() == EDITED
    assert session.commit() is None  # nothing new accepted
    session.accept(second)
    sha2 = session.commit("take the rest")
    assert sha2 is not None and git(repo.root, "show", f"{sha2}:app.py") == EDITED
    assert git(repo.root, "log", "-1", "--format=%s", sha2).strip() == "take the rest"
    assert "Cursorish-Review: 1 accepted, 0 rejected" in git(
        repo.root, "log", "-1", "--format=%B", sha2
    )
    assert session.counts() == {"pending": 0, "accepted": 2, "rejected": 1}


def test_rejecting_a_revision_after_a_review_commit_commits_it_away(
    repo: RepoInfo, store: Store
) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode()})
    session = ReviewSession.open(repo, store)
    session.accept_all()
    reviewed = session.commit()
    assert reviewed is not None
    # The agent revises: a new commit on the branch through its private index.
    (wt / "README.md").write_text("revised\n")
    assert commit_all(wt, "cursorish checkpoint: revision", private_index=True) is not None
    (revision,) = pending_ids(session)
    session.reject(revision, "keep the readme")
    sha = session.commit()
    assert sha is not None  # the branch tip still held the rejected revision
    assert git(repo.root, "show", f"{sha}:README.md") == "demo\n"
    assert session.commit() is None


def test_feedback_lists_rejections_with_reasons_once(repo: RepoInfo, store: Store) -> None:
    make_agent(repo, store, {"app.py": EDITED.encode(), "lib/util.py": b"Y\n"})
    session = ReviewSession.open(repo, store)
    first, second, util = pending_ids(session)
    session.reject(first)  # no reason: no feedback on its own
    assert session.feedback() == ""
    session.reject(second, "line 25 must stay")
    text = session.feedback()
    assert "In app.py, this change was rejected" in text
    assert "Reason: line 25 must stay" in text
    assert "-line 25\n+line 25 changed" in text
    assert "without a reason" in text and "@@ -1,6 +1,6 @@" in text
    assert session.feedback() == ""  # sent once
    session.reject(util, "keep X")
    again = session.feedback()
    assert "lib/util.py" in again and "app.py" not in again


def test_decisions_are_in_the_store_and_survive_a_new_session(repo: RepoInfo, store: Store) -> None:
    make_agent(repo, store, {"app.py": EDITED.encode()})
    session = ReviewSession.open(repo, store)
    first, second = pending_ids(session)
    session.accept(first)
    session.reject(second, "why")
    again = ReviewSession.open(repo, store, "cursorish/a1b2c3")
    assert [(d.hunk_id, d.decision, d.reason) for d in again.decisions()] == [
        (first, "accepted", ""),
        (second, "rejected", "why"),
    ]
    assert again.counts() == {"pending": 0, "accepted": 1, "rejected": 1}
    rows = store.review_decisions("cursorish/a1b2c3")
    assert [r["decision"] for r in rows] == ["accepted", "rejected"]
    assert all(isinstance(r["patch"], bytes) and r["patch"] for r in rows)


def test_unknown_ref_and_nothing_to_review(repo: RepoInfo, store: Store) -> None:
    with pytest.raises(CursorishError, match="no agent has run") as info:
        ReviewSession.open(repo, store)
    assert info.value.exit_code == ExitCode.BAD_ARGS
    with pytest.raises(CursorishError, match="no branch or agent 'nope'"):
        ReviewSession.open(repo, store, "nope")
    make_agent(repo, store, {}, commit=False)
    with pytest.raises(CursorishError, match="nothing to review") as info:
        ReviewSession.open(repo, store, "a1b2c3")
    assert info.value.exit_code == ExitCode.BAD_ARGS


def test_unknown_hunk_id_changes_nothing(repo: RepoInfo, store: Store) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode()})
    session = ReviewSession.open(repo, store)
    first, _ = pending_ids(session)
    # The user edits that hunk's lines in their editor: its id no longer exists.
    (wt / "app.py").write_text(EDITED.replace("LINE THREE", "LINE 3"))
    before = (git(wt, "ls-files", "-s"), (wt / "app.py").read_bytes())
    for act in (session.accept, session.reject):
        with pytest.raises(CursorishError, match=f"no pending hunk '{first}'") as info:
            act(first)
        assert info.value.exit_code == ExitCode.BAD_ARGS
    assert (git(wt, "ls-files", "-s"), (wt / "app.py").read_bytes()) == before
    assert session.decisions() == []


def test_non_agent_branch_is_reviewed_against_the_merge_base(repo: RepoInfo, store: Store) -> None:
    root = repo.root
    git(root, "checkout", "-q", "-b", "feature")
    (root / "app.py").write_text(EDITED)
    git(root, "commit", "-q", "-am", "feature work")
    git(root, "checkout", "-q", "main")
    user = snapshot(root)
    session = ReviewSession.open(open_repo(root), store, "feature")
    assert session.agent_id is None and session.task == "" and session.base == repo.head_commit
    assert session.worktree.name == "review-feature"
    assert session.worktree.parent == worktrees_dir(repo.git_common_dir)
    first, _ = pending_ids(session)
    session.accept(first)
    sha = session.commit()
    assert sha is not None and "Cursorish-Agent" not in git(root, "log", "-1", "--format=%B", sha)
    assert snapshot(root) == user


def test_branch_checked_out_in_a_checkout_of_the_user_is_refused(
    repo: RepoInfo, store: Store, tmp_path: Path
) -> None:
    root = repo.root
    git(root, "checkout", "-q", "-b", "feature")
    (root / "app.py").write_text(EDITED)
    git(root, "commit", "-q", "-am", "feature work")
    git(root, "checkout", "-q", "main")
    git(root, "worktree", "add", "-q", str(tmp_path / "mine"), "feature")
    with pytest.raises(CursorishError, match=r"it is checked out in .*mine") as info:
        ReviewSession.open(open_repo(root), store, "feature")
    assert info.value.exit_code == ExitCode.BAD_ARGS
    # On the user's own current branch there is nothing to review (base = the branch).
    with pytest.raises(CursorishError, match="nothing to review"):
        ReviewSession.open(open_repo(root), store, "main")


def test_the_users_checkout_is_never_touched(repo: RepoInfo, store: Store) -> None:
    make_agent(repo, store, {"app.py": EDITED.encode(), "new.txt": b"new\n"})
    user = snapshot(repo.root)
    session = ReviewSession.open(repo, store)
    ids = pending_ids(session)
    session.accept(ids[0])
    session.reject(ids[1], "no")
    session.undo()
    session.accept_all()
    assert session.commit() is not None
    assert snapshot(repo.root) == user


def test_accept_all_then_nothing_pending(repo: RepoInfo, store: Store) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode(), "lib/util.py": b"Y\n"})
    session = ReviewSession.open(repo, store)
    decided = session.accept_all()
    assert [d.path for d in decided] == ["app.py", "app.py", "lib/util.py"]
    assert session.counts() == {"pending": 0, "accepted": 3, "rejected": 0}
    assert git(wt, "diff") == ""
    # Undo one at a time, last first, back to the start.
    while session.undo() is not None:
        pass
    assert cached(wt, repo.head_commit) == "" and session.counts()["pending"] == 3


def test_is_whole_file() -> None:
    from cursorish.gitops.hunks import Hunk

    text = Hunk("1", "p", "@@ -1 +1 @@", 1, 1, 1, 1, (), b"")
    assert not is_whole_file(text)
    assert is_whole_file(Hunk("1", "p", "binary file changed", 0, 0, 0, 0, (), b""))


# -- agents commit through a private index; review worktrees -----------------------------------


def test_after_an_agent_run_every_change_is_pending(
    repo: RepoInfo, store: Store, scripted_server: ServerFactory
) -> None:
    server = scripted_server(
        [
            call("edit_file", path="app.py", sketch=EDITED),
            call("create_file", path="docs/new.md", content="# new\n"),
            finish("edited"),
        ]
    )
    (report,), _ = run_tasks(repo.root, ["improve"], settings_for(server))
    assert report.status == "done" and report.commit is not None
    wt = Path(report.worktree)
    # One squashed commit on the branch; the worktree's real index still at the base.
    assert git(wt, "rev-list", "--count", f"{report.base_commit}..HEAD").strip() == "1"
    assert cached(wt, report.base_commit) == ""
    session = ReviewSession.open(repo, store, report.agent_id)
    assert session.worktree == wt
    assert [(f.path, f.status) for f in session.files()] == [("app.py", "M"), ("docs/new.md", "A")]
    assert session.counts() == {"pending": 3, "accepted": 0, "rejected": 0}


def test_review_works_after_the_agent_worktree_is_gone(repo: RepoInfo, store: Store) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode()})
    git(repo.root, "worktree", "remove", "--force", str(wt))
    session = ReviewSession.open(repo, store, "a1b2c3")
    assert session.worktree != wt and session.worktree.name.startswith("review-cursorish-a1b2c3")
    assert (session.worktree / "app.py").read_text() == EDITED
    assert session.counts()["pending"] == 2
    # A second session re-uses that review worktree.
    assert ReviewSession.open(repo, store, "a1b2c3").worktree == session.worktree


def test_a_recreated_worktree_starts_from_the_last_review_commit(
    repo: RepoInfo, store: Store
) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode(), "lib/util.py": b"Y\n"})
    session = ReviewSession.open(repo, store)
    first, _second, util = pending_ids(session)
    session.accept(first)
    assert session.commit() is not None
    session.accept(util)  # accepted after the commit, in a worktree about to disappear
    git(repo.root, "worktree", "remove", "--force", str(wt))
    again = ReviewSession.open(repo, store, "a1b2c3")
    # The branch tip is the review commit: the first hunk is accepted, the others are gone
    # with the old worktree (what was only in its files was never committed).
    assert [d.hunk_id for d in again.decisions()] == [first]
    assert "+LINE THREE" in cached(again.worktree, repo.head_commit)
    assert again.counts() == {"pending": 0, "accepted": 1, "rejected": 0}


# -- edge cases ------------------------------------------------------------------------------


def index_blob(wt: Path, path: str) -> bytes | None:
    """The bytes W's index holds for `path` (None when it holds none)."""
    import subprocess

    done = subprocess.run(
        ["git", "cat-file", "blob", f":{path}"], cwd=wt, capture_output=True, check=False
    )
    return done.stdout if done.returncode == 0 else None


def edge_repo(tmp_path: Path, make_repo: MakeRepo, files: dict[str, bytes]) -> RepoInfo:
    root = make_repo(tmp_path, {}, name="edge", commit=False)
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return open_repo(root)


def one_pending(session: ReviewSession, path: str) -> str:
    (hunk_id,) = pending_ids(session, path)
    return hunk_id


def test_new_file_accept_reject_undo(repo: RepoInfo, store: Store) -> None:
    content = b"brand new\r\nwith crlf\r\n\xff\xfe not utf-8\nno newline at end"
    wt = make_agent(repo, store, {"pkg/new.py": content})
    session = ReviewSession.open(repo, store)
    (f,) = session.files()
    assert (f.path, f.status, f.pending is not None) == ("pkg/new.py", "A", True)
    hunk_id = one_pending(session, "pkg/new.py")
    session.accept(hunk_id)
    assert index_blob(wt, "pkg/new.py") == content
    assert session.files()[0].accepted is not None and session.counts()["pending"] == 0
    session.undo()
    assert index_blob(wt, "pkg/new.py") is None
    session.reject(hunk_id, "not wanted")
    assert not (wt / "pkg/new.py").exists() and session.files() == []
    session.undo()
    assert (wt / "pkg/new.py").read_bytes() == content


def test_deleted_file_accept_reject_undo(repo: RepoInfo, store: Store) -> None:
    wt = make_agent(repo, store, {"README.md": None})
    session = ReviewSession.open(repo, store)
    (f,) = session.files()
    assert (f.path, f.status) == ("README.md", "D")
    hunk_id = one_pending(session, "README.md")
    session.accept(hunk_id)
    assert index_blob(wt, "README.md") is None and not (wt / "README.md").exists()
    session.undo()
    assert index_blob(wt, "README.md") == b"demo\n"
    session.reject(hunk_id)
    assert (wt / "README.md").read_bytes() == b"demo\n" and session.files() == []
    session.undo()
    assert not (wt / "README.md").exists()


def test_rename_with_edits(tmp_path: Path, make_repo: MakeRepo) -> None:
    body = "".join(f"row {i}\n" for i in range(1, 41)).encode()
    repo = edge_repo(tmp_path, make_repo, {"old name.txt": body})
    store = Store.for_repo(repo.git_common_dir)
    edited = body.replace(b"row 2\n", b"ROW TWO\n").replace(b"row 38\n", b"ROW 38\n")
    wt = make_agent(repo, store, {"old name.txt": None, "new name.txt": edited})
    session = ReviewSession.open(repo, store)
    (f,) = session.files()
    assert (f.path, f.old_path, f.status) == ("new name.txt", "old name.txt", "R")
    first, second = pending_ids(session)
    # Rejecting content keeps the rename pending as a whole-file decision of its own.
    session.reject(second, "keep row 38")
    (f,) = session.files()
    assert f.status == "R" and [h.id for h in f.pending.hunks] == [first]  # type: ignore[union-attr]
    session.accept(first)  # carries the rename into the index
    assert index_blob(wt, "old name.txt") is None
    assert index_blob(wt, "new name.txt") == body.replace(b"row 2\n", b"ROW TWO\n")
    assert session.counts()["pending"] == 0
    assert session.undo() is not None and session.undo() is not None
    assert (wt / "new name.txt").read_bytes() == edited and index_blob(wt, "old name.txt") == body
    # Rejecting the whole file puts the old name back, byte for byte.
    decided = session.reject_file("new name.txt", "no rename")
    assert len(decided) == 3 and decided[-1].header == "renamed from old name.txt"
    assert (wt / "old name.txt").read_bytes() == body and not (wt / "new name.txt").exists()
    assert session.files() == []
    for _ in decided:
        session.undo()
    assert (wt / "new name.txt").read_bytes() == edited and not (wt / "old name.txt").exists()
    decided = session.accept_file("old name.txt")
    assert len(decided) == 2 and index_blob(wt, "new name.txt") == edited


def test_pure_rename_is_one_whole_file_decision(tmp_path: Path, make_repo: MakeRepo) -> None:
    repo = edge_repo(tmp_path, make_repo, {"a.txt": b"same\n" * 5})
    store = Store.for_repo(repo.git_common_dir)
    wt = make_agent(repo, store, {"a.txt": None, "b.txt": b"same\n" * 5})
    session = ReviewSession.open(repo, store)
    (f,) = session.files()
    assert (f.path, f.old_path, f.status) == ("b.txt", "a.txt", "R")
    assert f.pending is not None
    (hunk,) = f.pending.hunks
    assert is_whole_file(hunk) and hunk.header == "renamed from a.txt"
    session.accept(hunk.id)
    assert index_blob(wt, "b.txt") == b"same\n" * 5 and index_blob(wt, "a.txt") is None


def test_binary_file_is_decided_whole_and_round_trips(tmp_path: Path, make_repo: MakeRepo) -> None:
    old = bytes(range(256)) * 8
    new = bytes(reversed(range(256))) * 9 + b"\0tail"
    repo = edge_repo(tmp_path, make_repo, {"img.bin": old, "text.txt": b"t\n"})
    store = Store.for_repo(repo.git_common_dir)
    wt = make_agent(repo, store, {"img.bin": new, "added.bin": b"\0\1\2\3" * 100})
    session = ReviewSession.open(repo, store)
    files = {f.path: f for f in session.files()}
    assert files["img.bin"].binary and files["added.bin"].status == "A"
    (hunk,) = files["img.bin"].pending.hunks  # type: ignore[union-attr]
    assert is_whole_file(hunk) and hunk.header == "binary file changed"
    session.accept(hunk.id)
    assert index_blob(wt, "img.bin") == new
    session.undo()
    assert index_blob(wt, "img.bin") == old
    session.reject(hunk.id, "keep the old picture")
    assert (wt / "img.bin").read_bytes() == old
    assert "(the whole file: binary file changed)" in session.feedback()
    session.undo()
    assert (wt / "img.bin").read_bytes() == new
    added = one_pending(session, "added.bin")
    session.reject(added)
    assert not (wt / "added.bin").exists()
    session.undo()
    assert (wt / "added.bin").read_bytes() == b"\0\1\2\3" * 100


def test_mode_change_and_empty_files_are_whole_file(tmp_path: Path, make_repo: MakeRepo) -> None:
    repo = edge_repo(tmp_path, make_repo, {"run.sh": b"echo hi\n", "gone.txt": b""})
    store = Store.for_repo(repo.git_common_dir)
    wt = make_agent(repo, store, {"gone.txt": None}, commit=False)
    (wt / "run.sh").write_bytes(b"echo hello\n")
    (wt / "run.sh").chmod(0o755)
    commit_all(wt, "agent")
    session = ReviewSession.open(repo, store)
    pending = {f.path: f.pending.hunks for f in session.files() if f.pending}
    assert {path: [h.header for h in hunks] for path, hunks in pending.items()} == {
        "gone.txt": ["deleted empty file"],
        "run.sh": ["mode change 100644 -> 100755"],
    }
    (mode_hunk,) = pending["run.sh"]
    assert [line.text for line in mode_hunk.lines if line.kind == "+"] == ["echo hello"]
    session.reject(mode_hunk.id)
    assert (wt / "run.sh").read_bytes() == b"echo hi\n" and not os.access(wt / "run.sh", os.X_OK)
    session.undo()
    assert os.access(wt / "run.sh", os.X_OK)
    assert len(session.accept_all()) == 2
    assert git(wt, "ls-files", "-s", "run.sh").startswith("100755")
    assert index_blob(wt, "gone.txt") is None


def test_new_empty_file_is_one_whole_file_decision(repo: RepoInfo, store: Store) -> None:
    wt = make_agent(repo, store, {"empty.txt": b""})
    session = ReviewSession.open(repo, store)
    (f,) = session.files()
    assert f.pending is not None and [h.header for h in f.pending.hunks] == ["new empty file"]
    session.reject(f.pending.hunks[0].id)
    assert not (wt / "empty.txt").exists()
    session.undo()
    session.accept(f.pending.hunks[0].id)
    assert index_blob(wt, "empty.txt") == b""


CRLF = b"".join(b"line %d\r\n" % i for i in range(1, 21)) + b"caf\xe9 latin-1\r\nlast"


def test_crlf_and_non_utf8_round_trip_exactly(tmp_path: Path, make_repo: MakeRepo) -> None:
    repo = edge_repo(tmp_path, make_repo, {"dos.txt": CRLF})
    store = Store.for_repo(repo.git_common_dir)
    edited = CRLF.replace(b"line 2\r\n", b"LINE \xff\xfe 2\r\n").replace(b"last", b"last!\r\n")
    wt = make_agent(repo, store, {"dos.txt": edited})
    session = ReviewSession.open(repo, store)
    first, second = pending_ids(session)
    hunk = session.find(first)[1]
    assert any(line.text == "LINE \udcff\udcfe 2" for line in hunk.lines)  # display text
    session.accept(first)
    assert index_blob(wt, "dos.txt") == CRLF.replace(b"line 2\r\n", b"LINE \xff\xfe 2\r\n")
    session.reject(second)
    assert (wt / "dos.txt").read_bytes() == CRLF.replace(b"line 2\r\n", b"LINE \xff\xfe 2\r\n")
    session.undo()
    assert (wt / "dos.txt").read_bytes() == edited
    session.undo()
    assert index_blob(wt, "dos.txt") == CRLF
    session.accept_all()
    sha = session.commit()
    assert sha is not None
    assert subprocess_bytes(repo.root, "show", f"{sha}:dos.txt") == edited


def subprocess_bytes(cwd: Path, *args: str) -> bytes:
    import subprocess

    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True).stdout


BLOCK = [f"    x{i}\n" for i in range(8)]


def test_whole_file_decisions_place_identical_hunks_exactly(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    """Four identical blocks; the first edit adds ten lines, the last two are identical
    edits: each hunk must land where it belongs, not on a look-alike block nearby."""
    base = "".join(BLOCK * 4).encode()
    blocks = [list(BLOCK) for _ in range(4)]
    blocks[2][4] = blocks[3][4] = "    CHANGED\n"
    edited = (
        "".join(f"new {i}\n" for i in range(10))
        + "".join(line for block in blocks for line in block)
    ).encode()
    repo = edge_repo(tmp_path, make_repo, {"blocks.py": base})
    store = Store.for_repo(repo.git_common_dir)
    wt = make_agent(repo, store, {"blocks.py": edited})
    session = ReviewSession.open(repo, store)
    assert len(pending_ids(session)) == 3
    session.accept_file("blocks.py")
    assert index_blob(wt, "blocks.py") == edited
    states = []
    for _ in range(3):
        session.undo()
        states.append(index_blob(wt, "blocks.py"))
    assert states[-1] == base and len(set(states)) == 3
    session.reject_file("blocks.py", "no")
    assert (wt / "blocks.py").read_bytes() == base
    for _ in range(3):
        session.undo()
    assert (wt / "blocks.py").read_bytes() == edited


def test_undo_that_no_longer_applies_changes_nothing(repo: RepoInfo, store: Store) -> None:
    wt = make_agent(repo, store, {"app.py": EDITED.encode()})
    session = ReviewSession.open(repo, store)
    first, _ = pending_ids(session)
    session.reject(first, "no")
    # The user rewrites that region in their editor; the rejected lines cannot come back.
    text = (wt / "app.py").read_text().replace("line 2\nline 3\nline 4\n", "rewritten\n")
    (wt / "app.py").write_text(text)
    index = git(wt, "ls-files", "-s")
    with pytest.raises(CursorishError, match="cannot undo the rejection of hunk") as info:
        session.undo()
    assert info.value.exit_code == ExitCode.BAD_ARGS
    assert (wt / "app.py").read_text() == text and git(wt, "ls-files", "-s") == index
    assert [d.hunk_id for d in session.decisions()] == [first]


def test_every_edge_case_leaves_the_users_checkout_untouched(
    tmp_path: Path, make_repo: MakeRepo
) -> None:
    repo = edge_repo(
        tmp_path, make_repo, {"dos.txt": CRLF, "img.bin": b"\0" * 64, "a b.txt": b"x\n"}
    )
    (repo.root / "wip.txt").write_text("the user's own untracked work\n")
    store = Store.for_repo(repo.git_common_dir)
    make_agent(
        repo,
        store,
        {"dos.txt": CRLF + b"\r\nmore", "img.bin": b"\1" * 64, "a b.txt": None, "c d.txt": b"x\n"},
    )
    user = snapshot(repo.root)
    session = ReviewSession.open(repo, store)
    ids = pending_ids(session)
    session.reject(ids[0], "no")
    session.accept_all()
    session.commit()
    session.undo()
    session.commit()
    assert snapshot(repo.root) == user


# -- reject with a reason -> the agent revises ------------------------------------------------

REVISED = EDITED.replace("line 25 changed", "LINE_25 = CONSTANT")


def test_reject_with_reason_then_revise_shows_new_pending_hunks(
    repo: RepoInfo, store: Store, scripted_server: ServerFactory
) -> None:
    server = scripted_server(
        [
            call("edit_file", path="app.py", sketch=EDITED),
            finish("edited app.py"),
            # Turn 3 is served once the transcript has two assistant messages: the revision.
            call("edit_file", path="app.py", sketch=REVISED),
            finish("used a constant"),
        ]
    )
    sink = Recorder()
    orch, _ = orchestrator_for(repo.root, settings_for(server), sink)
    (report,) = asyncio.run(orch.run(["improve the app"]))
    assert report.status == "done"
    session = ReviewSession.open(repo, store, report.agent_id)
    first, second = pending_ids(session)
    session.accept(first)
    session.reject(second, "use a constant for line 25")
    feedback = session.feedback()

    revised = asyncio.run(orch.revise(report.agent_id, feedback))

    assert revised.status == "done" and revised.summary == "used a constant"
    request = server.requests[-2]  # the planner call that produced the revision
    assert request["messages"][-1] == {"role": "user", "content": feedback}
    assert "Reason: use a constant for line 25" in request["messages"][-1]["content"]
    assert "-line 25\n+line 25 changed" in request["messages"][-1]["content"]
    assert "revising" in sink.kinds(report.agent_id)
    # The revision is a new pending hunk; what was accepted stays accepted.
    (new_hunk,) = [h for f in session.files() if f.pending for h in f.pending.hunks]
    assert [(line.kind, line.text) for line in new_hunk.lines if line.kind != " "] == [
        ("-", "line 25"),
        ("+", "LINE_25 = CONSTANT"),
    ]
    assert "+LINE THREE" in cached(session.worktree, report.base_commit)
    assert session.counts() == {"pending": 1, "accepted": 1, "rejected": 1}
    # One commit per run on the branch, the revision's content at the tip.
    branch = report.branch
    assert git(repo.root, "rev-list", "--count", f"{report.base_commit}..{branch}").strip() == "2"
    assert git(repo.root, "show", f"{branch}:app.py") == REVISED
    assert store.agent(report.agent_id)["state"] == "done"  # type: ignore[index]


def test_revise_refuses_what_it_cannot_continue(
    repo: RepoInfo, store: Store, scripted_server: ServerFactory
) -> None:
    server = scripted_server([call("create_file", path="x.txt", content="x\n"), finish()])
    orch, _ = orchestrator_for(repo.root, settings_for(server))
    (report,) = asyncio.run(orch.run(["t"]))
    with pytest.raises(CursorishError, match="no feedback") as info:
        asyncio.run(orch.revise(report.agent_id, "  "))
    assert info.value.exit_code == ExitCode.BAD_ARGS
    with pytest.raises(CursorishError, match="no agent 'zzz'"):
        asyncio.run(orch.revise("zzz", "do better"))
    store.update_agent(report.agent_id, state="planning", pid=os.getpid())
    with pytest.raises(CursorishError, match="still running"):
        asyncio.run(orch.revise(report.agent_id, "do better"))


def test_revise_works_in_the_review_worktree_when_the_agents_is_gone(
    repo: RepoInfo, store: Store, scripted_server: ServerFactory
) -> None:
    server = scripted_server(
        [
            call("edit_file", path="app.py", sketch=EDITED),
            finish("edited"),
            call("edit_file", path="app.py", sketch=REVISED),
            finish("revised"),
        ]
    )
    orch, _ = orchestrator_for(repo.root, settings_for(server))
    (report,) = asyncio.run(orch.run(["improve"]))
    git(repo.root, "worktree", "remove", "--force", report.worktree)
    session = ReviewSession.open(repo, store, report.agent_id)
    assert str(session.worktree) != report.worktree
    _, second = pending_ids(session)
    session.reject(second, "use a constant")
    revised = asyncio.run(orch.revise(report.agent_id, session.feedback()))
    assert revised.status == "done", revised.error
    assert revised.worktree == str(session.worktree)
    assert (session.worktree / "app.py").read_text() == REVISED
    assert session.counts()["pending"] == 2  # LINE THREE still pending, the constant is new
