"""The events the app's transcript is built on, from the real tools: every apply step ends with
`apply_done`; the model route streams the new file as `apply_progress` events (a remote apply
model here: real litellm against the scripted server); tool events carry their call id."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cursorish.apply import router
from cursorish.core.events import Event
from cursorish.core.tools import ToolBox, ToolContext
from cursorish.core.tools.builtins.edit_file import APPLY_PROGRESS_S, ApplyProgress
from cursorish.replay.scripted_server import ScriptedServer

ORIGINAL = "def f(x):\n    return x\n\n\ndef g(y):\n    return y\n"
NEW = "def f(x):\n    return x + 1\n\n\ndef g(y):\n    return y\n"


@pytest.fixture
def clean_router() -> Iterator[None]:
    router.reset()
    yield
    router.reset()


def toolbox(root: Path, engine: str) -> tuple[ToolBox, list[Event]]:
    events: list[Event] = []
    ctx = ToolContext(root=root, agent_id="a1", apply_engine=engine, emit=events.append)
    return ToolBox(ctx), events


def test_a_deterministic_edit_ends_with_apply_done(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text(ORIGINAL)
    box, events = toolbox(tmp_path, "deterministic")
    sketch = "def f(x):\n    return x + 1\n\n\n# ... existing code ...\n"
    assert box.call("edit_file", json.dumps({"path": "f.py", "sketch": sketch})).ok
    kinds = [e.kind for e in events]
    assert kinds == ["applying", "file_changed", "apply_done"]
    done = events[-1].data
    assert done["path"] == "f.py" and done["outcome"] == "merged" and done["ms"] >= 0


def test_a_refused_edit_ends_with_apply_done_too(tmp_path: Path, clean_router: None) -> None:
    (tmp_path / "f.py").write_text(ORIGINAL)
    box, events = toolbox(tmp_path, "deterministic")
    result = box.call("edit_file", '{"path": "f.py", "sketch": "def h():\\n    pass\\n"}')
    assert not result.ok
    assert [e.kind for e in events] == ["applying", "apply_refused", "apply_done"]
    assert events[-1].data["outcome"] == "refused"


def test_the_model_route_streams_the_new_file(tmp_path: Path, clean_router: None) -> None:
    (tmp_path / "f.py").write_text(ORIGINAL)
    with ScriptedServer([{"content": f"<updated-code>{NEW}</updated-code>"}]) as server:
        router.configure(remote_api_base=server.base_url)
        box, events = toolbox(tmp_path, "model")
        result = box.call("edit_file", '{"path": "f.py", "sketch": "return x + 1"}')
    assert result.ok, result.text
    assert (tmp_path / "f.py").read_text() == NEW
    progress = [e for e in events if e.kind == "apply_progress"]
    assert progress and "".join(e.data["text"] for e in progress) == NEW
    assert progress[-1].data["chars"] == len(NEW)
    kinds = [e.kind for e in events]
    assert kinds[0] == "applying" and kinds.index("apply_done") > kinds.index("apply_progress")
    assert events[kinds.index("apply_done")].data["engine"] == "remote"


def test_apply_progress_is_throttled() -> None:
    events: list[Event] = []
    progress = ApplyProgress(ToolContext(root=Path("."), agent_id="a1", emit=events.append), "x")
    for _ in range(1000):
        progress("t")
    assert len(events) <= 1  # a thousand tokens within one interval: at most one event
    time.sleep(APPLY_PROGRESS_S)
    progress("u")
    progress.flush()
    assert "".join(e.data["text"] for e in events) == "t" * 1000 + "u"
    assert events[-1].data["chars"] == 1001 and len(events) <= 3
