"""A review session: decide a branch's changes hunk by hunk, in a worktree of its own.

This is the engine behind `cursorish review`, the TUI's diff viewer and the decision counts of
`cursorish branches` (no UI here). The git steps themselves, and the git model in full, are in
`gitops/review_git.py`. In short, in the review worktree W of branch B against base M:
W's files are what is proposed, W's index is M plus what was accepted, B is what was committed.
Pending hunks are index -> files, accepted ones M -> index. Accept stages a hunk, reject
reverts it in W's files (its reason can go back to the agent), undo replays the stored patch
the other way, commit commits W's index on B. The user's checkout is never touched.

Whole-file decisions: a binary file, a mode change, an empty file added or deleted and a pure
rename have no text hunks; each gets one pseudo-hunk (`is_whole_file`) decided as a unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cursorish.core.review.patches import plain_header, render_patch, shift_hunk, whole_file
from cursorish.core.review.resolve import base_of, resolve_branch
from cursorish.core.text import first_line
from cursorish.errors import CursorishError, ExitCode
from cursorish.gitops import review_git as rg
from cursorish.gitops.hunks import FileDiff, Hunk
from cursorish.gitops.repo import RepoInfo
from cursorish.gitops.runner import GitError
from cursorish.store.db import Store, now
from cursorish.store.paths import worktrees_dir

ACCEPTED, REJECTED = "accepted", "rejected"
PENDING = "pending"
DEFAULT_IDENTITY = ("cursorish", "cursorish@localhost")


@dataclass(frozen=True)
class ReviewFile:
    path: str
    old_path: str | None
    status: str  # A M D R T
    binary: bool
    pending: FileDiff | None  # index -> worktree (what is still to decide)
    accepted: FileDiff | None  # base -> index (what was accepted so far)


@dataclass(frozen=True)
class Decision:
    id: int  # store row id
    hunk_id: str
    path: str
    decision: str  # "accepted" | "rejected"
    reason: str
    header: str


def is_whole_file(hunk: Hunk) -> bool:
    """True for the pseudo-hunk of a whole-file decision (binary, mode, empty file, rename)."""
    return not hunk.header.startswith("@@")


@dataclass(frozen=True)
class _Snapshot:
    index_tree: str
    files_tree: str
    pending: list[FileDiff]


class ReviewSession:
    """One branch under review. Every method re-reads git, so several sessions (the TUI and
    a `cursorish review` in another terminal) see each other's decisions."""

    def __init__(
        self,
        *,
        repo: RepoInfo,
        store: Store,
        branch: str,
        base: str,
        worktree: Path,
        agent_id: str | None,
        task: str,
    ) -> None:
        self.repo = repo
        self.store = store
        self.branch = branch
        self.base = base
        self.worktree = worktree
        self.agent_id = agent_id
        self.task = task

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, repo: RepoInfo, store: Store, ref: str | None = None) -> ReviewSession:
        """Review the branch `ref` names: a branch, an agent id or a unique id prefix; None is
        the latest agent. The first review of a branch sets its worktree's index to the base
        (or to the last review commit); see the module docstring."""
        branch, row = resolve_branch(repo, store, ref)
        agent_id = str(row["id"]) if row else None
        task = store.task_text(row)
        review = store.review(branch)
        base = str(review["base"]) if review is not None else base_of(repo, branch, row)
        wt = _existing_worktree(repo, branch, row, review)
        if review is None:
            _check_something_to_review(repo, branch, base, wt)
        if wt is None:
            dest = rg.review_worktree_path(worktrees_dir(repo.git_common_dir), branch)
            wt = rg.ensure_review_worktree(repo, branch, dest)
        session = cls(
            repo=repo,
            store=store,
            branch=branch,
            base=base,
            worktree=wt,
            agent_id=agent_id,
            task=task,
        )
        session._prepare(review)
        return session

    def _prepare(self, review: dict[str, Any] | None) -> None:
        wt = self.worktree
        if review is not None and rg.marker(wt) == self.base:
            if review["worktree"] != str(wt):
                self.store.update_review(self.branch, worktree=str(wt))
            return
        accepted_so_far = rg.last_review_commit(wt, self.base, self.branch) or self.base
        rg.set_index(wt, accepted_so_far, base=self.base)
        if review is None:
            self.store.start_review(
                self.branch, base=self.base, worktree=str(wt), agent_id=self.agent_id
            )
            return
        # The worktree was re-created: decisions since the last review commit were made in
        # one that is gone, so they are no longer in effect.
        since = review["committed_at"] or review["started_at"]
        stale = [
            int(r["id"])
            for r in self.store.review_decisions(self.branch, since=review["started_at"])
            if r["created_at"] >= since
        ]
        self.store.mark_review_decisions(stale, undone_at=now())
        self.store.update_review(self.branch, worktree=str(wt))

    # -- looking ---------------------------------------------------------------------------

    def files(self) -> list[ReviewFile]:
        """Every file with pending or accepted changes, in path order (recomputed from git)."""
        return self._files(self._snapshot())

    def find(self, hunk_id: str) -> tuple[ReviewFile, Hunk, str]:
        """The hunk with this id (or unique prefix): (file, hunk, "pending"|"accepted")."""
        files = self.files()
        matches: list[tuple[ReviewFile, Hunk, str]] = []
        for rf in files:
            for side, diff in ((PENDING, rf.pending), (ACCEPTED, rf.accepted)):
                if diff is not None:
                    matches += [(rf, h, side) for h in diff.hunks if h.id.startswith(hunk_id)]
        return self._one(hunk_id, matches)

    def decisions(self) -> list[Decision]:
        """Decisions in effect (not undone), oldest first."""
        return [_decision(r) for r in self._decision_rows()]

    def counts(self) -> dict[str, int]:
        """Hunks pending, and decisions in effect: accepted, rejected."""
        pending = sum(len(f.hunks) for f in self._snapshot().pending)
        rows = self._decision_rows()
        return {
            PENDING: pending,
            ACCEPTED: sum(1 for r in rows if r["decision"] == ACCEPTED),
            REJECTED: sum(1 for r in rows if r["decision"] == REJECTED),
        }

    # -- deciding --------------------------------------------------------------------------

    def accept(self, hunk_id: str) -> Decision:
        """Stage one pending hunk in the worktree's index."""
        snap = self._snapshot()
        target = self._pending_hunk(snap, hunk_id)
        return self._decide(snap, [target], ACCEPTED, "")[0]

    def reject(self, hunk_id: str, reason: str = "") -> Decision:
        """Revert one pending hunk in the worktree's files; `reason` can go to the agent."""
        snap = self._snapshot()
        target = self._pending_hunk(snap, hunk_id)
        return self._decide(snap, [target], REJECTED, reason)[0]

    def accept_file(self, path: str) -> list[Decision]:
        return self._decide_all(ACCEPTED, "", path)

    def reject_file(self, path: str, reason: str = "") -> list[Decision]:
        return self._decide_all(REJECTED, reason, path)

    def accept_all(self) -> list[Decision]:
        return self._decide_all(ACCEPTED, "", None)

    def undo(self) -> Decision | None:
        """Undo the last decision still in effect (None when there is none); the stored
        patch is applied the other way, so the hunk comes back byte for byte."""
        rows = self._decision_rows()
        if not rows:
            return None
        row = rows[-1]
        accepted = row["decision"] == ACCEPTED
        try:
            rg.apply_patch(self.worktree, bytes(row["patch"]), cached=accepted, reverse=accepted)
        except GitError as exc:
            verb = "acceptance" if accepted else "rejection"
            detail = first_line(exc.stderr) or "git apply failed"
            raise CursorishError(
                f"cannot undo the {verb} of hunk {row['hunk_id']} in {row['path']}: it no "
                f"longer applies ({detail}); nothing was changed",
                ExitCode.BAD_ARGS,
            ) from None
        self.store.mark_review_decisions([int(row["id"])], undone_at=now())
        return _decision(row)

    def commit(self, message: str | None = None) -> str | None:
        """Commit the worktree's index on the branch; None when nothing was accepted (or
        un-accepted) since the last review commit. Still-pending hunks stay in the worktree."""
        tree = rg.index_tree(self.worktree)
        tip = rg.commit_of(self.worktree, f"refs/heads/{self.branch}")
        last = rg.last_review_commit(self.worktree, self.base, self.branch)
        if last == tip and tree == rg.tree_of(self.worktree, tip):
            return None  # the branch already is the reviewed state
        review = self.store.review(self.branch) or {}
        since = review.get("committed_at") or review.get("started_at")
        rows = [r for r in self._decision_rows() if since is None or r["created_at"] >= since]
        if not rows and tree == rg.tree_of(self.worktree, last or self.base):
            # Nothing decided since the last review commit: a stray "commit" must not strip
            # the agent's newer, still unreviewed work (a revision) off the branch. With
            # decisions, the tip is compared too: rejecting all of a revision must commit.
            return None
        accepted = sum(1 for r in rows if r["decision"] == ACCEPTED)
        rejected = len(rows) - accepted
        sha = rg.commit_index(
            self.worktree,
            self._commit_message(message, accepted, rejected),
            author=rg.user_identity(self.repo.root) or DEFAULT_IDENTITY,
        )
        self.store.update_review(self.branch, committed_at=now())
        return sha

    def feedback(self) -> str:
        """The user message for the agent about rejections with a reason not sent yet ("" if
        there are none); those (and rejections without a reason made meanwhile, listed so the
        agent does not redo them) are marked sent."""
        rows = [r for r in self._decision_rows() if r["decision"] == REJECTED and not r["sent_at"]]
        with_reason = [r for r in rows if str(r["reason"] or "").strip()]
        if not with_reason:
            return ""
        parts = [
            "The user reviewed your changes and rejected some of them. The rejected changes "
            "were reverted in your worktree; everything else you changed is still there. "
            "Revise your work to address each reason below (without redoing what was "
            "rejected), then call finish.",
        ]
        for n, row in enumerate(with_reason, 1):
            parts.append(
                f"{n}. In {row['path']}, this change was rejected:\n"
                f"{render_patch(bytes(row['patch']), str(row['header']))}\n"
                f"Reason: {str(row['reason']).strip()}"
            )
        silent = [r for r in rows if not str(r["reason"] or "").strip()]
        if silent:
            listed = "\n".join(f"- {r['path']}: {r['header']}" for r in silent)
            parts.append(f"Also rejected, without a reason (do not make these again):\n{listed}")
        self.store.mark_review_decisions([int(r["id"]) for r in rows], sent_at=now())
        return "\n\n".join(parts)

    # -- internals -------------------------------------------------------------------------

    def _decision_rows(self) -> list[dict[str, Any]]:
        review = self.store.review(self.branch)
        since = str(review["started_at"]) if review else None
        return self.store.review_decisions(self.branch, since=since)

    def _snapshot(self) -> _Snapshot:
        index_tree, files_tree = rg.snapshot_trees(self.worktree)
        pending = rg.tree_diff(self.worktree, index_tree, files_tree)
        return _Snapshot(index_tree, files_tree, [whole_file(f) for f in pending])

    def _files(self, snap: _Snapshot) -> list[ReviewFile]:
        pending = {f.path: f for f in snap.pending}
        accepted = {f.path: whole_file(f) for f in rg.cached_diff(self.worktree, self.base)}
        out = []
        for path in sorted(set(pending) | set(accepted)):
            p, a = pending.get(path), accepted.get(path)
            main = p if p is not None and (p.status != "M" or a is None) else a
            assert main is not None
            old_path = main.old_path or (a.old_path if a else None) or (p.old_path if p else None)
            binary = bool((p and p.binary) or (a and a.binary))
            out.append(ReviewFile(path, old_path, main.status, binary, p, a))
        return out

    def _one(
        self, hunk_id: str, matches: list[tuple[ReviewFile, Hunk, str]]
    ) -> tuple[ReviewFile, Hunk, str]:
        exact = [m for m in matches if m[1].id == hunk_id]
        # The same lines can be both accepted and still pending elsewhere in the file: an
        # exact id then names the pending one (the one a decision can be made on).
        exact = [m for m in exact if m[2] == PENDING] or exact
        if len(exact) == 1:
            return exact[0]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise CursorishError(
                f"no hunk {hunk_id!r} in {self.branch} (ids change when a file changes: list "
                f"them again with `cursorish review {self.branch} --list`)",
                ExitCode.BAD_ARGS,
            )
        shown = ", ".join(sorted({m[1].id for m in matches}))
        raise CursorishError(
            f"hunk id {hunk_id!r} is ambiguous in {self.branch}: it matches {shown}",
            ExitCode.BAD_ARGS,
        )

    def _pending_hunk(self, snap: _Snapshot, hunk_id: str) -> tuple[FileDiff, Hunk]:
        if not hunk_id:
            raise CursorishError("no hunk id given", ExitCode.BAD_ARGS)
        found = [(f, h) for f in snap.pending for h in f.hunks if h.id.startswith(hunk_id)]
        exact = [(f, h) for f, h in found if h.id == hunk_id]
        if len(exact) == 1 or len(found) == 1:
            return (exact or found)[0]
        if found:
            shown = ", ".join(sorted({h.id for _, h in found}))
            raise CursorishError(
                f"hunk id {hunk_id!r} is ambiguous in {self.branch}: it matches {shown}",
                ExitCode.BAD_ARGS,
            )
        accepted = [
            h
            for f in rg.cached_diff(self.worktree, self.base)
            for h in whole_file(f).hunks
            if h.id.startswith(hunk_id)
        ]
        if accepted:
            raise CursorishError(
                f"hunk {accepted[0].id} of {accepted[0].path} is already accepted "
                "(undo to change that)",
                ExitCode.BAD_ARGS,
            )
        raise CursorishError(
            f"no pending hunk {hunk_id!r} in {self.branch}: it was decided already or its file "
            f"changed since (list the hunks again: `cursorish review {self.branch} --list`)",
            ExitCode.BAD_ARGS,
        )

    def _decide_all(self, kind: str, reason: str, path: str | None) -> list[Decision]:
        """Decide every pending hunk (of `path`, or all), in rounds: rejecting a renamed
        file's hunks leaves the rename itself pending, decided in the next round."""
        decided: list[Decision] = []
        for _ in range(3):
            snap = self._snapshot()
            targets = [
                (f, h)
                for f in snap.pending
                if path is None or path in (f.path, f.old_path)
                for h in f.hunks
            ]
            if not targets:
                break
            decided += self._decide(snap, targets, kind, reason)
        if not decided and path is not None:
            raise CursorishError(f"no pending change to {path} in {self.branch}", ExitCode.BAD_ARGS)
        return decided

    def _decide(
        self, snap: _Snapshot, targets: list[tuple[FileDiff, Hunk]], kind: str, reason: str
    ) -> list[Decision]:
        accept = kind == ACCEPTED
        patches = self._patches(snap, targets, accept=accept)
        try:
            rg.apply_patch(self.worktree, b"".join(patches), cached=accept, reverse=not accept)
        except GitError as exc:
            shown = ", ".join(h.id for _, h in targets[:5]) + (", ..." if len(targets) > 5 else "")
            detail = first_line(exc.stderr) or "git apply failed"
            raise CursorishError(
                f"cannot {'accept' if accept else 'reject'} hunk {shown}: it no longer applies "
                f"({detail}); nothing was changed (list the hunks again)",
                ExitCode.BAD_ARGS,
            ) from None
        row_ids = self.store.add_review_decisions(
            self.branch,
            self.agent_id,
            [
                {
                    "path": h.path,
                    "hunk_id": h.id,
                    "header": h.header,
                    "decision": kind,
                    "reason": reason,
                    "patch": patch,
                }
                for (_, h), patch in zip(targets, patches, strict=True)
            ],
        )
        return [
            Decision(row_id, h.id, h.path, kind, reason, h.header)
            for row_id, (_, h) in zip(row_ids, targets, strict=True)
        ]

    def _patches(
        self, snap: _Snapshot, targets: list[tuple[FileDiff, Hunk]], *, accept: bool
    ) -> list[bytes]:
        """One patch per target, each applying on top of the ones before it (targets of one
        file come in file order): an accepted hunk's old-side start moves by what earlier
        hunks of its file added; a rejected one's new-side start by what they removed.

        A renamed file's first accepted hunk carries the rename; later hunks, and every
        rejected hunk, patch the file under its new name (rejecting content never undoes
        the rename: that is the rename's own whole-file decision)."""
        out: list[bytes] = []
        shift: dict[str, int] = {}
        for f, hunk in targets:
            if is_whole_file(hunk):
                out.append(self._whole_patch(snap, f, hunk))
                continue
            first = f.path not in shift
            moved = shift.get(f.path, 0)
            header = f.header if f.status != "R" or (accept and first) else plain_header(f)
            if accept:
                raw = shift_hunk(hunk.raw, old=moved, new=0)
                shift[f.path] = moved + hunk.new_count - hunk.old_count
            else:
                raw = shift_hunk(hunk.raw, old=0, new=moved)
                shift[f.path] = moved + hunk.old_count - hunk.new_count
            out.append(header + raw)
        return out

    def _whole_patch(self, snap: _Snapshot, f: FileDiff, hunk: Hunk) -> bytes:
        if not f.binary:
            return f.header + hunk.raw
        paths = (f.path,) if not f.old_path else (f.old_path, f.path)
        full = rg.tree_diff(
            self.worktree, snap.index_tree, snap.files_tree, paths=paths, binary=True
        )
        for candidate in full:
            if candidate.path == f.path:
                return candidate.patch()
        raise CursorishError(f"cannot build the binary patch of {f.path}")  # pragma: no cover

    def _commit_message(self, message: str | None, accepted: int, rejected: int) -> str:
        tally = f"{accepted} accepted, {rejected} rejected"
        if message is None or not message.strip():
            title = f"Review of {self.branch}: {_plural(accepted, 'hunk')} accepted"
            if rejected:
                title += f", {rejected} rejected"
            task = self.task.strip()
            message = f"{title}\n\nTask: {task}" if task else title
        trailers = []
        if self.agent_id:
            trailers.append(f"Cursorish-Agent: {self.agent_id}")
        task_line = self.task.strip().splitlines()[0][:200] if self.task.strip() else ""
        if task_line:
            trailers.append(f"Cursorish-Task: {task_line}")
        trailers.append(f"{rg.REVIEW_TRAILER}: {tally}")
        return message.rstrip() + "\n\n" + "\n".join(trailers) + "\n"


def _existing_worktree(
    repo: RepoInfo, branch: str, row: dict[str, Any] | None, review: dict[str, Any] | None
) -> Path | None:
    """The agent's own worktree when it is still there on the branch, else the review
    worktree used before; None when one has to be created."""
    candidates = []
    if row is not None:
        candidates.append(Path(row["worktree"]))
    if review is not None:
        candidates.append(Path(review["worktree"]))
    candidates.append(rg.review_worktree_path(worktrees_dir(repo.git_common_dir), branch))
    for path in candidates:
        if rg.is_worktree_on(path, branch):
            return path
    return None


def _check_something_to_review(repo: RepoInfo, branch: str, base: str, wt: Path | None) -> None:
    base_tree = rg.tree_of(repo.root, base)
    if rg.tree_of(repo.root, f"refs/heads/{branch}") != base_tree:
        return
    if wt is not None and rg.snapshot_trees(wt)[1] != base_tree:
        return
    raise CursorishError(
        f"{branch} has nothing to review: it has no changes against its base {base[:10]}",
        ExitCode.BAD_ARGS,
    )


def _decision(row: dict[str, Any]) -> Decision:
    return Decision(
        id=int(row["id"]),
        hunk_id=str(row["hunk_id"]),
        path=str(row["path"]),
        decision=str(row["decision"]),
        reason=str(row["reason"] or ""),
        header=str(row["header"] or ""),
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
