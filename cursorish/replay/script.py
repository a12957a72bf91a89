"""The script a `ScriptedServer` replays: named conversations of turns, and how a request
picks one (the format is described in `scripted_server`'s docstring)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Conversation:
    name: str
    match: str
    turns: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class Script:
    conversations: tuple[Conversation, ...]

    @classmethod
    def from_data(cls, data: Any) -> Script:
        """Build a script from its JSON form (a list of turns or a mapping of conversations)."""
        if isinstance(data, Script):
            return data
        if isinstance(data, list):
            return cls((Conversation("default", "", _turns(data, "default")),))
        if not isinstance(data, dict) or not data:
            raise ValueError("a script is a list of turns or a non-empty mapping of conversations")
        conversations = []
        for name, body in data.items():
            if isinstance(body, list):
                match, turns = ("" if name == "default" else name), body
            elif isinstance(body, dict) and isinstance(body.get("turns"), list):
                match = str(body.get("match", "" if name == "default" else name))
                turns = body["turns"]
            else:
                raise ValueError(
                    f"conversation {name!r}: expected a list of turns or {{'turns': [...]}}"
                )
            conversations.append(Conversation(str(name), match, _turns(turns, str(name))))
        return cls(tuple(conversations))

    def select(self, first_user_message: str) -> Conversation | None:
        for conv in self.conversations:
            if conv.match and conv.match in first_user_message:
                return conv
        for conv in self.conversations:
            if conv.name == "default" or not conv.match:
                return conv
        return self.conversations[0] if len(self.conversations) == 1 else None


def _turns(turns: Sequence[Any], name: str) -> tuple[Mapping[str, Any], ...]:
    for i, turn in enumerate(turns):
        if not isinstance(turn, dict):
            raise ValueError(f"conversation {name!r}, turn {i}: a turn is a JSON object")
    return tuple(turns)


def load_script(path: Path) -> Script:
    """Read a script from a JSON file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON: {exc}") from exc
    try:
        return Script.from_data(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc


def first_user_text(messages: Sequence[Any]) -> str:
    """The first user message's text: what a conversation is selected by."""
    for m in messages:
        if isinstance(m, dict) and m.get("role") == "user":
            content = m.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):  # OpenAI content parts
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return ""
    return ""
