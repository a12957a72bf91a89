"""The deterministic apply engine: merge a planner's sketch into the original file, or refuse.

`merge` never raises: every failure, including a bug, comes back as `Refused` with a reason, so
the router can hand the sketch to the model engine instead. Every merge is checked by
`verify.verify_merge` before it is returned.
"""

from __future__ import annotations

from cursorish.apply.blankless_doubt import blankless_doubt
from cursorish.apply.blankless_respace import respace, restore_blanks
from cursorish.apply.guard import UnmentionedDefinition, check_deletions
from cursorish.apply.languages import Language, detect_language
from cursorish.apply.lazy import (
    KEEP_BLANKS,
    Merge,
    RefusedMerge,
    Validate,
    merge_lazy,
    split_sketch,
)
from cursorish.apply.lazy_fresh import fresh_reading
from cursorish.apply.lines import SourceFile
from cursorish.apply.plain import merge_plain
from cursorish.apply.result import ApplyOutcome, Merged, Refused
from cursorish.apply.search_replace import merge_search_replace
from cursorish.apply.sketch import detect_format, strip_fences
from cursorish.apply.syntax import new_errors
from cursorish.apply.textio import sketch_lines
from cursorish.apply.verify import verify_merge, verify_names

ENGINE = "deterministic"
# The formats whose sketch may have dropped every blank line: respaced, then doubted.
_BLANKLESS_CHECKED = ("lazy", "snippet", "whole")


def merge(original: str, sketch: str, *, path: str) -> ApplyOutcome:
    """Merge `sketch` into `original` (text of the file at `path`); refuse when unsure."""
    fmt = "unknown"
    try:
        if "\x00" in original:
            return Refused("the original file is binary (it contains NUL bytes)", ENGINE, fmt)
        lang = detect_language(path)
        lines = strip_fences(sketch_lines(sketch))
        fmt = detect_format(lines, lang)
        if fmt == "empty":
            return Refused("the sketch is empty", ENGINE, fmt)
        source = SourceFile.from_text(original)
        text, fmt = _dispatch(fmt, source, original, lines, lang, (sketch, path))
        if fmt == "whole":
            text = restore_blanks(original, text, lines, lang)
        if text == original or text.rstrip() == original.rstrip():
            return Refused(
                "the merge leaves the file unchanged: the sketch's code already occurs in it, "
                "so it was likely placed at the wrong copy",
                ENGINE,
                fmt,
            )
        if fmt in _BLANKLESS_CHECKED:
            text = respace(original, text, lines, lang)
            if doubt := blankless_doubt(original, text, lines, lang):
                return Refused(doubt, ENGINE, fmt)
        # The verifier is written apart from the merge; it also runs the syntax check.
        problem = verify_merge(original, sketch, text, path=path)
        if problem and fmt == "lazy":
            fresh = _fresh_after_errors(source, original, lines, lang, (sketch, path), text)
            if fresh is not None:
                fresh = respace(original, fresh, lines, lang)
                if not blankless_doubt(original, fresh, lines, lang) and not verify_merge(
                    original, sketch, fresh, path=path
                ):
                    return Merged(fresh, ENGINE, fmt)
        if problem:
            return Refused(problem, ENGINE, fmt)
        return Merged(text, ENGINE, fmt)
    except RefusedMerge as refusal:
        return Refused(str(refusal), ENGINE, fmt)
    except Exception as error:  # a bug must never reach the user's file
        return Refused(f"internal error in the deterministic merge: {error!r}", ENGINE, fmt)


def _dispatch(
    fmt: str,
    source: SourceFile,
    original: str,
    lines: list[str],
    lang: Language,
    given: tuple[str, str] = ("", ""),
) -> tuple[str, str]:
    if fmt == "search_replace":
        return merge_search_replace(source, lines), fmt
    if fmt == "udiff":
        from cursorish.apply.udiff import merge_udiff

        return merge_udiff(source, lines), fmt
    if fmt == "lazy":
        validate = _validator(source, original, lines, lang, given)
        result = merge_lazy(source, lines, lang, validate)
        text = source.render(result.pieces)  # rendered once, for the check and the answer
        try:
            check_deletions(source, original, text, lines, result.deleted, lang)
        except UnmentionedDefinition:
            # Lined up over a definition like it: the reading that writes the new one whole.
            fresh = fresh_reading(
                source, original, split_sketch(lines, lang), lang, result, validate
            )
            if fresh is None:
                raise
            result = fresh
            text = source.render(result.pieces)
        if text == original:
            # Keeping the blank lines the sketch leaves out undid its only change.
            token = KEEP_BLANKS.set(False)
            try:
                result = merge_lazy(source, lines, lang, validate)
                validate(result)
                text = source.render(result.pieces)
            finally:
                KEEP_BLANKS.reset(token)
        return text, fmt
    return merge_plain(source, original, lines, lang)


def _validator(
    source: SourceFile, original: str, lines: list[str], lang: Language, given: tuple[str, str]
) -> Validate:
    """What tells a lazy merge that must not stand (`given`: the sketch's text and the path)."""

    def validate(merge: Merge) -> None:
        text = source.render(merge.pieces)
        check_deletions(source, original, text, lines, merge.deleted, lang)
        # A reading that leaves a name used and gone (or an import unused) does not compile.
        problem = verify_names(original, given[0], text, path=given[1])
        if problem:
            raise RefusedMerge(problem)

    return validate


def _fresh_after_errors(
    source: SourceFile,
    original: str,
    lines: list[str],
    lang: Language,
    given: tuple[str, str],
    text: str,
) -> str | None:
    """Where the lazy merge `text` breaks the file's syntax, the reading that writes the
    sketch's new definitions whole beside the ones like them (lined up over its look-alike as
    if it were its edit, a new definition leaves lines of both behind), where that reading
    parses; None elsewhere. It is held to what `fresh_reading` asks (it removes no line the
    first reading kept), and to the checks every merge passes."""
    if not new_errors(original, text, lang.name):
        return None
    validate = _validator(source, original, lines, lang, given)
    try:
        first = merge_lazy(source, lines, lang, validate)
    except RefusedMerge:
        return None
    fresh = fresh_reading(source, original, split_sketch(lines, lang), lang, first, validate)
    if fresh is None:
        return None
    out = source.render(fresh.pieces)
    return None if new_errors(original, out, lang.name) else out
