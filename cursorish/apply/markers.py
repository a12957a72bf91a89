"""Recognising "existing code" marker lines in a sketch, in any comment syntax and wording."""

from __future__ import annotations

import re

from cursorish.apply.languages import Language

_CLOSERS = ("*/}", "*/", "-->", "}")
_DOTS = re.compile(r"(\.\s*){2,}\.|…")
# Markup inside a comment (an HTML tag, a `code span`): its words are no marker's wording.
_MARKUP = re.compile(r"</?[A-Za-z][\w-]*>|`[^`]*`")
_KEYWORDS = re.compile(
    r"\b(existing|unchanged|rest|remaining|remainder|same|omitted|elided|keep|kept|previous|"
    r"original|other|more|code|before|here|etc|lines?|methods?|functions?|imports?|body|"
    r"implementation|stays?|remains?|as is|untouched|skip(ped)?|snip)\b"
)
_PHRASES = re.compile(
    r"^(the )?(rest|remainder) of (the )?(file|code|class|function|method|module|body|"
    r"implementation|imports|test|tests|struct|component|object|block|program|script)"
    r"( (is|remains|stays))?( unchanged| the same| as before| as is| untouched)?$"
    r"|^(the )?rest( (is|remains|stays))?( unchanged| the same| as before| as is)?$"
    r"|^(keep|keeps|keeping) (the )?(existing|original|rest|other|previous)\b.{0,40}$"
    r"|^(existing|unchanged|previous|original|other) (code|methods|functions|imports|lines|"
    r"content|fields|properties|tests|cases|logic|implementation)( (here|unchanged|as before|"
    r"remains unchanged|stays the same|as is))?$"
    r"|^(code|lines?|content) (omitted|unchanged|elided|skipped)$"
    r"|^(unchanged|same as before|no changes?|as before)( code)?$"
    r"|^(\w+ ){0,3}(unchanged|omitted|as before)$"
)


def _body(stripped: str, lang: Language) -> str | None:
    """The text inside a comment line, or None when the line is not a whole-line comment."""
    for opener in sorted(lang.comments, key=len, reverse=True):
        if stripped.startswith(opener):
            body = stripped[len(opener) :]
            break
    else:
        return None
    body = body.strip()
    for closer in _CLOSERS:
        if body.endswith(closer):
            body = body[: -len(closer)].strip()
            break
    return body


def is_marker(line: str, lang: Language) -> bool:
    """True when `line` stands for elided original code rather than being code itself."""
    stripped = line.strip()
    if not stripped:
        return False
    if stripped in ("...", "…") or _DOTS.fullmatch(stripped):
        # Python's Ellipsis is real code (stubs, protocols); elsewhere a bare "..." is a marker.
        return lang.name not in ("python", "text")
    body = _body(stripped, lang)
    if body is None:
        return False
    has_dots = bool(_DOTS.search(body))
    if has_dots and not _DOTS.search(_MARKUP.sub(" ", body)):
        # The dots are code quoted in the comment (`{...}`, `...rest`), not an ellipsis.
        has_dots = False
    words = re.sub(r"[^\w\s]", " ", body.lower().replace("…", " ")).split()
    text = " ".join(words)
    if has_dots and not words:
        # A Rust doc comment's bare `...` elides code in a documented example, not the file;
        # so does a `// ...` on a line of a `/** ... */` block (`* // ...`): a comment inside
        # a comment is the documented example's own.
        if stripped.startswith("*") and stripped[1:].lstrip().startswith("//"):
            return False
        return not (lang.name == "rust" and stripped.startswith(("///", "//!")))
    if has_dots and _MARKUP.search(body):
        prose = re.sub(r"[^\w\s]", " ", _MARKUP.sub(" ", body).lower().replace("…", " "))
        return len(words) <= 10 and bool(_KEYWORDS.search(" ".join(prose.split())))
    if len(words) > 10:
        return False
    if has_dots and _KEYWORDS.search(text):
        return True
    # Without an ellipsis, only phrasings that can hardly be a real comment count.
    if stripped.endswith(")") or body.startswith("("):
        inner = body.strip("() ")
        return bool(_PHRASES.match(" ".join(re.sub(r"[^\w\s]", " ", inner.lower()).split())))
    return bool(_PHRASES.match(text))
