"""Prompt formats of the fast-apply model families, and parsing of their answers."""

from __future__ import annotations

import pytest

from cursorish.apply.model.prompts import get_profile, guess_profile

ORIGINAL = "def f():\n    return 1\n"
SKETCH = "def f():\n    return 2\n"


def test_fastapply_chat_messages() -> None:
    messages = get_profile("fastapply").messages(ORIGINAL, SKETCH)
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert f"<code>{ORIGINAL}</code>" in user
    assert f"<update>{SKETCH}</update>" in user
    assert user.index(f"<code>{ORIGINAL}") < user.index(f"<update>{SKETCH}")


def test_fastapply_raw_prompt_is_chatml_ending_in_the_answer_tag() -> None:
    segments = get_profile("fastapply").raw_prompt(ORIGINAL, SKETCH)
    text = "".join(s.text for s in segments)
    assert text.startswith("<|im_start|>system\n")
    assert text.endswith("<|im_end|>\n<|im_start|>assistant\n<updated-code>")
    # The user's file is never parsed for control tokens.
    assert all(not s.special for s in segments if ORIGINAL in s.text)


def test_morph_format() -> None:
    profile = get_profile("morph")
    messages = profile.messages(ORIGINAL, SKETCH, instruction="make f return 2")
    assert messages == [
        {
            "role": "user",
            "content": f"<instruction>make f return 2</instruction>\n<code>{ORIGINAL}</code>\n"
            f"<update>{SKETCH}</update>",
        }
    ]
    assert profile.parse_output(SKETCH + "<|im_end|>") == SKETCH


@pytest.mark.parametrize(
    "answer",
    [
        "def f():\n    return 2\n</updated-code>",  # a local completion after the prefilled tag
        "<updated-code>def f():\n    return 2\n</updated-code>",  # a chat answer
        "Sure!\n<updated-code>def f():\n    return 2\n</updated-code>\nDone.",
        "<updated-code>```python\ndef f():\n    return 2\n```</updated-code>",
        "def f():\n    return 2\n<|im_end|>",
    ],
)
def test_fastapply_output_parsing(answer: str) -> None:
    assert get_profile("fastapply").parse_output(answer) == SKETCH


def test_profile_guessing() -> None:
    assert guess_profile("/m/FastApply-1.5B-v1.0.Q8_0.gguf").name == "fastapply"
    assert guess_profile("/m/morph-v3-fast.gguf").name == "morph"
    assert guess_profile("/m/model.gguf", {"general.name": "Morph Apply"}).name == "morph"
    assert guess_profile("/m/unknown.gguf").name == "fastapply"


def test_unknown_profile_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="fastapply, morph"):
        get_profile("nope")
