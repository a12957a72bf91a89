"""The repo map: ranked files with their signatures, inside the token budget."""

from __future__ import annotations

from pathlib import Path

from cursorish.context.engine import ContextEngine, view_name
from cursorish.context.rank import parse_task
from cursorish.context.repomap import estimate_tokens, repo_map
from tests.conftest import create_repo, git


def _repo(tmp_path: Path) -> Path:
    files = {
        f"pkg/module_{i}.py": f"def handler_{i}(event):\n    return event\n\n\n"
        f"class Widget{i}:\n    def draw(self):\n        pass\n"
        for i in range(40)
    }
    files["pkg/payments.py"] = (
        "class PaymentGateway:\n    def charge_card(self, amount):\n        return amount\n"
    )
    return create_repo(tmp_path / "repo", files)


def test_the_map_puts_the_task_files_first_and_keeps_the_budget(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    engine = ContextEngine(tmp_path / "ctx.db")
    engine.sync_worktree(repo)
    text = repo_map(engine, view_name(repo), "Charge the card twice in PaymentGateway", 300)
    lines = text.splitlines()
    assert lines[1] == "pkg/payments.py"
    assert "class PaymentGateway:" in lines[2] and "def charge_card" in lines[3]
    assert estimate_tokens(text) <= 300
    assert estimate_tokens(repo_map(engine, view_name(repo), "widget draw handler", 1500)) <= 1500
    assert repo_map(engine, view_name(repo), "anything", 0) == ""


def test_a_task_with_no_match_still_gets_a_map(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    engine = ContextEngine(tmp_path / "ctx.db")
    engine.sync_worktree(repo)
    text = repo_map(engine, view_name(repo), "zzz qqq", 200)
    assert text.startswith("Repository map") and "pkg/" in text


def test_task_parsing_finds_identifiers_and_drops_noise() -> None:
    q = parse_task("Fix `max_redirects` in RedirectHandler.send() (#123) see https://x.io/a")
    assert {"max_redirects", "RedirectHandler"} <= set(q.identifiers)
    assert "redirect" in q.terms and "handler" in q.terms and "max_redirects" in q.terms
    assert "fix" not in q.terms and "123" not in q.terms and "https" not in q.terms


def test_a_commits_map_is_kept_and_a_failed_one_keeps_nothing(tmp_path: Path) -> None:
    from cursorish.context import agent_context

    root = _repo(tmp_path)
    head = git(root, "rev-parse", "HEAD").strip()
    first = agent_context.repo_map_for_commit(root, head, "greet", 400)
    assert (
        first
        and agent_context.repo_map_for_commit(root, head, "greet", 400)
        is agent_context._MAPS[(str(root), head, "greet", 400)]
    )
    missing = "0" * 40  # no such commit: no map, tried again next time, no lock left behind
    assert agent_context.repo_map_for_commit(root, missing, "greet", 400) == ""
    assert (str(root), missing, "greet", 400) not in agent_context._MAP_LOCKS
    assert (str(root), missing, "greet", 400) not in agent_context._MAPS
