"""An independent check of a merged file against its original and the sketch it came from.

Written apart from the merge engines (it shares only what a marker is and the tree-sitter
check), so that a flaw in how a merge places a sketch is not repeated in how it is judged. It
runs after every deterministic merge and on every model answer. A result stands only when
every change it makes is explained by the sketch:

- the sketch's code lines (everything but its "existing code" markers) are in the result, in
  order, each chunk between two markers as one unbroken run of non-blank lines, shifted as a
  whole by the same indentation (a shift other than none only where one of its lines is an
  original line there: the merge matched it, so the file says how deep the chunk sits);
- the lines between those runs are original lines, unchanged and in order (what the markers
  stand for), and new lines come only from the sketch;
- an original line that is gone was deleted between two sketch lines with no marker between
  them, or replaced by sketch lines in its place; at the file's edges only where the sketch
  does not say it stops there (no leading or trailing marker) and does not elide anything at all
  (a whole file), or where the cut is no more than a few lines;
- a telling line the sketch repeats from the original is not left twice in the result, nor a
  block the sketch writes anew whole left in its original copy right against the chunk, in
  the same block (`moved_block`: the sketch moved it);
- a name the original declares once at its top level is not declared there twice, nor
  both imported and declared there (TypeScript, JavaScript);
- a method the original declares once in a class or `impl` block (a Go method on its
  receiver's type) is not declared there twice (`member_twice`);
- a Go local the original declares and reads is not left declared and never read;
- a Go package the original imports once at most is not imported twice (`go_imports`);
- a Python name the original's blocks import once at most is not imported twice in one block
  (`py_imported_twice`);
- a Go line the merge writes, or keeps beside one, sits as deep as its braces say (`go_depth`);
- a Rust line the merge writes, or keeps beside one, sits as deep as rustfmt puts it (`rust_depth`);
- a Rust `use` a marker keeps is not left binding only names the merge stopped using
  (`rust_stale_uses`);
- an original `assert`/`return`/`raise` kept beside new lines that restate it is not left
  there (`kept_restatement`);
- a blank line the sketch shows between a marker and its chunk lands on a blank original line,
  and a run of two or more it shows after a chunk before a marker is not cut short by the
  merge before an original line (`placement._blank_run_after`);
- indentation added in a file indented with tabs uses tabs (and spaces in a file of spaces);
- a Rust item does not derive one trait twice where the original did not (`rust_derives`);
- the result parses with no more syntax errors than the original.

The package splits the checks by what they look at: `shape` (the sketch's chunks between
markers), `alignment` (which original line each result line is), `check` (one verification,
run over every reading of where the chunks sit), with its parts in `placement`, `indentation`,
`deletions`, `repeats` and `structure`, `imports` (imports orphaned by the merge),
`go_locals` (Go locals left unread), `rust_uses` and `ts_imports` (Rust `use`s, TypeScript
imports removed while still used) and `toplevel` (top-level names declared twice, or imported
and declared).
"""

from __future__ import annotations

from cursorish.apply.languages import detect_language
from cursorish.apply.sketch import detect_format, strip_fences
from cursorish.apply.syntax import Aligned, new_errors
from cursorish.apply.textio import sketch_lines
from cursorish.apply.verify.alignment import _lines
from cursorish.apply.verify.check import _Check
from cursorish.apply.verify.comment_opener import _opener_over_code
from cursorish.apply.verify.dead_definitions import _dead_definition
from cursorish.apply.verify.deleted_comment import _deleted_comment
from cursorish.apply.verify.deletions import EDGE_CUT
from cursorish.apply.verify.go_depth import _go_depth
from cursorish.apply.verify.go_imports import _imported_twice
from cursorish.apply.verify.go_locals import _unused_go_local
from cursorish.apply.verify.go_removed import _removed_go_declaration
from cursorish.apply.verify.imports import _orphaned_import, _stale_import
from cursorish.apply.verify.kept_lookalike import _kept_lookalike
from cursorish.apply.verify.kept_restatement import _kept_restatement
from cursorish.apply.verify.member_twice import _member_twice
from cursorish.apply.verify.nested_redeclaration import _nested_redeclaration
from cursorish.apply.verify.py_imported_twice import _imported_twice as _py_imported_twice
from cursorish.apply.verify.replaced_neighbour import _replaced_neighbour
from cursorish.apply.verify.rust_depth import _rust_depth
from cursorish.apply.verify.rust_derives import _derived_twice
from cursorish.apply.verify.rust_stale_uses import _stale_rust_use
from cursorish.apply.verify.rust_uses import _orphaned_binding
from cursorish.apply.verify.rust_variants import _ungated_variant
from cursorish.apply.verify.shape import _shape
from cursorish.apply.verify.sibling_definition import _sibling_over_definition
from cursorish.apply.verify.toplevel import _declared_twice, _imported_and_declared
from cursorish.apply.verify.ts_imported_twice import _imported_twice as _ts_imported_twice
from cursorish.apply.verify.ts_imports import _orphaned_ts_import
from cursorish.apply.verify.ts_stale_imports import _stale_ts_import

__all__ = ["EDGE_CUT", "verify_merge", "verify_names"]


def verify_merge(original: str, sketch: str, result: str, *, path: str = "") -> str | None:
    """None when `result` is explained by `sketch` applied to `original`, else the reason."""
    try:
        return _verify(original, sketch, result, path)
    except RecursionError:
        return "the merge could not be verified (the files are too large to compare)"


def _verify(original: str, sketch: str, result: str, path: str) -> str | None:
    lang = detect_language(path)
    lines = strip_fences(sketch_lines(sketch))
    fmt = detect_format(lines, lang)
    if fmt == "empty":
        return "the sketch is empty"
    before = _lines(original)
    after = _lines(result)
    problem: str | None = None
    changed: list[int] | None = None
    aligned: Aligned | None = None
    if fmt in ("lazy", "plain"):
        shape = _shape(lines, lang, fmt)
        if shape is not None:
            check = _Check(before, after, shape, lang.name)
            problem = check.run()
            changed = check.changed_rows()
            aligned = Aligned(before, after, check.old_of)
            if problem is None:
                problem = _nested_redeclaration(before, after, check.old_of)
            if problem is None:
                shown = {x.strip() for x in lines}
                problem = _replaced_neighbour(before, after, check.old_of, shown, lang.name)
            if problem is None:
                problem = _deleted_comment(before, after, check.old_of, shown, lang.name)
            if problem is None:
                problem = _kept_lookalike(before, after, check.old_of, shown)
            if problem is None:
                problem = _kept_restatement(before, after, check.old_of, shown)
            if problem is None:
                problem = _opener_over_code(after, check.old_of, lang.name)
            if problem is None and lang.name == "go":
                problem = _go_depth(before, after, check.old_of)
            if problem is None and lang.name == "rust":
                problem = _rust_depth(before, after, check.old_of)
    if problem is None:
        problem = _name_problem(before, after, lang.name, {x.strip() for x in lines})
    if problem is None:
        problem = _dead_definition(before, after, lang.name, {x.strip() for x in lines})
    if problem is None:
        problem = _sibling_over_definition(before, after, lang.name, {x.strip() for x in lines})
    if problem is None and lang.name == "go":
        problem = _unused_go_local(before, after)
    if problem is None and lang.name == "go":
        problem = _imported_twice(before, after)
    if problem is None:
        problem = _py_imported_twice(before, after, lang.name)
    if problem is None:
        problem = _declared_twice(before, after, lang.name)
    if problem is None:
        problem = _member_twice(before, after, lang.name)
    if problem is None:
        problem = _imported_and_declared(before, after, lang.name)
    if problem is None:
        problem = _ungated_variant(before, after, lang.name)
    if problem is None:
        problem = _derived_twice(before, after, lang.name)
    if problem is None and lang.has_grammar:
        problem = new_errors(original, result, lang.name, changed, aligned)
    return problem


def verify_names(original: str, sketch: str, result: str, *, path: str = "") -> str | None:
    """None unless the merge leaves a name used and no longer there (an import or a definition
    it removes while the file still uses it) or an import kept with every use of it removed:
    the checks of `verify_merge` on what the file names, which a reading that does not compile
    fails whatever the sketch's shape."""
    lang = detect_language(path)
    shown = {x.strip() for x in strip_fences(sketch_lines(sketch))}
    return _name_problem(_lines(original), _lines(result), lang.name, shown)


def _name_problem(before: list[str], after: list[str], lang: str, shown: set[str]) -> str | None:
    """A name the merge leaves used but gone (a removed import or declaration), or an import
    it keeps with every use removed."""
    problem: str | None = None
    if lang in ("go", "python"):
        problem = _orphaned_import(before, after, lang)
    if problem is None:
        problem = _orphaned_binding(before, after, lang)
    if problem is None:
        problem = _orphaned_ts_import(before, after, lang)
    if problem is None:
        problem = _ts_imported_twice(before, after, lang)
    if problem is None:
        problem = _stale_ts_import(before, after, lang, shown)
    if problem is None and lang in ("go", "python"):
        problem = _stale_import(before, after, lang, shown)
    if problem is None:
        problem = _stale_rust_use(before, after, lang, shown)
    if problem is None and lang == "go":
        problem = _removed_go_declaration(before, after)
    return problem
