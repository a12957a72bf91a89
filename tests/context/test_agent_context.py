"""An agent against the scripted planner: its first request carries the repo map, and its
search_code / find_symbol calls answer from its own worktree (its edits included)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cursorish.context.agent_context import engine_for
from cursorish.context.engine import view_name
from cursorish.replay.scripted_server import ScriptedServer
from tests.core.agent_helpers import call, finish, run_tasks, settings_for


def find_symbol(name: str) -> dict[str, Any]:
    """A turn calling find_symbol (`call` takes the tool's name as its own `name`)."""
    return {"tool_calls": [{"name": "find_symbol", "arguments": {"name": name}}]}


FILES = {
    "billing/invoice.py": (
        "class InvoiceRenderer:\n"
        "    def render_total(self, lines):\n"
        "        return format_money(sum(lines))\n\n\n"
        "def format_money(cents):\n"
        "    return f'{cents / 100:.2f}'\n"
    ),
    "shop/cart.py": (
        "from billing.invoice import format_money\n\n\n"
        "def cart_summary(items):\n"
        "    return format_money(len(items))\n"
    ),
    "web/server.py": "def start_server(port):\n    return port\n",
    "README.md": "# shop\n",
}
TASK = "Show the invoice total with a currency symbol in InvoiceRenderer"


def _tool_results(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def test_repo_map_and_context_tools_in_an_agent_run(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    root = make_repo(tmp_path, FILES)
    turns = [
        call("search_code", query="invoice total currency", k=3),
        find_symbol("format_money"),
        call(
            "create_file",
            path="billing/currency.py",
            content="def currency_symbol():\n    return '$'\n",
        ),
        find_symbol("currency_symbol"),
        finish("looked around"),
    ]
    with ScriptedServer({TASK: turns}) as server:
        (report,), _ = run_tasks(root, [TASK], settings_for(server))
        requests = server.requests
    assert report.status == "done", report
    first_user = next(m for m in requests[0]["messages"] if m["role"] == "user")["content"]
    assert "Repository map" in first_user
    map_text = first_user.split("Repository map", 1)[1]
    assert map_text.index("billing/invoice.py") < map_text.index("shop/cart.py")
    assert "class InvoiceRenderer:" in map_text
    tools = {t["function"]["name"] for t in requests[0]["tools"]}
    assert {"search_code", "find_symbol"} <= tools

    search = _tool_results(requests[1])[0]
    assert search.splitlines()[0].startswith("billing/invoice.py")
    symbol = _tool_results(requests[2])[1]
    assert "definitions:\n  billing/invoice.py:6-7  function format_money" in symbol
    assert "shop/cart.py:5" in symbol  # a reference
    own = _tool_results(requests[4])[3]
    assert "billing/currency.py:1-2  function currency_symbol" in own
    # The agent's file is in its view only, not in the user's checkout's.
    engine = engine_for(root)
    engine.sync_worktree(root)
    assert engine.find_symbol(view_name(root), "currency_symbol") == []


def test_a_profile_budget_of_zero_means_no_map(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    from dataclasses import replace

    root = make_repo(tmp_path, FILES)
    with ScriptedServer({TASK: [finish("ok")]}) as server:
        settings = settings_for(server)
        settings = replace(settings, profile=replace(settings.profile, repo_map_tokens=0))
        (report,), _ = run_tasks(root, [TASK], settings)
        first_user = next(m for m in server.requests[0]["messages"] if m["role"] == "user")
    assert report.status in ("done", "gave_up")  # finished without a change
    assert first_user["content"].startswith(f"Task: {TASK}")
    assert "Repository map" not in first_user["content"]


def test_the_tools_answer_with_a_message_when_there_is_no_index(tmp_path: Path) -> None:
    from cursorish.context.agent_context import find_symbol as find
    from cursorish.context.agent_context import repo_map_for, search_code

    plain = tmp_path / "not-a-repo"
    plain.mkdir()
    assert search_code(plain, "anything", 5).startswith("error: the code index is not available")
    assert find(plain, "anything").startswith("error: the code index is not available")
    assert repo_map_for(plain, "anything", 1500) == ""


def test_search_code_keeps_provisioned_secrets_out(
    tmp_path: Path, make_repo: Callable[..., Path]
) -> None:
    from cursorish.context.agent_context import search_code

    root = make_repo(tmp_path, FILES)
    (root / "settings.local.py").write_text("INVOICE_API_TOKEN = 'secret'\n")
    found = search_code(root, "invoice api token", 5)
    assert "settings.local.py  (score" in found  # an untracked file is searched too
    hidden = search_code(root, "invoice api token", 5, frozenset({"settings.local.py"}))
    assert "settings.local.py" not in hidden
