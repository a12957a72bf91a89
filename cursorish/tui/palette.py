"""A command palette provider over a list of (title, help, callback) entries: the app's actions
and the review screens' commands both use it."""

from __future__ import annotations

from collections.abc import Callable

from textual.command import DiscoveryHit, Hit, Hits, Provider

PaletteEntry = tuple[str, str, Callable[[], object]]  # title, help, what choosing it does
# Below this many columns the footer hides its "^p palette" hint: the keys need the room.
PALETTE_HINT_WIDTH = 100


class PaletteProvider(Provider):
    """Lists `entries()` when the palette opens; matches a query on their titles."""

    def entries(self) -> list[PaletteEntry]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for title, help_text, callback in self.entries():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self.entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
