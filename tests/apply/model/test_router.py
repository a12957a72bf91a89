"""The router: deterministic first, the configured apply model when the merge refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursorish.apply import router
from cursorish.apply.model.remote import RemoteApplyModel
from cursorish.apply.model.validate import REFUSAL_PREFIX
from cursorish.apply.result import Merged, Refused
from cursorish.errors import ConfigError, CursorishError, ExitCode
from cursorish.replay.scripted_server import ScriptedServer

ORIGINAL = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"
AMBIGUOUS = "# ... existing code ...\n    return 2\n# ... existing code ...\n"  # which function?
CLEAR = "def f():\n    return 2\n# ... existing code ...\n"
ANSWER = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"

pytestmark = pytest.mark.usefixtures("clean_router")


def test_auto_without_a_model_says_why_and_how_to_configure() -> None:
    outcome = router.apply_sketch(ORIGINAL, AMBIGUOUS, path="a.py")
    assert isinstance(outcome, Refused)
    assert "no telling where they go" in outcome.reason  # the deterministic reason
    for hint in ("--apply-model PATH", "CURSORISH_APPLY_MODEL", "apply_model"):
        assert hint in outcome.reason


def test_model_engine_without_a_model() -> None:
    outcome = router.apply_sketch(ORIGINAL, CLEAR, path="a.py", engine="model")
    assert isinstance(outcome, Refused) and outcome.engine == "model"
    assert "no apply model is configured" in outcome.reason


def test_auto_falls_back_to_the_configured_remote_model() -> None:
    with ScriptedServer([{"content": f"<updated-code>{ANSWER}</updated-code>"}]) as server:
        router.configure(remote_api_base=server.base_url)
        streamed: list[str] = []
        outcome = router.apply_sketch(ORIGINAL, AMBIGUOUS, path="a.py", on_token=streamed.append)
        assert isinstance(outcome, Merged), outcome
        assert outcome.engine == "remote" and outcome.text == ANSWER
        assert "".join(streamed) == ANSWER
        assert len(server.requests) == 1


def test_auto_does_not_call_the_model_when_the_merge_succeeds() -> None:
    with ScriptedServer([{"content": "<updated-code>wrong</updated-code>"}]) as server:
        router.configure(remote_api_base=server.base_url)
        outcome = router.apply_sketch(ORIGINAL, CLEAR, path="a.py")
        assert isinstance(outcome, Merged) and outcome.engine == "deterministic"
        assert server.requests == []


def test_both_refusals_are_reported() -> None:
    dropped = "<updated-code>def g():\n    return 2\n</updated-code>"  # f() is gone
    with ScriptedServer([{"content": dropped}]) as server:
        router.configure(remote_api_base=server.base_url)
        outcome = router.apply_sketch(ORIGINAL, AMBIGUOUS, path="a.py")
    assert isinstance(outcome, Refused)
    assert outcome.reason.startswith("deterministic merge: ")
    assert f"remote: {REFUSAL_PREFIX}" in outcome.reason
    assert "would be deleted" in outcome.reason


def test_a_hosted_format_needs_no_api_base() -> None:
    router.configure(remote_format="relace", remote_api_key="rk-test")
    model = router.configured_model()
    assert isinstance(model, RemoteApplyModel)
    assert model.api_base == "https://instantapply.endpoint.relace.run/v1/apply"
    assert model.model == "auto" and model.profile.name == "relace"


def test_format_model_and_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedServer([{"content": ANSWER}]) as server:
        monkeypatch.setenv("CURSORISH_APPLY_API_BASE", server.base_url)
        monkeypatch.setenv("CURSORISH_APPLY_REMOTE_FORMAT", "openai-predicted")
        monkeypatch.setenv("CURSORISH_APPLY_REMOTE_MODEL", "gpt-4o-mini")
        monkeypatch.setenv("CURSORISH_APPLY_API_KEY", "sk-proxy")
        outcome = router.apply_sketch(ORIGINAL, AMBIGUOUS, path="a.py")
        body, headers = server.requests[0], server.request_headers[0]
    assert isinstance(outcome, Merged) and outcome.text == ANSWER, outcome
    assert body["model"] == "gpt-4o-mini"
    assert body["prediction"] == {"type": "content", "content": ORIGINAL}
    assert headers["authorization"] == "Bearer sk-proxy"


def test_unknown_format_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="known: fastapply, morph, relace, openai-predicted"):
        router.configure(remote_format="cursor")
    monkeypatch.setenv("CURSORISH_APPLY_REMOTE_FORMAT", "cursor")
    with pytest.raises(ConfigError) as info:
        router.apply_sketch(ORIGINAL, AMBIGUOUS, path="a.py")
    assert info.value.exit_code == ExitCode.CONFIG


def test_environment_configures_the_local_model(
    monkeypatch: pytest.MonkeyPatch, tiny_model_path: Path
) -> None:
    monkeypatch.setenv("CURSORISH_APPLY_MODEL", str(tiny_model_path))
    model = router.configured_model()
    assert model is not None and model.engine_name == "model"
    # The random model never closes its answer, so the router reports a refusal, not a crash.
    outcome = router.apply_sketch(ORIGINAL, AMBIGUOUS, path="a.py", engine="model")
    assert isinstance(outcome, Refused) and outcome.engine == "model"


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    router.configure(model_path=str(tmp_path / "missing.gguf"))
    with pytest.raises(CursorishError, match="apply model not found"):
        router.apply_sketch(ORIGINAL, AMBIGUOUS, path="a.py")


def test_unknown_engine() -> None:
    with pytest.raises(ValueError, match="unknown engine"):
        router.apply_sketch(ORIGINAL, CLEAR, path="a.py", engine="magic")
