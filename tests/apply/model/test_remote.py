"""The remote apply backend, through real litellm calls to a local scripted server: the exact
request each prompt format sends, and the merge verifier on every answer."""

from __future__ import annotations

from typing import Any

import pytest

from cursorish.apply.model.prompts import get_profile
from cursorish.apply.model.remote import RemoteApplyModel, TagFilter
from cursorish.apply.model.validate import REFUSAL_PREFIX
from cursorish.apply.result import Merged, Refused
from cursorish.errors import CursorishError
from cursorish.replay.scripted_server import ScriptedServer

ORIGINAL = (
    "import os\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n\n\n"
    "def save(path, text):\n    with open(path, 'w') as f:\n        f.write(text)\n\n\n"
    "def size(path):\n    return os.path.getsize(path)\n"
)
SKETCH = (
    "# ... existing code ...\ndef save(path, text):\n"
    "    with open(path, 'w', encoding='utf-8') as f:\n        f.write(text)\n"
    "# ... existing code ...\n"
)
MERGED = ORIGINAL.replace("open(path, 'w')", "open(path, 'w', encoding='utf-8')")
# The two ways an apply model goes wrong: it drops code the sketch kept, or writes code of its own.
DROPPED = MERGED.replace("\n\ndef size(path):\n    return os.path.getsize(path)\n", "")
INVENTED = MERGED.replace("def size(path):", "def extra():\n    pass\n\n\ndef size(path):")

# The formats' user messages, written out here rather than built by the code under test.
FASTAPPLY_USER = (
    "Merge all changes from the <update> snippet into the <code> below.\n"
    "- Preserve the code's structure, order, comments, and indentation exactly.\n"
    "- Output only the updated code, enclosed within <updated-code> and </updated-code> tags.\n"
    "- Do not include any additional text, explanations, placeholders, ellipses, or code fences."
    f"\n\n<code>{ORIGINAL}</code>\n\n<update>{SKETCH}</update>\n\n"
    "Provide the complete updated code."
)


def _apply(
    answer: str, *, instruction: str | None = None, stream: bool = False, **kwargs: Any
) -> tuple[RemoteApplyModel, Any, dict[str, Any], dict[str, str], str]:
    """One apply against a server answering `answer`: (model, outcome, body, headers, streamed)."""
    with ScriptedServer([{"content": answer}]) as server:
        model = RemoteApplyModel(server.base_url, **kwargs)
        got: list[str] = []
        outcome = model.apply(
            ORIGINAL,
            SKETCH,
            path="io.py",
            instruction=instruction,
            on_token=got.append if stream else None,
        )
        assert len(server.requests) == 1
        return model, outcome, server.requests[0], server.request_headers[0], "".join(got)


def test_fastapply_request_and_answer() -> None:
    model, outcome, body, headers, streamed = _apply(
        f"<updated-code>{MERGED}</updated-code>", stream=True
    )
    assert model.profile.name == "fastapply"  # the default for an unknown model id
    assert body["model"] == "apply"
    assert body["messages"] == [
        {
            "role": "system",
            "content": "You are a coding assistant that helps merge code updates, ensuring "
            "every modification is fully integrated.",
        },
        {"role": "user", "content": FASTAPPLY_USER},
    ]
    assert body["temperature"] == 0 and body["stream"] is True
    assert "prediction" not in body
    assert headers["authorization"] == "Bearer none"  # a local server: no key of the user's
    assert isinstance(outcome, Merged) and outcome.text == MERGED and outcome.engine == "remote"
    assert streamed == MERGED


def test_morph_request() -> None:
    answer = "\n" + MERGED  # Morph's answers start with a newline the file does not have
    model, outcome, body, _, streamed = _apply(
        answer, instruction="I add an encoding to save", stream=True, model="morph-v3-fast"
    )
    assert model.profile.name == "morph"
    assert body["model"] == "morph-v3-fast"
    assert body["messages"] == [
        {
            "role": "user",
            "content": f"<instruction>I add an encoding to save</instruction>\n"
            f"<code>{ORIGINAL}</code>\n<update>{SKETCH}</update>",
        }
    ]
    assert "prediction" not in body
    assert isinstance(outcome, Merged) and outcome.text == MERGED
    assert streamed == answer  # streamed as it came


def test_relace_request_with_and_without_an_instruction() -> None:
    model, outcome, body, _, _ = _apply(MERGED, profile="relace")
    assert model.model == "auto" and body["model"] == "auto"
    assert body["messages"] == [
        {"role": "user", "content": f"\n<code>{ORIGINAL}</code>\n<update>{SKETCH}</update>\n"}
    ]
    assert isinstance(outcome, Merged) and outcome.text == MERGED
    _, _, body, _, _ = _apply(MERGED, profile="relace", instruction="add an encoding")
    assert body["messages"][0]["content"] == (
        f"\n<instruction>add an encoding</instruction>\n<code>{ORIGINAL}</code>\n"
        f"<update>{SKETCH}</update>\n"
    )


PREDICTED_SYSTEM = (
    "You merge a code edit into a file. The <update> shows only the changed parts of the file; "
    "comments such as '... existing code ...' stand for unchanged code. Reply with the complete "
    "updated file and nothing else: every line the update does not change exactly as it is in "
    "<code>, no explanations, no code fences."
)


def test_openai_predicted_outputs_request() -> None:
    _, outcome, body, _, streamed = _apply(
        MERGED, profile="openai-predicted", stream=True, api_key="sk-configured"
    )
    # The whole body: Predicted Outputs refuses n > 1, penalties, tools and max_completion_tokens,
    # so nothing else may go out with `prediction`.
    assert body == {
        "model": "gpt-4.1-mini",
        "messages": [
            {"role": "system", "content": PREDICTED_SYSTEM},
            {"role": "user", "content": f"<code>{ORIGINAL}</code>\n<update>{SKETCH}</update>"},
        ],
        "prediction": {"type": "content", "content": ORIGINAL},
        "temperature": 0,
        "stream": True,
    }
    assert isinstance(outcome, Merged) and outcome.text == MERGED and streamed == MERGED
    # A chat model may fence its answer; the fence is not part of the file.
    _, outcome, body, _, _ = _apply(
        f"```python\n{MERGED}```\n", profile="openai-predicted", instruction="add an encoding"
    )
    assert body["messages"][1]["content"] == (
        f"<instruction>add an encoding</instruction>\n<code>{ORIGINAL}</code>\n"
        f"<update>{SKETCH}</update>"
    )
    assert "stream" not in body and body["prediction"]["content"] == ORIGINAL
    assert isinstance(outcome, Merged) and outcome.text == MERGED


@pytest.mark.parametrize("fmt", ["fastapply", "morph", "relace"])
def test_the_apply_formats_send_nothing_else(fmt: str) -> None:
    answer = f"<updated-code>{MERGED}</updated-code>" if fmt == "fastapply" else MERGED
    _, outcome, body, _, _ = _apply(answer, profile=fmt)
    assert set(body) == {"model", "messages", "temperature"} and body["temperature"] == 0
    assert isinstance(outcome, Merged) and outcome.text == MERGED


def test_a_model_id_with_a_slash_goes_out_whole() -> None:
    # vLLM serves models under their hub names; litellm must not read "Kortix" as a provider.
    model, outcome, body, _, _ = _apply(
        f"<updated-code>{MERGED}</updated-code>", model="Kortix/FastApply-7B-v1.0"
    )
    assert body["model"] == "Kortix/FastApply-7B-v1.0" and model.profile.name == "fastapply"
    assert isinstance(outcome, Merged)


def test_an_id_with_the_openai_prefix_goes_out_whole_to_anyone_but_openai() -> None:
    # vLLM serving openai/gpt-oss-20b, or a gateway such as OpenRouter, names models that way.
    _, outcome, body, _, _ = _apply(MERGED, model="openai/gpt-oss-20b", profile="morph")
    assert body["model"] == "openai/gpt-oss-20b" and isinstance(outcome, Merged)
    # OpenAI's own API has no such ids: the prefix written litellm-style is litellm's route.
    own = RemoteApplyModel("https://api.openai.com/v1", model="openai/gpt-4.1-mini")
    assert own.request("a", "b")["model"] == "openai/gpt-4.1-mini"
    assert own.profile.name == "openai-predicted"
    plain = RemoteApplyModel("https://api.openai.com/v1", model="gpt-4.1")
    assert plain.request("a", "b")["model"] == "openai/gpt-4.1"


def test_model_id_picks_the_format() -> None:
    for model_id, name in [
        ("morph-v3-large", "morph"),
        ("relace-apply-3", "relace"),
        ("gpt-4.1-mini", "openai-predicted"),
        ("FastApply-7B-v1.0", "fastapply"),
        ("qwen2.5-coder", "fastapply"),
    ]:
        assert RemoteApplyModel("http://127.0.0.1:9/v1", model=model_id).profile.name == name


def test_a_providers_key_goes_only_to_that_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-users-openai-key")
    own = RemoteApplyModel("https://api.openai.com/v1", profile="openai-predicted")
    assert own.request("a", "b")["api_key"] == "sk-users-openai-key"
    # Any other endpoint with the same format (a proxy, a repository's config) never sees it.
    _, _, _, headers, _ = _apply(MERGED, profile="openai-predicted")
    assert headers["authorization"] == "Bearer none"
    _, _, _, headers, _ = _apply(MERGED, profile="openai-predicted", api_key="sk-for-proxy")
    assert headers["authorization"] == "Bearer sk-for-proxy"


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (DROPPED, "original lines 14-15 ('def size(path):') would be deleted"),
        (INVENTED, "merged line 14 ('def extra():') comes neither from the sketch nor"),
        ("import os\n", "the sketch lines"),
    ],
)
def test_the_verifier_refuses_answers_that_drop_or_invent_lines(answer: str, why: str) -> None:
    wrapped_fastapply = f"<updated-code>{answer}</updated-code>"
    for fmt, wrapped in [("fastapply", wrapped_fastapply), ("morph", answer)]:
        _, outcome, _, _, _ = _apply(wrapped, profile=fmt)
        assert isinstance(outcome, Refused) and outcome.engine == "remote", (fmt, outcome)
        assert outcome.reason.startswith(REFUSAL_PREFIX) and why in outcome.reason, outcome.reason


def test_an_answer_that_does_not_parse_is_refused() -> None:
    original = "def f(x):\n    return x\n"
    sketch = "def f(x):\n    return (x + 1\n"  # the planner's own syntax error
    with ScriptedServer([{"content": f"<updated-code>{sketch}</updated-code>"}]) as server:
        outcome = RemoteApplyModel(server.base_url).apply(original, sketch, path="f.py")
    assert isinstance(outcome, Refused) and "syntax" in outcome.reason, outcome


def test_server_error_is_a_refusal_not_a_crash() -> None:
    script = [{"content": "x", "error": {"status": 500, "times": -1, "message": "boom"}}]
    with ScriptedServer(script) as server:
        outcome = RemoteApplyModel(server.base_url, timeout_s=10).apply(
            ORIGINAL, SKETCH, path="io.py"
        )
    assert isinstance(outcome, Refused) and "remote apply model" in outcome.reason


def test_tag_filter_streams_only_the_file() -> None:
    got: list[str] = []
    tag_filter = TagFilter(get_profile("fastapply"), got.append)
    for piece in ["Here:\n<upd", "ated-code>def f", "():\n    pass\n</upda", "ted-code> bye"]:
        tag_filter.feed(piece)
    tag_filter.close()
    assert "".join(got) == "def f():\n    pass\n"


# What a user sees when the endpoint is wrong: one precise line naming the setting to check.


def test_an_endpoint_nobody_listens_on_says_so() -> None:
    outcome = RemoteApplyModel("http://127.0.0.1:1/v1", timeout_s=5).apply(
        ORIGINAL, SKETCH, path="io.py"
    )
    assert isinstance(outcome, Refused), outcome
    assert outcome.reason.startswith("remote apply model apply at http://127.0.0.1:1/v1 failed: ")
    assert "cannot connect to http://127.0.0.1:1/v1" in outcome.reason
    assert "apply_api_base" in outcome.reason and "tenacity" not in outcome.reason


def test_a_wrong_path_names_the_settings_to_check() -> None:
    with ScriptedServer([{"content": MERGED}]) as server:
        base = server.base_url.removesuffix("/v1") + "/api"  # not where the server listens
        outcome = RemoteApplyModel(base, timeout_s=5).apply(ORIGINAL, SKETCH, path="io.py")
    assert isinstance(outcome, Refused), outcome
    assert "HTTP 404" in outcome.reason and "check apply_api_base" in outcome.reason


def test_a_slow_endpoint_times_out_without_a_retry() -> None:
    with ScriptedServer([{"content": MERGED, "delay_s": 3}]) as server:
        outcome = RemoteApplyModel(server.base_url, timeout_s=0.5).apply(
            ORIGINAL, SKETCH, path="io.py"
        )
        assert len(server.requests) == 1
    assert isinstance(outcome, Refused) and outcome.reason.endswith("no answer within 0.5 s")


def test_a_rejected_key_names_where_keys_go() -> None:
    script = [{"content": MERGED, "error": {"status": 401, "times": -1, "message": "bad key"}}]
    with ScriptedServer(script) as server:
        outcome = RemoteApplyModel(server.base_url, profile="morph", timeout_s=5).apply(
            ORIGINAL, SKETCH, path="io.py"
        )
        assert len(server.requests) == 1  # the same key would be refused again
    assert isinstance(outcome, Refused), outcome
    assert "HTTP 401: the endpoint refused the API key" in outcome.reason
    assert "MORPH_API_KEY or apply_api_key / CURSORISH_APPLY_API_KEY" in outcome.reason


def test_a_busy_endpoint_is_tried_once_more() -> None:
    script = [{"content": MERGED, "error": {"status": 429, "times": 1, "retry_after": 0}}]
    with ScriptedServer(script) as server:
        outcome = RemoteApplyModel(server.base_url, profile="relace", timeout_s=5).apply(
            ORIGINAL, SKETCH, path="io.py"
        )
        assert len(server.requests) == 2
    assert isinstance(outcome, Merged) and outcome.text == MERGED


def test_a_stream_cut_off_is_refused_even_when_what_came_looks_whole() -> None:
    script = [{"content": MERGED, "cut": {"how": "no_finish", "times": -1}}]
    with ScriptedServer(script) as server:
        outcome = RemoteApplyModel(server.base_url, profile="morph").apply(
            ORIGINAL, SKETCH, path="io.py", on_token=lambda _: None
        )
    assert isinstance(outcome, Refused), outcome
    assert f"failed: the answer was cut off after {len(MERGED)} characters" in outcome.reason


def test_an_endpoint_that_does_not_stream_is_asked_for_the_whole_answer() -> None:
    script = [{"content": MERGED, "cut": {"how": "not_sse", "times": -1}}]
    with ScriptedServer(script) as server:
        got: list[str] = []
        outcome = RemoteApplyModel(server.base_url, profile="relace").apply(
            ORIGINAL, SKETCH, path="io.py", on_token=got.append
        )
        assert [r.get("stream") for r in server.requests] == [True, None]
    assert isinstance(outcome, Merged) and outcome.text == MERGED and "".join(got) == MERGED


@pytest.mark.parametrize("stream", [False, True])
def test_an_answer_stopped_at_the_token_limit_is_refused(stream: bool) -> None:
    with ScriptedServer([{"content": MERGED, "finish_reason": "length"}]) as server:
        outcome = RemoteApplyModel(server.base_url, profile="morph").apply(
            ORIGINAL, SKETCH, path="io.py", on_token=(lambda _: None) if stream else None
        )
    assert isinstance(outcome, Refused), outcome
    assert "failed: the answer stopped at the endpoint's token limit" in outcome.reason


def test_a_cancel_from_on_token_keeps_its_own_words() -> None:
    def cancelled(_: str) -> None:
        raise CursorishError("the edit was stopped: the agent was cancelled; file unchanged")

    with ScriptedServer([{"content": MERGED}]) as server:
        outcome = RemoteApplyModel(server.base_url, profile="morph").apply(
            ORIGINAL, SKETCH, path="io.py", on_token=cancelled
        )
    assert isinstance(outcome, Refused)
    assert outcome.reason == "the edit was stopped: the agent was cancelled; file unchanged"


def test_a_server_without_predicted_outputs_is_asked_again_without_the_draft() -> None:
    # vLLM and other OpenAI-compatible servers answer 400 to the `prediction` argument.
    message = "Extra inputs are not permitted: body.prediction"
    script = [
        {"content": MERGED, "error": {"status": 400, "times": 1, "message": message}},
        {"content": MERGED},
    ]
    with ScriptedServer(script) as server:
        model = RemoteApplyModel(server.base_url, profile="openai-predicted", timeout_s=5)
        first = model.apply(ORIGINAL, SKETCH, path="io.py")
        second = model.apply(ORIGINAL, SKETCH, path="io.py")
        bodies = list(server.requests)
    assert isinstance(first, Merged) and first.text == MERGED
    assert isinstance(second, Merged) and second.text == MERGED
    assert ["prediction" in body for body in bodies] == [True, False, False]


def test_another_bad_request_is_not_retried() -> None:
    script = [{"content": MERGED, "error": {"status": 400, "times": -1, "message": "bad model"}}]
    with ScriptedServer(script) as server:
        model = RemoteApplyModel(server.base_url, profile="openai-predicted", timeout_s=5)
        outcome = model.apply(ORIGINAL, SKETCH, path="io.py")
        assert len(server.requests) == 1
    assert isinstance(outcome, Refused) and "HTTP 400" in outcome.reason
    assert model.sends_prediction
