"""The remote apply backend, through real litellm calls to a local scripted server."""

from __future__ import annotations

from cursorish.apply.model.prompts import get_profile
from cursorish.apply.model.remote import RemoteApplyModel, TagFilter
from cursorish.apply.result import Merged, Refused
from cursorish.planner.scripted_server import ScriptedServer

ORIGINAL = "def f(x):\n    return x\n"
SKETCH = "def f(x):\n    return x + 1\n"


def test_merged_answer_and_request_format() -> None:
    with ScriptedServer([{"content": f"<updated-code>{SKETCH}</updated-code>"}]) as server:
        outcome = RemoteApplyModel(server.base_url).apply(ORIGINAL, SKETCH, path="f.py")
        request = server.requests[0]
    assert isinstance(outcome, Merged) and outcome.text == SKETCH and outcome.engine == "remote"
    assert request["temperature"] == 0
    assert f"<code>{ORIGINAL}</code>" in request["messages"][-1]["content"]


def test_morph_profile_and_streaming() -> None:
    with ScriptedServer([{"content": SKETCH}]) as server:
        model = RemoteApplyModel(server.base_url, model="morph-v3-fast")
        got: list[str] = []
        outcome = model.apply(
            ORIGINAL, SKETCH, path="f.py", instruction="add one", on_token=got.append
        )
        request = server.requests[0]
    assert model.profile.name == "morph"
    assert "<instruction>add one</instruction>" in request["messages"][-1]["content"]
    assert isinstance(outcome, Merged) and outcome.text == SKETCH == "".join(got)


def test_invalid_answer_is_refused() -> None:
    with ScriptedServer([{"content": "<updated-code>def f(x:\n</updated-code>"}]) as server:
        outcome = RemoteApplyModel(server.base_url).apply(ORIGINAL, SKETCH, path="f.py")
    assert isinstance(outcome, Refused) and "does not parse" in outcome.reason


def test_server_error_is_a_refusal_not_a_crash() -> None:
    script = [{"content": "x", "error": {"status": 500, "times": -1, "message": "boom"}}]
    with ScriptedServer(script) as server:
        outcome = RemoteApplyModel(server.base_url, timeout_s=10).apply(
            ORIGINAL, SKETCH, path="f.py"
        )
    assert isinstance(outcome, Refused) and "remote apply model" in outcome.reason


def test_tag_filter_streams_only_the_file() -> None:
    got: list[str] = []
    tag_filter = TagFilter(get_profile("fastapply"), got.append)
    for piece in ["Here:\n<upd", "ated-code>def f", "():\n    pass\n</upda", "ted-code> bye"]:
        tag_filter.feed(piece)
    tag_filter.close()
    assert "".join(got) == "def f():\n    pass\n"
