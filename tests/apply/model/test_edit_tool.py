"""The model route as the planner meets it: the edit_file tool, the router, a remote apply model
(real litellm over HTTP to the scripted server) and the merge verifier on its answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cursorish.apply import router
from cursorish.apply.model.validate import REFUSAL_PREFIX
from cursorish.core.tools import ToolBox, ToolContext
from cursorish.replay.scripted_server import ScriptedServer

ORIGINAL = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"
AMBIGUOUS = "# ... existing code ...\n    return 2\n# ... existing code ...\n"  # which function?
ANSWER = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"

pytestmark = pytest.mark.usefixtures("clean_router")


def _edit(tmp_path: Path, answer: str) -> tuple[bool, str, str]:
    (tmp_path / "a.py").write_text(ORIGINAL)
    with ScriptedServer([{"content": f"<updated-code>{answer}</updated-code>"}]) as server:
        router.configure(remote_api_base=server.base_url)
        box = ToolBox(ToolContext(root=tmp_path, agent_id="a1"))
        result = box.call("edit_file", json.dumps({"path": "a.py", "sketch": AMBIGUOUS}))
        assert len(server.requests) == 1  # the deterministic merge refused; the model was asked
    return result.ok, result.text, (tmp_path / "a.py").read_text()


def test_a_verified_model_answer_is_written(tmp_path: Path) -> None:
    ok, text, content = _edit(tmp_path, ANSWER)
    assert ok, text
    assert content == ANSWER


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("def g():\n    return 2\n", "original lines 1-2 ('def f():') would be deleted"),
        (ANSWER + "\n\ndef h():\n    return 3\n", "('def h():') comes neither from the sketch"),
    ],
    ids=["drops-lines", "invents-lines"],
)
def test_the_planner_is_told_why_a_model_answer_was_refused(
    tmp_path: Path, answer: str, why: str
) -> None:
    ok, text, content = _edit(tmp_path, answer)
    assert not ok
    assert text.startswith("edit of a.py refused: deterministic merge: ")
    assert f"remote: {REFUSAL_PREFIX}: " in text and why in text, text
    assert "The file is unchanged." in text
    assert content == ORIGINAL


def test_the_planners_instruction_reaches_the_apply_model(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(ORIGINAL)
    with ScriptedServer([{"content": ANSWER}]) as server:
        router.configure(remote_api_base=server.base_url, remote_format="morph")
        box = ToolBox(ToolContext(root=tmp_path, agent_id="a1"))
        arguments = {"path": "a.py", "sketch": AMBIGUOUS, "instruction": "g returns 2"}
        result = box.call("edit_file", json.dumps(arguments))
        body = server.requests[0]
    assert result.ok, result.text
    assert body["messages"][0]["content"].startswith("<instruction>g returns 2</instruction>\n")
    assert (tmp_path / "a.py").read_text() == ANSWER
