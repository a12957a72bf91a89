"""The selected agent's transcript: its history from the store, then its live events.

What the planner writes streams into one block as it arrives; every tool call is a folded
`ToolBlock` (one line: tool, target, outcome and time; unfolded: arguments and result) keyed by
its call id, so the stored record and the live events fill the same block whichever comes
first; the apply step shows while it runs, with the model route's output as it is decoded.

A view is built from the store plus the bridge's `snapshot()` (the live state and the last
sequence number it covers); later events with a higher number are applied on top, so
nothing shows twice and nothing is lost when the user switches agents mid-run.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.text import Text as RichText
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import AwaitMount
from textual.widgets import Static

from cursorish.core import events as ev
from cursorish.core.events import Event
from cursorish.core.text import escape_controls, first_line
from cursorish.tui.agents_panel import LINE_LIMIT, STATE_LABEL, AgentRow, answer_verb
from cursorish.tui.bridge import LiveState


class Text(RichText):
    """Rich text that shows what a terminal would act on escaped (`\\e`, `\\r`, ...): planner
    replies, tool results and file contents reach the transcript, and an ESC or OSC sequence in
    them must not restyle the screen or write the clipboard. Rich drops only BEL, BS, VT, FF
    and CR; ESC would reach the terminal."""

    def __init__(self, text: str = "", *args: Any, **kwargs: Any) -> None:
        super().__init__(escape_controls(text), *args, **kwargs)

    def append(self, text: str | RichText, style: Any = None) -> Text:
        super().append(escape_controls(text) if isinstance(text, str) else text, style)
        return self


MAX_USER_CHARS = 600
MAX_BODY_CHARS = 6_000
APPLY_TAIL_LINES = 6
MAX_SHOWN = 30  # blocks of a stored transcript mounted at once (the rest on demand)
FINAL_MARK = {"done": "✓", "gave_up": "∅", "cancelled": "⊘", "interrupted": "⏸"}


def _args_text(name: str, arguments: Any) -> str:
    """Tool arguments as readable lines (a sketch or file content as a block)."""
    try:
        args = json.loads(arguments) if isinstance(arguments, str) else arguments
    except (json.JSONDecodeError, TypeError):
        return str(arguments)
    if not isinstance(args, dict):
        return str(args)
    lines = []
    for key, value in args.items():
        if isinstance(value, str) and "\n" in value:
            lines.append(f"{key}:")
            lines.extend("  " + line for line in value.splitlines())
        else:
            lines.append(f"{key}: {value}")
    return "\n".join(lines) or f"{name}()"


def _target(arguments: Any) -> str:
    try:
        args = json.loads(arguments) if isinstance(arguments, str) else arguments
    except (json.JSONDecodeError, TypeError):
        return ""
    if isinstance(args, dict):
        for key in ("path", "pattern", "command", "directory", "glob", "summary"):
            if isinstance(args.get(key), str):
                return first_line(str(args[key]), 80)
    return ""


def _clip_body(text: str) -> str:
    if len(text) <= MAX_BODY_CHARS:
        return text
    return text[:MAX_BODY_CHARS] + f"\n… ({len(text) - MAX_BODY_CHARS:,} more characters)"


class ToolBlock(Static, can_focus=True):
    """One tool call, folded to one line (tool, target, outcome, time); a click, enter or space
    unfolds its arguments and result. One widget per call keeps a long transcript quick to
    build (a `Collapsible` is five)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "fold", "Fold/unfold", show=False)
    ]

    collapsed: reactive[bool] = reactive(True)

    def __init__(self, call_id: str, name: str, arguments: Any) -> None:
        self.call_id = call_id
        self.tool = name
        self.target = _target(arguments)
        self.ok: bool | None = None
        self.ms: float | None = None
        self.args_text = _clip_body(_args_text(name, arguments))
        self.result_text = "(running…)"
        super().__init__(self._content(collapsed=True), classes="tool")

    def label_text(self) -> str:
        mark = "⋯" if self.ok is None else "✓" if self.ok else "✗"
        time = f" · {self.ms:.0f} ms" if self.ms is not None else ""
        return f"{mark} {self.tool} {self.target}".rstrip() + time

    def _content(self, *, collapsed: bool) -> Text:
        style = "" if self.ok is None else "green" if self.ok else "red"
        text = Text(no_wrap=collapsed, overflow="ellipsis")
        text.append("▶ " if collapsed else "▼ ", style="dim")
        text.append(self.label_text(), style=style)
        if not collapsed:
            for block, dim in ((self.args_text, True), (self.result_text, False)):
                text.append("\n")
                for line in block.splitlines() or [""]:
                    text.append("\n    " + line, style="dim" if dim else "")
        return text

    def watch_collapsed(self, collapsed: bool) -> None:
        self.update(self._content(collapsed=collapsed))

    def on_click(self) -> None:
        self.collapsed = not self.collapsed

    def action_fold(self) -> None:
        self.collapsed = not self.collapsed

    def set_result(self, text: str | None = None, ok: bool | None = None, ms: Any = None) -> None:
        if text is not None:
            self.result_text = _clip_body(text)
        if ok is not None:
            self.ok = ok
            self.set_class(not ok, "failed")
        if ms is not None:
            self.ms = float(ms)
        self.update(self._content(collapsed=self.collapsed))


class EarlierBlocks(Static, can_focus=True):
    """Stands for the older part of a long transcript; a click (or enter) shows it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "show_earlier", "Show earlier", show=False)
    ]

    def __init__(self, blocks: list[Static | ToolBlock]) -> None:
        self.blocks = blocks
        label = f"▲ {len(blocks)} earlier entries (click or enter to show them)"
        super().__init__(Text(label), classes="earlier")

    def on_click(self) -> None:
        self.action_show_earlier()

    def action_show_earlier(self) -> None:
        parent = self.parent
        if isinstance(parent, Transcript):
            parent.mount_all(self.blocks, after=self)
            self.remove()


class Transcript(VerticalScroll):
    """The transcript view of one agent (or a hint when none is selected)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.agent_id: str | None = None
        self.base_seq = 0
        self.tools: dict[str, ToolBlock] = {}
        self._stream: Static | None = None
        self._stream_text = ""
        self._apply: Static | None = None
        self._apply_path = ""
        self._apply_text = ""
        self._ask: Static | None = None
        self._final: Static | None = None
        # The planner's last text block and its text: a plan is usually that very text.
        self._last_reply: tuple[Static, str] | None = None
        self._last_mount: AwaitMount | None = None
        # A scroll to the end is scheduled and has not run: the view still counts as following.
        self._follow_pending = False
        self.queued: dict[int, Static] = {}  # message id -> its "queued" line

    def on_mount(self) -> None:
        self.border_title = "Transcript"
        self.can_focus = True

    # -- building ----------------------------------------------------------------------------

    def show(
        self,
        agent: AgentRow | None,
        entries: list[dict[str, Any]],
        seq: int,
        live: LiveState,
    ) -> None:
        """Rebuild for `agent` from stored `entries` and the live state as of `seq`."""
        self.remove_children()
        self.tools.clear()
        self.queued.clear()
        self._stream = self._apply = self._ask = self._final = None
        self._last_reply = None
        self._stream_text = self._apply_text = self._apply_path = ""
        self.agent_id = agent.id if agent else None
        self.base_seq = seq
        if agent is None:
            self.border_title = "Transcript"
            self.mount(Static(Text("No agent selected. Press n to start one."), classes="hint"))
            return
        self.border_title = f"Transcript · {agent.id}"
        widgets: list[Static | ToolBlock] = []
        for entry in entries:
            widgets.extend(self._from_entry(entry))
        if len(widgets) > MAX_SHOWN:
            # Switching agents must stay quick however long a history is: the older part
            # waits behind one line until asked for.
            earlier, widgets = widgets[:-MAX_SHOWN], widgets[-MAX_SHOWN:]
            self.mount(EarlierBlocks(earlier))
        self._last_mount = self.mount_all(widgets)
        if agent.ended:
            self.set_final(agent.state, agent.activity)
        if live.text:
            self._append_stream(live.text)
        if live.apply_path:
            self._show_apply(live.apply_path, live.apply_text)
        if live.asking:
            self._show_ask(live.asking)
        self._follow()

    def _from_entry(self, entry: dict[str, Any]) -> list[Static | ToolBlock]:
        kind = entry.get("kind")
        out: list[Static | ToolBlock] = []
        if kind == "message":
            message = entry.get("message") or {}
            role = message.get("role")
            content = message.get("content")
            if role == "user" and isinstance(content, str):
                text = content.split("\n\nRepository files (", 1)[0]
                if len(text) > MAX_USER_CHARS:
                    text = text[:MAX_USER_CHARS] + "…"
                out.append(Static(Text(text), classes="user"))
            elif role == "assistant":
                if isinstance(content, str) and content.strip():
                    block = Static(Text(content.strip()), classes="assistant")
                    # A plan event after a rebuild marks this block instead of showing twice.
                    self._last_reply = (block, content)
                    out.append(block)
                for call in message.get("tool_calls") or []:
                    fn = call.get("function") or {}
                    call_id = str(call.get("id") or "")
                    if call_id and call_id not in self.tools:
                        block = ToolBlock(call_id, str(fn.get("name")), fn.get("arguments"))
                        self.tools[call_id] = block
                        out.append(block)
            elif role == "tool":
                found = self.tools.get(str(message.get("tool_call_id") or ""))
                if found is not None:
                    found.set_result(str(content or ""))
        elif kind == "tool_call":
            found = self.tools.get(str(entry.get("call_id") or ""))
            if found is not None:
                found.set_result(ok=bool(entry.get("ok")), ms=entry.get("elapsed_ms"))
        return out

    # -- live --------------------------------------------------------------------------------

    def apply_events(self, events: list[tuple[int, Event]]) -> None:
        """Apply the batch's events of the shown agent that the view does not cover yet."""
        if self.agent_id is None:
            return
        mine = [e for seq, e in events if seq > self.base_seq and e.agent_id == self.agent_id]
        if not mine:
            return
        # Events that come while the last follow's scroll is still waiting for its mount would
        # otherwise find the view short of the end and stop following.
        follow = self._follow_pending or self.is_vertical_scroll_end or self.max_scroll_y == 0
        text = ""
        for event in mine:
            if isinstance(event, ev.PlannerText):
                text += event.text
                continue
            if text:
                self._append_stream(text)
                text = ""
            self._apply_event(event)
        if text:
            self._append_stream(text)
        if follow:  # the user was reading the end: keep it in view
            self._follow()

    def _followed(self) -> None:
        self._follow_pending = False

    def _follow(self) -> None:
        """Scroll to the end once what was just mounted is laid out."""
        pending, self._last_mount = self._last_mount, None
        self._follow_pending = True

        async def scroll() -> None:
            if pending is not None:
                await pending
            self.scroll_end(animate=False, on_complete=self._followed)

        self.call_later(scroll)

    def _apply_event(self, event: Event) -> None:
        match event:
            case ev.Queued(task=task):
                self._note(f"queued: {first_line(task, LINE_LIMIT)}")
            case ev.WorktreeReady(branch=branch):
                self._note(f"worktree ready on branch {branch}")
            case ev.AgentStarted(resumed=True):
                self._clear_final()
                self._note("resumed from its transcript")
            case ev.AgentStarted(task=task):
                self._mount(Static(Text(f"Task: {task}"), classes="user"))
            case ev.Revising(feedback=feedback):
                self._clear_final()
                self._mount(Static(Text(feedback), classes="user"))
            case ev.MessageQueued(id=msg_id, text=text):
                self.show_queued(msg_id, text)
            case ev.MessageDelivered(id=msg_id, text=text):
                queued = self.queued.pop(msg_id, None)
                if queued is not None:
                    queued.remove()
                self._mount(Static(Text(str(text)), classes="user"))
            case ev.Plan(plan=plan):
                self._show_plan(plan)
                self._note("plan ready: a approves it, e edits it, or send a follow-up")
            case ev.PlannerReply(content=content):
                self._end_stream(content or "")
            case ev.ToolCalled(call_id=call_id, tool=tool, arguments=arguments):
                if call_id and call_id not in self.tools:
                    block = ToolBlock(call_id, tool, arguments)
                    self.tools[call_id] = block
                    self._mount(block)
            case ev.ToolReturned(call_id=call_id):
                found = self.tools.get(call_id)
                if found is not None:
                    result = event.result
                    if len(result) >= 300:
                        result += "…"
                    found.set_result(result, ok=event.ok, ms=event.ms)
            case ev.Applying(path=path):
                self._show_apply(path, "")
            case ev.ApplyProgress(path=path, text=delta, chars=chars):
                text = self._apply_text + delta
                self._show_apply(path, text, chars or len(text))
            case ev.ApplyDone():
                self._hide_apply()
            case ev.Asking(command=command):
                self._show_ask(command)
            case ev.Answered(command=command):
                self._hide_ask()
                self._note(f"{answer_verb(event)}: {command}")
            case ev.Cancelling():
                self._note("cancelling…")
            case ev.AgentFinished(status=status):
                self._end_stream("")
                self._hide_apply()
                self._hide_ask()
                self.set_final(status, first_line(event.summary or event.error or "", LINE_LIMIT))

    def show_queued(self, msg_id: int, text: str) -> None:
        """A message waiting for the agent's next planner turn (until `message_delivered`)."""
        if msg_id in self.queued:
            return
        widget = Static(Text(f"queued (sent at its next turn): {text}"), classes="queued")
        self.queued[msg_id] = widget
        self._mount(widget)

    def _mount(self, widget: Static | ToolBlock) -> None:
        # Live blocks go before the transient apply/ask lines and the final line.
        anchors = [w for w in (self._apply, self._ask, self._final) if w is not None]
        if anchors:
            first = min(anchors, key=self.children.index)
            self._last_mount = self.mount(widget, before=first)
        else:
            self._last_mount = self.mount(widget)

    def _note(self, text: str) -> None:
        self._mount(Static(Text(text), classes="note"))

    def _append_stream(self, text: str) -> None:
        self._stream_text += text
        if self._stream is None:
            self._stream = Static(Text(self._stream_text), classes="assistant streaming")
            self._mount(self._stream)
        else:
            self._stream.update(Text(self._stream_text))

    def _end_stream(self, content: str) -> None:
        if self._stream is not None:
            self._stream.remove_class("streaming")
            self._last_reply = (self._stream, self._stream_text)
            self._stream = None
        elif content.strip():
            block = Static(Text(content.strip()), classes="assistant")
            self._last_reply = (block, content)
            self._mount(block)
        self._stream_text = ""

    def _show_plan(self, plan: str) -> None:
        """The plan, marked as such: the planner's last text block when the plan is taken from
        it (shown once, not twice), else a block of its own (a plan given in `finish`)."""
        if self._last_reply is not None and plan.strip() in self._last_reply[1]:
            self._last_reply[0].set_classes("plan")
        else:
            self._mount(Static(Text(plan), classes="plan"))

    def _show_apply(self, path: str, text: str, chars: int = 0) -> None:
        self._apply_path, self._apply_text = path, text[-20_000:]
        lines = [f"applying {path}…"]
        if text:
            chars = chars or len(text)
            lines[0] = f"applying {path} · model route · {chars:,} characters so far"
            lines.extend(text.splitlines()[-APPLY_TAIL_LINES:])
        body = Text("\n".join(lines))
        if self._apply is None:
            self._apply = Static(body, classes="applying")
            self._last_mount = self.mount(self._apply)
        else:
            self._apply.update(body)

    def _hide_apply(self) -> None:
        if self._apply is not None:
            self._apply.remove()
            self._apply = None
        self._apply_path = self._apply_text = ""

    def _show_ask(self, command: str) -> None:
        body = Text(f"asks to run: {command} (answer in the dialog)")
        if self._ask is None:
            self._ask = Static(body, classes="asking")
            self._last_mount = self.mount(self._ask)
        else:
            self._ask.update(body)

    def _hide_ask(self) -> None:
        if self._ask is not None:
            self._ask.remove()
            self._ask = None

    def _clear_final(self) -> None:
        if self._final is not None:
            self._final.remove()
            self._final = None

    def set_final(self, state: str, text: str) -> None:
        """The closing line: how the agent ended (replaced when the store says otherwise)."""
        mark = FINAL_MARK.get(state, "✗")
        label = STATE_LABEL.get(state, state.replace("_", " "))
        body = Text(f"{mark} {label}" + (f": {text}" if text else ""))
        if self._final is None:
            self._final = Static(body, classes="final")
            self._last_mount = self.mount(self._final)
        else:
            self._final.update(body)
        self._final.set_class(state != "done", "bad")
