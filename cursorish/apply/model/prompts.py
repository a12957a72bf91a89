"""Prompt formats of the open fast-apply models, and parsing of what they answer.

A profile is the contract between cursorish and one family of apply models: how the prompt is
laid out, which tags wrap the answer, and where the answer ends. Four are known:

- `fastapply`: Kortix FastApply (Qwen2.5-Coder, ChatML; served by vLLM or llama.cpp's server).
  The user turn holds `<code>{original}</code>` and `<update>{sketch}</update>`; the answer is
  `<updated-code>…</updated-code>`.
- `morph`: Morph's apply API, `<instruction>…</instruction>\\n<code>…</code>\\n<update>…</update>`
  as the only user message, answered with the bare merged file (ChatML around it locally).
- `relace`: Relace's OpenAI-compatible apply endpoint: the same three tags, each on its own line
  with a newline before and after, `<instruction>` only when there is one; the bare file back.
- `openai-predicted`: any chat model behind an OpenAI-style API with Predicted Outputs: the
  request carries `prediction={"type": "content", "content": original}`, so the provider
  drafts from the original file (speculative edits as a service); the bare file back.

For a local model the prompt is rendered as raw text ending in the assistant's opening tag, so
the first generated token is already the first token of the file: that is where the speculative
draft (the original file) lines up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FASTAPPLY_SYSTEM = (
    "You are a coding assistant that helps merge code updates, ensuring every modification is "
    "fully integrated."
)
FASTAPPLY_USER = (
    "Merge all changes from the <update> snippet into the <code> below.\n"
    "- Preserve the code's structure, order, comments, and indentation exactly.\n"
    "- Output only the updated code, enclosed within <updated-code> and </updated-code> tags.\n"
    "- Do not include any additional text, explanations, placeholders, ellipses, or code fences."
    "\n\n<code>{original}</code>\n\n<update>{sketch}</update>\n\n"
    "Provide the complete updated code."
)
MORPH_USER = (
    "<instruction>{instruction}</instruction>\n<code>{original}</code>\n<update>{sketch}</update>"
)
MORPH_DEFAULT_INSTRUCTION = "Apply the update to the code."
RELACE_USER = (
    "\n<instruction>{instruction}</instruction>\n"
    "<code>{original}</code>\n<update>{sketch}</update>\n"
)
RELACE_USER_BARE = "\n<code>{original}</code>\n<update>{sketch}</update>\n"
PREDICTED_SYSTEM = (
    "You merge a code edit into a file. The <update> shows only the changed parts of the file; "
    "comments such as '... existing code ...' stand for unchanged code. Reply with the complete "
    "updated file and nothing else: every line the update does not change exactly as it is in "
    "<code>, no explanations, no code fences."
)
PREDICTED_USER = (
    "<instruction>{instruction}</instruction>\n<code>{original}</code>\n<update>{sketch}</update>"
)

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"


@dataclass(frozen=True)
class Segment:
    """A piece of a raw prompt; `special` pieces may contain control tokens, the others never."""

    text: str
    special: bool


@dataclass(frozen=True)
class ApplyProfile:
    """How to talk to one family of apply models."""

    name: str
    system: str | None
    user_template: str  # format fields: {original} {sketch} {instruction}
    output_open: str  # tag the answer starts with ("" when the answer is the bare file)
    output_close: str  # tag the answer ends with ("" when it ends at end-of-turn)
    stop_strings: tuple[str, ...] = (IM_END, "<|endoftext|>")
    bare_template: str | None = None  # the user message when no instruction is given
    predicted: bool = False  # send the original as OpenAI's `prediction` (Predicted Outputs)
    default_model: str = "apply"  # model id when none is configured
    default_api_base: str | None = None  # the provider's endpoint, when it has a public one
    key_env: str | None = None  # the provider's usual API key variable

    def user_message(self, original: str, sketch: str, instruction: str | None = None) -> str:
        template = self.user_template
        if not instruction and self.bare_template is not None:
            template = self.bare_template
        # One pass over the template, so braces or field names inside the file stay literal.
        fields = {
            "original": original,
            "sketch": sketch,
            "instruction": instruction or MORPH_DEFAULT_INSTRUCTION,
        }
        return _FIELD.sub(lambda m: fields[m.group(1)], template)

    def messages(
        self, original: str, sketch: str, instruction: str | None = None
    ) -> list[dict[str, str]]:
        """The chat messages for an OpenAI-compatible endpoint."""
        out: list[dict[str, str]] = []
        if self.system:
            out.append({"role": "system", "content": self.system})
        out.append({"role": "user", "content": self.user_message(original, sketch, instruction)})
        return out

    def raw_prompt(
        self, original: str, sketch: str, instruction: str | None = None
    ) -> tuple[Segment, ...]:
        """The ChatML prompt for a local completion, ending with the answer's opening tag.

        User text is kept in non-special segments so a file that happens to contain
        `<|im_end|>` cannot end the turn early.
        """
        segments: list[Segment] = []
        if self.system:
            segments.append(Segment(f"{IM_START}system\n", True))
            segments.append(Segment(self.system, False))
            segments.append(Segment(f"{IM_END}\n", True))
        segments.append(Segment(f"{IM_START}user\n", True))
        segments.append(Segment(self.user_message(original, sketch, instruction), False))
        segments.append(Segment(f"{IM_END}\n{IM_START}assistant\n", True))
        if self.output_open:
            segments.append(Segment(self.output_open, False))
        return tuple(segments)

    def all_stops(self) -> tuple[str, ...]:
        """Strings that end the answer (the closing tag first)."""
        return ((self.output_close,) if self.output_close else ()) + self.stop_strings

    def parse_output(self, text: str) -> str:
        """The merged file inside a model's answer: wrapper tags and stop strings removed.

        Works on both a local completion (which starts after the prefilled opening tag) and a
        remote chat answer (which repeats the opening tag, maybe after some chatter or a fence).
        """
        if self.output_open:
            start = text.find(self.output_open)
            if start != -1:
                text = text[start + len(self.output_open) :]
        for stop in self.all_stops():
            end = text.find(stop)
            if end != -1:
                text = text[:end]
        return _strip_fence(text)


_FIELD = re.compile(r"\{(original|sketch|instruction)\}")
_FENCE = re.compile(r"\A\s*```[\w+.-]*\n(?P<body>.*?\n)```\s*\Z", re.DOTALL)


def _strip_fence(text: str) -> str:
    """Remove one Markdown fence around the whole answer (hosted models sometimes add one)."""
    match = _FENCE.match(text)
    return match.group("body") if match else text


PROFILES: dict[str, ApplyProfile] = {
    "fastapply": ApplyProfile(
        name="fastapply",
        system=FASTAPPLY_SYSTEM,
        user_template=FASTAPPLY_USER,
        output_open="<updated-code>",
        output_close="</updated-code>",
    ),
    "morph": ApplyProfile(
        name="morph",
        system=None,
        user_template=MORPH_USER,
        output_open="",
        output_close="",
        default_model="morph-v3-fast",
        default_api_base="https://api.morphllm.com/v1",
        key_env="MORPH_API_KEY",
    ),
    "relace": ApplyProfile(
        name="relace",
        system=None,
        user_template=RELACE_USER,
        bare_template=RELACE_USER_BARE,
        output_open="",
        output_close="",
        default_model="auto",
        default_api_base="https://instantapply.endpoint.relace.run/v1/apply",
        key_env="RELACE_API_KEY",
    ),
    "openai-predicted": ApplyProfile(
        name="openai-predicted",
        system=PREDICTED_SYSTEM,
        user_template=PREDICTED_USER,
        bare_template=PREDICTED_USER.split("\n", 1)[1],
        output_open="",
        output_close="",
        predicted=True,
        default_model="gpt-4.1-mini",
        default_api_base="https://api.openai.com/v1",
        key_env="OPENAI_API_KEY",
    ),
}


def get_profile(name: str) -> ApplyProfile:
    """The profile called `name`; raises `ValueError` naming the known ones otherwise."""
    profile = PROFILES.get(name.lower())
    if profile is None:
        raise ValueError(f"unknown apply prompt format {name!r}; known: {', '.join(PROFILES)}")
    return profile


def guess_profile(model_name: str, metadata: dict[str, str] | None = None) -> ApplyProfile:
    """Pick a profile from a GGUF file name or model id, then its metadata; FastApply otherwise."""
    haystacks = [Path(model_name).name.lower()]
    if metadata:
        haystacks += [metadata.get(key, "").lower() for key in ("general.name", "general.basename")]
    for text in haystacks:
        if "morph" in text:
            return PROFILES["morph"]
        if "relace" in text:
            return PROFILES["relace"]
        if text.startswith(("gpt-4o", "gpt-4.1")):
            return PROFILES["openai-predicted"]  # the models that take Predicted Outputs
        if "fastapply" in text or "fast-apply" in text or "fast_apply" in text:
            return PROFILES["fastapply"]
    return PROFILES["fastapply"]
