"""A sketch that moves a whole definition, written exactly as the original has it, writes it
anew where it goes and deletes the old copy; it is not an edit of the look-alike beside it."""

from __future__ import annotations

from cursorish.apply.deterministic import merge
from cursorish.apply.result import Merged

# Many small functions: a bare `}` is then too common a line to place a chunk by.
_HELPERS = "".join(f"\nfn helper{n}() -> usize {{\n    {n}\n}}\n" for n in range(45))

COMPLETE = (
    """\
use std::ffi::OsStr;

fn split_delimiter(value: &str, delimiter: char) -> Option<(&str, &str)> {
    let pos = value.rfind(delimiter)?;
    let (prefix, value) = value.split_at(pos + delimiter.len_utf8());
    Some((prefix, value))
}

fn complete_value_candidates(
    value: &OsStr,
    completer: &dyn ValueCandidates,
) -> Vec<CompletionCandidate> {
    debug!("complete_value_candidates: value={value:?}");

    let mut values = completer.candidates();
    values.retain(|comp| comp.get_value().starts_with(&value.to_string_lossy()));
    values
}

fn complete_subcommand(value: &str, cmd: &clap::Command) -> Vec<CompletionCandidate> {
    debug!(
        "complete_subcommand: cmd={:?}, value={:?}",
        cmd.get_name(),
        value
    );

    let mut scs: Vec<CompletionCandidate> = subcommands(cmd)
        .into_iter()
        .filter(|x| x.get_value().starts_with(value))
        .collect();
    if let Some(completer) = cmd.get::<SubcommandCandidates>() {
        scs.extend(complete_value_candidates_str(
            value,
            completer.value_candidates(),
        ));
    }

    scs.sort();
    scs.dedup();
    scs
}

fn complete_value_candidates_str(
    value: &str,
    completer: &dyn ValueCandidates,
) -> Vec<CompletionCandidate> {
    debug!("complete_value_candidates_str: value={value:?}");

    let mut values = completer.candidates();
    values.retain(|comp| comp.get_value().starts_with(value));
    values
}

/// Gets all the long options of a [`clap::Command`] with their `--` prefix.
fn longs(p: &clap::Command) -> Vec<CompletionCandidate> {
    debug!("longs: name={}", p.get_name());

    p.get_arguments()
        .filter_map(|a| a.get_long().map(|l| CompletionCandidate::new(format!("--{l}"))))
        .collect()
}
"""
    + _HELPERS
)

# `complete_value_candidates_str` moves up, right after `complete_value_candidates`; its old
# copy lies between `scs }` and the doc comment of `longs`, which the sketch shows together.
SKETCH = """\
/* ... existing code ... */
}

fn complete_value_candidates_str(
    value: &str,
    completer: &dyn ValueCandidates,
) -> Vec<CompletionCandidate> {
    debug!("complete_value_candidates_str: value={value:?}");

    let mut values = completer.candidates();
    values.retain(|comp| comp.get_value().starts_with(value));
    values
}

fn complete_subcommand(value: &str, cmd: &clap::Command) -> Vec<CompletionCandidate> {
    debug!(
        /* ... existing code ... */
    scs.dedup();
    scs
}

/// Gets all the long options of a [`clap::Command`] with their `--` prefix.
/* ... existing code ... */
"""


def test_moved_definition_is_written_where_it_goes_and_leaves_its_old_place() -> None:
    result = merge(COMPLETE, SKETCH, path="src/engine/complete.rs")
    assert isinstance(result, Merged), result
    start = COMPLETE.index("fn complete_value_candidates_str(")
    end = COMPLETE.index("/// Gets all")
    moved = COMPLETE[start:end]
    without = COMPLETE[:start] + COMPLETE[end:]
    at = without.index("fn complete_subcommand(")
    assert result.text == without[:at] + moved + without[at:]
