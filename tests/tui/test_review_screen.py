"""ReviewScreen and CompareScreen driven by keys on a real ReviewSession (real git repo, real
store): accept, reject, reject with a reason sent to the agent, undo, commit, whole-file
decisions, navigation, the command palette, the watchdog refresh, compare, and snapshots."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from cursorish.core.review import ReviewSession
from cursorish.gitops.repo import open_repo
from cursorish.store.db import Store
from cursorish.tui.diff_view import ACCEPTED, PENDING, REJECTED
from cursorish.tui.review_app import ReviewApp, compare_app, review_app
from cursorish.tui.review_base import ReviewCommands
from cursorish.tui.review_screen import CompareScreen, ReviewScreen
from tests.conftest import ServerFactory, create_repo, git
from tests.core.agent_helpers import call, finish, orchestrator_for, settings_for
from tests.tui.test_diff_view import screen_text

APP = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(1, 16))
NOTES = "# Notes\n\nfirst line\nsecond line\n"


def _feature(root: Path, branch: str, edits: dict[str, str]) -> None:
    git(root, "checkout", "-q", "-b", branch, "main")
    for rel, text in edits.items():
        (root / rel).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"{branch} work")
    git(root, "checkout", "-q", "main")


def _open(root: Path, ref: str) -> ReviewSession:
    repo = open_repo(root)
    return ReviewSession.open(repo, Store.for_repo(repo.git_common_dir), ref)


@pytest.fixture
def session(tmp_path: Path) -> ReviewSession:
    root = create_repo(tmp_path / "r", {"app.py": APP, "notes.md": NOTES})
    _feature(
        root,
        "feature",
        {
            "app.py": APP.replace("x + 2\n", "x * 2  # doubled\n").replace("x + 14", "x - 14"),
            "notes.md": NOTES.replace("second line", "second line, edited"),
        },
    )
    return _open(root, "feature")


def _run(
    app: ReviewApp,
    body: Callable[[Pilot[int]], Awaitable[None]],
    size: tuple[int, int] = (100, 30),
) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await body(pilot)

    asyncio.run(main())


def _screen(pilot: Pilot[int]) -> ReviewScreen:
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


def _states(screen: ReviewScreen) -> list[tuple[str, str]]:
    return [(vf.path, h.state) for vf, h in screen.view.hunks()]


def _shows(screen: ReviewScreen, text: str) -> bool:
    return any(text in line.text for _, h in screen.view.hunks() for line in h.lines)


def _staged(session: ReviewSession) -> str:
    return git(session.worktree, "diff", "--cached", session.base)


def test_accept_stages_the_hunk_and_moves_on(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        screen = _screen(pilot)
        assert _states(screen) == [("app.py", PENDING), ("app.py", PENDING), ("notes.md", PENDING)]
        await pilot.press("a")
        assert _states(screen)[0] == ("app.py", ACCEPTED)
        assert screen.view.cursor == 1  # on to the next pending hunk
        staged = _staged(session)
        assert "+    return x * 2  # doubled" in staged and "x - 14" not in staged
        assert "1 accepted" in screen.status_text
        assert "✓ @@" in screen_text(pilot.app)

    _run(review_app(session), body)


def test_reject_reverts_the_hunk_in_the_worktree(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        screen = _screen(pilot)
        await pilot.press("j", "x")
        text = (session.worktree / "app.py").read_text()
        assert "x + 14" in text and "x * 2  # doubled" in text  # only the second hunk reverted
        assert _states(screen)[1] == ("app.py", REJECTED)
        assert _staged(session) == ""  # nothing accepted

    _run(review_app(session), body)


def test_reject_with_reason_goes_to_the_agent_and_its_revision_appears(
    session: ReviewSession,
) -> None:
    received: list[str] = []

    async def revise(feedback: str) -> None:
        received.append(feedback)
        # What an agent does on feedback: edits the worktree again.
        path = session.worktree / "app.py"
        path.write_text(path.read_text().replace("x + 14", "x - 14  # as asked"))

    async def body(pilot: Pilot[int]) -> None:
        screen = _screen(pilot)
        await pilot.press("j", "r")
        await pilot.pause()
        await pilot.press(*"keep the sign", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert len(received) == 1 and "keep the sign" in received[0]
        assert not screen.revising
        hunks = screen.view.hunks()
        assert any(
            h.state == PENDING and any("# as asked" in line.text for line in h.lines)
            for _, h in hunks
        )
        rejected = [h for _, h in hunks if h.state == REJECTED]
        assert [h.reason for h in rejected] == ["keep the sign"]

    _run(review_app(session, revise=revise), body)


def test_reasons_given_while_the_agent_revises_go_in_the_next_round(
    session: ReviewSession,
) -> None:
    received: list[str] = []
    release = asyncio.Event()

    async def revise(feedback: str) -> None:
        received.append(feedback)
        if len(received) == 1:
            await release.wait()

    async def body(pilot: Pilot[int]) -> None:
        screen = _screen(pilot)
        await pilot.press("r")
        await pilot.pause()
        await pilot.press(*"first reason", "enter")
        await pilot.pause()
        assert screen.revising and "agent is revising" in screen.status_text
        await pilot.press("r")
        await pilot.pause()
        await pilot.press(*"second reason", "enter")
        await pilot.pause()
        assert len(received) == 1  # not sent while the agent works
        await pilot.press("q")  # leaving is refused once while it works
        assert pilot.app.screen is screen and "q again" in screen.status_text
        release.set()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert len(received) == 2
        assert "second reason" in received[1] and "first reason" not in received[1]
        assert not screen.revising

    _run(review_app(session, revise=revise), body)


def test_reject_with_reason_round_trip_through_the_real_agent(
    tmp_path: Path, scripted_server: ServerFactory
) -> None:
    """The real orchestrator and planner client against a scripted server: the agent edits,
    the user rejects a hunk with a reason in the app, the agent gets the reason in its
    transcript and revises, the new hunk appears in the app."""
    lines = [f"line {i}\n" for i in range(1, 31)]
    edited = "".join([*lines[:2], "LINE THREE\n", *lines[3:24], "line 25 changed\n", *lines[25:]])
    revised = edited.replace("line 25 changed", "LINE_25 = CONSTANT")
    root = create_repo(tmp_path / "r", {"app.py": "".join(lines)})
    server = scripted_server(
        [
            call("edit_file", path="app.py", sketch=edited),
            finish("edited app.py"),
            call("edit_file", path="app.py", sketch=revised),  # served after the feedback
            finish("used a constant"),
        ]
    )
    orch, store = orchestrator_for(root, settings_for(server))

    async def main() -> None:
        (report,) = await orch.run(["improve the app"])
        assert report.status == "done"
        session = ReviewSession.open(open_repo(root), store, report.agent_id)

        async def revise(feedback: str) -> None:
            await orch.revise(report.agent_id, feedback)

        app = review_app(session, revise=revise)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            screen = _screen(pilot)
            await pilot.press("a", "r")  # accept LINE THREE, then reject line 25 with a reason
            await pilot.pause()
            await pilot.press(*"use a constant", "enter")
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            request = server.requests[-2]  # the planner call that produced the revision
            assert "use a constant" in request["messages"][-1]["content"]
            assert _shows(screen, "LINE_25 = CONSTANT")
            assert [s for _, s in _states(screen)] == [ACCEPTED, REJECTED, PENDING]
            assert "the agent revised" in screen.status_text

    asyncio.run(main())


def test_escape_in_the_reason_box_rejects_nothing(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        await pilot.press("r")
        await pilot.pause()
        await pilot.press(*"nope", "escape")
        await pilot.pause()
        assert all(state == PENDING for _, state in _states(_screen(pilot)))

    _run(review_app(session), body)


def test_undo_takes_back_the_last_decision(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        screen = _screen(pilot)
        before = (session.worktree / "app.py").read_text()
        await pilot.press("a", "x", "u")
        assert (session.worktree / "app.py").read_text() == before  # the reject is undone
        assert _states(screen)[:2] == [("app.py", ACCEPTED), ("app.py", PENDING)]
        assert screen.view.cursor == 1  # on the hunk that came back
        await pilot.press("u")
        assert _staged(session) == ""
        assert all(state == PENDING for _, state in _states(screen))

    _run(review_app(session), body)


def test_commit_puts_the_accepted_hunks_on_the_branch(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        screen = _screen(pilot)
        await pilot.press("a", "c")
        tip = git(session.worktree, "rev-parse", "feature").strip()
        assert f"committed {tip[:12]}" in screen.status_text
        committed = git(session.worktree, "show", "feature:app.py")
        assert "x * 2  # doubled" in committed and "x - 14" not in committed
        # what was not decided stays reviewable
        assert [s for _, s in _states(screen)] == [ACCEPTED, PENDING, PENDING]

    _run(review_app(session), body)


def test_commit_with_nothing_accepted_says_so(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        tip = git(session.worktree, "rev-parse", "feature")
        await pilot.press("c")
        assert "nothing accepted" in _screen(pilot).status_text
        assert git(session.worktree, "rev-parse", "feature") == tip

    _run(review_app(session), body)


def test_accept_and_reject_a_whole_file(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        screen = _screen(pilot)
        await pilot.press("A")
        assert _states(screen)[:2] == [("app.py", ACCEPTED), ("app.py", ACCEPTED)]
        assert screen.view.current is not None and screen.view.current[0].path == "notes.md"
        await pilot.press("X")
        assert ("notes.md", REJECTED) in _states(screen)
        assert (session.worktree / "notes.md").read_text() == NOTES

    _run(review_app(session), body)


def test_file_list_jumps_to_a_file_and_follows_the_cursor(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        screen = _screen(pilot)
        files = screen.query_one("#review-files")
        await pilot.press("J")
        assert getattr(files, "highlighted", None) == 1
        await pilot.click("#review-files", offset=(2, 0))  # the first option: app.py
        await pilot.pause()
        current = screen.view.current
        assert current is not None and current[0].path == "app.py"

    _run(review_app(session), body)


def test_every_action_is_in_the_command_palette(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        screen = _screen(pilot)
        titles = [title for title, _, _ in screen.palette_commands()]
        for wanted in ["Accept", "Reject", "Reject with reason", "Accept file", "Reject file"]:
            assert wanted in titles
        for wanted in ["Undo", "Commit", "Refresh", "Back", "Next hunk", "Next file"]:
            assert wanted in titles
        assert ReviewCommands in screen.COMMANDS
        # and running one from the palette does it
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Accept file")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert _states(screen)[:2] == [("app.py", ACCEPTED), ("app.py", ACCEPTED)]

    _run(review_app(session), body)


def test_an_edit_outside_cursorish_shows_up(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        screen = _screen(pilot)
        path = session.worktree / "notes.md"
        path.write_text(path.read_text() + "a line from the editor\n")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not _shows(screen, "a line from the editor"):
            await pilot.pause(0.05)
        assert _shows(screen, "a line from the editor")

    _run(review_app(session), body)


def test_q_closes_the_review_app(session: ReviewSession) -> None:
    async def body(pilot: Pilot[int]) -> None:
        await pilot.press("q")
        await pilot.pause()

    app = review_app(session)
    _run(app, body)
    assert app.return_code == 0


def test_compare_takes_a_hunk_from_the_right_side(tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"app.py": APP})
    _feature(root, "try-a", {"app.py": APP.replace("x + 3", "x + 30")})
    _feature(root, "try-b", {"app.py": APP.replace("x + 3", "x + 300")})
    a, b = _open(root, "try-a"), _open(root, "try-b")

    async def body(pilot: Pilot[int]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen)
        assert "try-a" in screen.status_text(0) and "try-b" in screen.status_text(1)
        await pilot.press("l", "a")
        assert "x + 300" in _staged(b)
        assert _staged(a) == ""
        assert "1 accepted" in screen.status_text(1) and "0 accepted" in screen.status_text(0)
        await pilot.press("h", "x")
        assert "x + 30\n" not in (a.worktree / "app.py").read_text()

    _run(compare_app(a, b), body, size=(160, 40))


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
def test_review_screen_snapshot(snap_compare: Any, session: ReviewSession, size: Any) -> None:
    assert snap_compare(review_app(session), terminal_size=size)


def test_review_screen_snapshot_light_theme(snap_compare: Any, session: ReviewSession) -> None:
    async def light(pilot: Pilot[int]) -> None:
        pilot.app.theme = "textual-light"
        await pilot.press("j", "a")  # an accepted hunk, the cursor on the next one

    assert snap_compare(review_app(session), terminal_size=(100, 30), run_before=light)


def test_compare_screen_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    root = create_repo(tmp_path / "r", {"app.py": APP})
    _feature(root, "try-a", {"app.py": APP.replace("x + 3", "x + 30")})
    _feature(root, "try-b", {"app.py": APP.replace("x + 3", "x + 300").replace("x + 9", "x")})
    app = compare_app(_open(root, "try-a"), _open(root, "try-b"))
    assert snap_compare(app, terminal_size=(160, 50))
