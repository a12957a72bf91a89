"""One attempt at a planner turn: the request sent once, its answer read whole or as a stream.

Retrying is the client's business (`client.Planner.complete`); what fails here raises, and
`failures.classify` decides whether it is worth another attempt. An exception from the
caller's `on_text` is wrapped in `CallbackError` so that it is never taken for a planner
failure and retried.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cursorish.planner.failures import CutReply, MalformedReply, stream_ended_early
from cursorish.planner.reply import PlannerReply, ToolCall, Usage

OnText = Callable[[str], None]
# USD for a turn from its prompt and completion tokens (and the whole response when there is one).
Cost = Callable[[int, int, Any], float]


async def whole(
    litellm: Any, request: dict[str, Any], on_text: OnText | None, cost: Cost
) -> PlannerReply:
    """Send `request` once and read the answer in one piece."""
    response = await litellm.acompletion(**request)
    if not response.choices:
        raise MalformedReply("the response has no choices")
    choice = response.choices[0]
    message = choice.message
    content = message.content or ""
    if content and on_text is not None:
        _emit(on_text, content)
    calls = tuple(
        ToolCall(
            id=call.id or f"call_{i}",
            name=call.function.name or "",
            arguments=call.function.arguments or "",
        )
        for i, call in enumerate(message.tool_calls or ())
    )
    prompt, completion = _token_counts(getattr(response, "usage", None))
    price = cost(prompt, completion, response)
    return PlannerReply(
        content=content,
        tool_calls=calls,
        usage=Usage(prompt, completion, price),
        finish_reason=choice.finish_reason,
        model=str(getattr(response, "model", None) or request["model"]),
        elapsed_s=0.0,
        retries=0,
    )


async def streamed(
    litellm: Any, request: dict[str, Any], on_text: OnText | None, cost: Cost, timeout_s: float
) -> PlannerReply:
    """Send `request` once as a stream: text deltas go to `on_text` as they arrive, tool-call
    deltas are assembled by index; a stall longer than `timeout_s` is a timeout."""
    request = {**request}
    request["stream"] = True
    request["stream_options"] = {"include_usage": True}
    stream = await litellm.acompletion(**request)
    text: list[str] = []
    calls: dict[int, _PartialCall] = {}
    finish: str | None = None
    usage_obj: Any = None
    reply_model: str | None = None
    chunks = stream.__aiter__()
    while True:
        try:
            # A stalled stream is a timeout too, not just a slow response head.
            chunk = await asyncio.wait_for(chunks.__anext__(), timeout_s)
        except StopAsyncIteration:
            break
        except Exception as exc:
            if stream_ended_early(exc):
                break  # no finish reason came: the check below says so
            raise
        reply_model = reply_model or getattr(chunk, "model", None)
        if getattr(chunk, "usage", None) is not None:
            usage_obj = chunk.usage
        for choice in getattr(chunk, "choices", None) or ():
            if choice.finish_reason:
                finish = choice.finish_reason
            delta = choice.delta
            if delta is None:
                continue
            if delta.content:
                text.append(delta.content)
                if on_text is not None:
                    _emit(on_text, delta.content)
            for tc in delta.tool_calls or ():
                _merge_call_delta(calls, tc)
    # litellm ends every stream with a finish reason, making up "stop" when the provider sent
    # none; its wrapper remembers whether one really came. None came: the body ended early
    # (a dropped connection) or was no event stream at all, and what arrived is only part
    # of the answer, never to be taken for the whole of it.
    if hasattr(stream, "received_finish_reason"):
        mid = getattr(stream, "intermittent_finish_reason", None)
        sent = stream.received_finish_reason or mid
    else:
        sent = finish
    if not sent:
        raise CutReply(
            f"the answer ended without a finish reason after {len(''.join(text))} characters "
            f"and {len(calls)} tool call(s): the stream was cut off, or the endpoint did not "
            "answer with an event stream"
        )
    prompt, completion = _token_counts(usage_obj)
    price = cost(prompt, completion, None)
    return PlannerReply(
        content="".join(text),
        tool_calls=tuple(calls[i].finish(i) for i in sorted(calls)),
        usage=Usage(prompt, completion, price),
        finish_reason=finish,
        model=str(reply_model or request["model"]),
        elapsed_s=0.0,
        retries=0,
    )


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def finish(self, index: int) -> ToolCall:
        return ToolCall(self.id or f"call_{index}", self.name, "".join(self.arguments))


def _merge_call_delta(calls: dict[int, _PartialCall], tc: Any) -> None:
    index = getattr(tc, "index", None)
    call_id = getattr(tc, "id", None)
    if index is None:  # some providers omit it: a new id starts a new call
        known = [i for i, c in calls.items() if call_id and c.id == call_id]
        if known:
            index = known[0]
        elif call_id or not calls:
            index = len(calls)
        else:
            index = max(calls)
    part = calls.setdefault(int(index), _PartialCall())
    if call_id:
        part.id = call_id
    fn = getattr(tc, "function", None)
    if fn is not None:
        if getattr(fn, "name", None):
            part.name = fn.name
        if getattr(fn, "arguments", None):
            part.arguments.append(fn.arguments)


def _token_counts(usage: Any) -> tuple[int, int]:
    if usage is None:
        return 0, 0
    get = usage.get if isinstance(usage, dict) else lambda k, d=None: getattr(usage, k, d)
    return int(get("prompt_tokens", 0) or 0), int(get("completion_tokens", 0) or 0)


class CallbackError(Exception):
    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


def _emit(on_text: Callable[[str], None], text: str) -> None:
    try:
        on_text(text)
    except Exception as exc:
        raise CallbackError(exc) from exc
