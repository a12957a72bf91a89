"""Issue 17, round 8b: TypeScript wrong merges the sketch does not decide.

Each test's sketch is made up.
"""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged, Refused
from cursorish.apply.verify import verify_merge

HOOKS = """import type { Store } from './store'

export type ReadHookApi<Arg> = {
  store: Store
  arg: Arg
}

export type WriteHookApi<Arg> = {
  store: Store
  arg: Arg
  commit(): void
}

export type ReadExtraHooks<Arg> = {
  /**
   * Called when a read starts.
   */
  onStart?(
    arg: Arg,
    api: ReadHookApi<Arg>,
  ): Promise<void> | void
}

export function runHooks<Arg>(store: Store, arg: Arg): void {
  store.log(arg)
}
"""

WRITE_SIBLING = """export type WriteExtraHooks<Arg> = {
  /**
   * Called when a write starts.
   */
  onStart?(
    arg: Arg,
    api: WriteHookApi<Arg>,
  ): Promise<void> | void
}
"""


def test_sibling_written_over_its_model_is_refused() -> None:
    """A merge that writes `WriteExtraHooks` over `ReadExtraHooks`, as its rename, where the new
    body swaps `Read` for `Write` in `ReadHookApi` too and the file keeps both hook APIs: the
    sketch may as well add the sibling beside its model; refused."""
    expected_if_renamed = HOOKS.replace(
        HOOKS[HOOKS.index("export type ReadExtraHooks") : HOOKS.index("export function")],
        WRITE_SIBLING + "\n",
    )
    problem = verify_merge(HOOKS, WRITE_SIBLING, expected_if_renamed, path="hooks.ts")
    assert problem is not None
    assert "sibling" in problem


def test_sketch_adding_a_sibling_before_the_next_definition_is_not_merged_as_a_rename() -> None:
    """The sketch writes the sibling between a marker and the next definition's header: the
    merge must not replace `ReadExtraHooks` with it (it refuses, or writes it beside)."""
    sketch = (
        "// ... existing code ...\n"
        + WRITE_SIBLING
        + "\n"
        + "export function runHooks<Arg>(store: Store, arg: Arg): void {\n"
        + "// ... rest of the file unchanged ...\n"
    )
    result = merge(HOOKS, sketch, path="hooks.ts")
    if isinstance(result, Merged):
        assert "export type ReadExtraHooks<Arg>" in result.text
    else:
        assert isinstance(result, Refused)


def test_plain_rename_keeping_the_body_still_merges() -> None:
    """A rename whose body swaps nothing else (`ReadExtraHooks` -> `ReaderHooks`) is no
    sibling: the verifier lets it through."""
    renamed = HOOKS.replace("ReadExtraHooks", "ReaderHooks")
    sketch = (
        "// ... existing code ...\nexport type ReaderHooks<Arg> = {\n// ... existing code ...\n"
    )
    assert verify_merge(HOOKS, sketch, renamed, path="hooks.ts") is None


def test_rename_of_the_whole_family_still_merges() -> None:
    """A rename that swaps the part everywhere (`Read` -> `Fetch` in both names, the file no
    longer writing `ReadHookApi`) is a rename of the family, not a sibling beside it."""
    renamed = HOOKS.replace("ReadExtraHooks", "FetchExtraHooks").replace(
        "ReadHookApi", "FetchHookApi"
    )
    sketch = (
        "// ... existing code ...\n"
        "export type FetchHookApi<Arg> = {\n"
        "// ... existing code ...\n"
        "export type FetchExtraHooks<Arg> = {\n"
        "// ... existing code ...\n"
        "    api: FetchHookApi<Arg>,\n"
        "// ... existing code ...\n"
    )
    assert verify_merge(HOOKS, sketch, renamed, path="hooks.ts") is None


FLAGS = """// detect a fast link
const fastLink =
  typeof window !== 'undefined' &&
  // @ts-ignore
  window['connection'] &&
  // @ts-ignore
  ['4g', '5g'].indexOf(window['connection'].effectiveType) !== -1

// defaults
const defaults = {
  onSlow: () => {},
  fast: fastLink,
}

export default defaults
"""


def test_chunk_anchored_only_on_copies_of_one_repeated_line_is_refused() -> None:
    """The chunk's only anchors are two `// @ts-ignore` lines, which the file writes twice:
    matching them to both copies deletes `window['connection'] &&` between them, matching the
    first to the second copy keeps it; the sketch does not say which, so refused."""
    sketch = (
        "  /* ... unchanged code ... */\n"
        "  // @ts-ignore\n"
        "  (['4g', '5g'].indexOf(window['connection'].effectiveType) !== -1 ||\n"
        "    // @ts-ignore\n"
        "    window['connection'].saveData)\n"
        "\n"
        "// ... rest of the file unchanged ...\n"
    )
    result = merge(FLAGS, sketch, path="flags.ts")
    if isinstance(result, Merged):
        assert "  window['connection'] &&\n" in result.text
    else:
        assert isinstance(result, Refused)


def test_repeated_line_with_a_telling_anchor_still_merges() -> None:
    """A chunk that shows a telling line beside the repeated one is placed by it: no doubt."""
    sketch = (
        "  /* ... unchanged code ... */\n"
        "  // @ts-ignore\n"
        "  window['connection'] &&\n"
        "  // @ts-ignore\n"
        "  ['4g'].indexOf(window['connection'].effectiveType) !== -1\n"
        "// ... rest of the file unchanged ...\n"
    )
    result = merge(FLAGS, sketch, path="flags.ts")
    assert isinstance(result, Merged)
    assert result.text == FLAGS.replace("['4g', '5g']", "['4g']")
