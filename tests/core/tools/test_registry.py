"""The tool registry: one `Tool` per built-in module, what the engine derives from it, and a
new tool added by writing one file, called end to end by an agent."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from cursorish.core.states import AgentState
from cursorish.core.tools import REGISTRY, Tool, ToolBox, ToolContext, ToolRegistry, ToolResult
from cursorish.core.workspace import Stage
from cursorish.errors import CursorishError
from cursorish.replay.scripted_server import ScriptedServer
from tests.core.agent_helpers import call, finish, run_tasks, settings_for

MakeRepo = Callable[..., Path]
SNAPSHOT = Path(__file__).with_name("planner_schemas.json")
BUILTINS = (
    "read_file",
    "list_files",
    "grep",
    "search_code",
    "find_symbol",
    "edit_file",
    "create_file",
    "delete_file",
    "run_command",
    "finish",
)


def names(keep: Callable[[Tool], object]) -> set[str]:
    return {t.name for t in REGISTRY.tools() if keep(t)}


def test_the_planner_sees_the_same_schemas_in_the_same_order() -> None:
    # planner_schemas.json is what the planner was sent before the registry existed.
    assert REGISTRY.names() == BUILTINS
    shown = json.dumps([t.schema for t in REGISTRY.tools()], indent=1)
    assert shown + "\n" == SNAPSHOT.read_text()


def test_what_the_engine_derives_from_each_tool() -> None:
    # What workspace.READ_TOOLS, cpu_slots.SLOTTED_TOOLS, tools.WRITE_TOOL_STATES,
    # conversation.PLAN_TOOLS and trust.POWER_TOOLS said before the registry.
    reading = {"read_file", "list_files", "grep", "search_code", "find_symbol"}
    assert names(lambda t: t.stage is Stage.CHECKED_OUT) == reading
    assert names(lambda t: t.slotted) == reading | {"create_file", "delete_file"}
    busy = {t.name: t.busy for t in REGISTRY.tools() if t.busy != AgentState.PLANNING}
    assert busy == {
        "edit_file": "applying",
        "create_file": "applying",
        "delete_file": "applying",
        "run_command": "running_command",
    }
    assert names(lambda t: t.read_only) == reading | {"finish"}
    assert names(lambda t: t.starts_processes) == {"run_command"}


def test_a_calls_target_and_the_defaults_of_a_tool_nobody_offers(tmp_path: Path) -> None:
    box = ToolBox(ToolContext(root=tmp_path, agent_id="a1"), ("read_file", "finish"))
    assert box.target("read_file", '{"path": "app.py"}') == "app.py"
    assert box.target("grep", '{"pattern": "x", "glob": "*.py"}') == "x"
    assert box.target("run_command", json.dumps({"command": "y" * 300})) == "y" * 120
    assert box.target("read_file", "{not json") == "" and box.target("finish", "[1]") == ""
    unknown = box.about("made_up")
    assert unknown.stage is Stage.PROVISIONED and not unknown.slotted
    assert unknown.busy == AgentState.PLANNING and not unknown.read_only


def test_a_profile_selects_in_registry_order_and_unknown_names_are_refused(
    tmp_path: Path,
) -> None:
    ctx = ToolContext(root=tmp_path, agent_id="a1")
    box = ToolBox(ctx, ("finish", "grep", "read_file"))
    assert box.allowed == ("read_file", "grep", "finish")
    assert [s["function"]["name"] for s in box.schemas(read_only=True)] == list(box.allowed)
    with pytest.raises(CursorishError, match=r"unknown tool\(s\) in profile: nope, gone"):
        ToolBox(ctx, ("read_file", "nope", "gone"))


def test_two_tools_of_one_name_and_a_module_without_a_tool_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = ToolRegistry(packages=())
    first = registry.register(Tool("x", "first", {}))
    assert registry.register(first) is first  # registering it again is harmless
    with pytest.raises(ValueError, match="two tools are called 'x'"):
        registry.register(Tool("x", "second", {}))
    package = tmp_path / "h11_no_tool"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(TypeError, match=r"h11_no_tool\.helper defines no TOOL"):
        registry.discover("h11_no_tool")


# A whole tool, as one file: what a new built-in looks like.
SHOUT = '''
"""shout: a throwaway tool of the registry's test."""

from __future__ import annotations

from typing import Any

from cursorish.core.tools.base import Tool, ToolResult, arguments
from cursorish.core.tools.tool_context import ToolContext
from cursorish.core.workspace import Stage


def shout(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    text = (ctx.root / args["path"]).read_text()
    return ToolResult(f"{args['path']} shouted: {text.upper()}")


TOOL = Tool(
    name="shout",
    description="Read a file in capitals.",
    parameters=arguments({"path": {"type": "string"}}, ["path"]),
    handler=shout,
    stage=Stage.CHECKED_OUT,
    slotted=True,
    read_only=True,
)
'''


@pytest.fixture
def shout_registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Tool]:
    package = tmp_path / "h11_extra_tools"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "shout.py").write_text(textwrap.dedent(SHOUT))
    monkeypatch.syspath_prepend(str(tmp_path))
    (tool,) = REGISTRY.discover("h11_extra_tools")
    try:
        yield tool
    finally:
        REGISTRY.unregister("shout")


def test_a_tool_written_as_one_file_is_called_by_an_agent_end_to_end(
    tmp_path: Path, make_repo: MakeRepo, shout_registered: Tool
) -> None:
    root = make_repo(tmp_path, {"app.py": "def main():\n    return 0\n"})
    turns = [call("shout", path="app.py"), finish("shouted")]
    with ScriptedServer(turns) as server:
        settings = settings_for(server)
        profile = replace(settings.profile, tools=(*settings.profile.tools, "shout"))
        (report,), store = run_tasks(root, ["shout it"], replace(settings, profile=profile))
        requests = server.requests
    # It finished after the call (gave_up only because no file changed).
    assert report.steps == 2 and report.summary == "shouted", report
    offered = [t["function"]["name"] for t in requests[0]["tools"]]
    assert offered == [*BUILTINS, "shout"]
    assert requests[0]["tools"][-1] == json.loads(json.dumps(shout_registered.schema))
    # The result reached the planner's next request.
    answer = requests[1]["messages"][-1]
    assert answer["role"] == "tool"
    assert answer["content"] == "app.py shouted: DEF MAIN():\n    RETURN 0\n"
    (stored,) = [t for t in store.tool_calls(report.agent_id) if t["name"] == "shout"]
    assert stored["ok"] and stored["result"].startswith("app.py shouted")
    store.close()


class EchoProvider:
    """Tools known at run time, as an agent's MCP servers offer them."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.closed = False

    def needs_prepare(self) -> bool:
        return False

    def prepare(self) -> None:
        pass

    def tools(self) -> list[Tool]:
        return [
            Tool(n, f"echo as {n}", {"type": "object"}, lambda _ctx, args: ToolResult(str(args)))
            for n in self.names
        ]

    def close(self) -> None:
        self.closed = True


def test_run_time_tools_come_through_the_registry_as_providers(tmp_path: Path) -> None:
    registry = ToolRegistry(providers=())
    seen: list[object] = []

    def echo(ctx: ToolContext, settings: object) -> EchoProvider | None:
        seen.append(settings)
        return EchoProvider(["echo__a"]) if settings == "with echo" else None

    registry.add_provider(echo)
    ctx = ToolContext(root=tmp_path, agent_id="a1")
    assert registry.providers_for(ctx, "without") == ()
    providers = registry.providers_for(ctx, "with echo")
    assert seen == ["without", "with echo"]
    box = ToolBox(ctx, ("finish",), providers, registry)
    assert [s["function"]["name"] for s in box.schemas()] == ["finish", "echo__a"]
    assert box.schemas(read_only=True) == [box.schemas()[0]]  # plan mode leaves it out
    assert box.call("echo__a", '{"x": 1}').text == "{'x': 1}"
    assert box.about("echo__a").stage is Stage.PROVISIONED
    box.close()
    assert all(isinstance(p, EchoProvider) and p.closed for p in providers)
    registry.remove_provider(echo)
    assert registry.providers_for(ctx, "with echo") == ()


def test_the_mcp_tools_are_a_provider_of_the_default_registry(tmp_path: Path) -> None:
    from cursorish.mcp.tools import mcp_tools_for

    assert mcp_tools_for in REGISTRY.factories()
    ctx = ToolContext(root=tmp_path, agent_id="a1")
    with ScriptedServer([]) as server:
        settings = settings_for(server)
    assert settings.mcp_servers == ()  # none configured: no provider (tests/mcp run them)
    assert REGISTRY.providers_for(ctx, settings) == ()
