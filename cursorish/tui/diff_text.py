"""Diff lines as the terminal may show them: control characters and undecodable bytes made
visible, tabs expanded, and syntax colours per line from the file's Pygments lexer (cached)."""

from __future__ import annotations

from functools import lru_cache

from pygments.lexer import Lexer  # type: ignore[import-untyped]
from pygments.lexers import get_lexer_for_filename  # type: ignore[import-untyped]
from pygments.lexers.special import TextLexer  # type: ignore[import-untyped]
from pygments.style import StyleMeta  # type: ignore[import-untyped]
from pygments.styles import get_style_by_name  # type: ignore[import-untyped]
from pygments.token import _TokenType  # type: ignore[import-untyped]
from pygments.util import ClassNotFound  # type: ignore[import-untyped]
from rich.segment import Segment
from rich.style import Style

from cursorish.tui.diff_model import ViewFile

_DARK_STYLE = "monokai"
_LIGHT_STYLE = "default"
_TAB = "    "
# C0 controls (a tab is expanded first) and DEL would move the terminal cursor: shown as "�".
_CONTROLS = {c: "\ufffd" for c in [*range(0x20), 0x7F]}


@lru_cache(maxsize=256)
def _lexer_for(path: str) -> Lexer:
    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False, stripall=False)
    except ClassNotFound:
        return TextLexer()


@lru_cache(maxsize=4)
def _pygments_style(name: str) -> StyleMeta:
    return get_style_by_name(name)


@lru_cache(maxsize=4096)
def _token_style(style_name: str, token: _TokenType) -> Style:
    # Foreground only: the row's background (added/removed/context) comes from the theme.
    spec = _pygments_style(style_name).style_for_token(token)
    color = spec["color"]
    return Style(
        color=f"#{color}" if color else None,
        bold=spec["bold"] or None,
        italic=spec["italic"] or None,
    )


def clean(text: str) -> str:
    text = text.expandtabs(len(_TAB)) if "\t" in text else text
    if text.isprintable():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # surrogate-escaped bytes of a non-UTF-8 line
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text.translate(_CONTROLS)


def whole_file_text(vf: ViewFile) -> str:
    if vf.binary:
        what = "binary file"
    elif vf.status in ("R", "C") and vf.old_path:
        what = f"{'renamed' if vf.status == 'R' else 'copied'} from {clean(vf.old_path)}"
    elif vf.status == "T":
        what = "mode change"
    else:
        what = "file change"
    return what


def highlighted(path: str, text: str, line_style: Style, *, dark: bool) -> list[Segment]:
    """One code line (already `clean`) as segments: `line_style` with the foreground of the
    Pygments token style for `path`'s language."""
    style_name = _DARK_STYLE if dark else _LIGHT_STYLE
    lexer = _lexer_for(path)
    if isinstance(lexer, TextLexer):
        return [Segment(text, line_style)]
    segs: list[Segment] = []
    for token, value in lexer.get_tokens(text):
        if value:
            segs.append(Segment(value.rstrip("\n"), line_style + _token_style(style_name, token)))
    return segs
