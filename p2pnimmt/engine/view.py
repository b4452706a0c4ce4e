"""What one seat may know: its own hand, the table, the scores and the cards seen. Never another hand."""

from __future__ import annotations

from .cards import BULL_HEADS
from .game import Game


class PlayerView:
    """A live, read-only window for one seat onto a game in progress.

    It holds only public state and the seat's own hand; rebuild it when a
    new round starts (`Game.round` changes).
    """

    __slots__ = ("seat", "players", "variant", "deck", "scores", "_hand", "_rows", "_taken", "_open", "_played")

    def __init__(self, game: Game, seat: int) -> None:
        self.seat = seat
        self.players = game.settings.players
        self.variant = game.settings.variant
        self.deck = game.deck
        self.scores = tuple(game.scores)  # totals of the finished rounds
        if game.draft is not None:
            self._hand = game.draft.hands[seat]
            self._open: list[int] | None = game.draft.open_cards
            self._rows: list[list[int]] = []
            self._taken: list[list[int]] = [[] for _ in range(self.players)]
            self._played: list[tuple[int, ...]] = []
        else:
            rnd = game.round
            if rnd is None:
                raise ValueError("no round in progress")
            self._hand = rnd.hands[seat]
            self._open = None
            self._rows = rnd.rows
            self._taken = rnd.taken
            self._played = rnd.played

    @property
    def hand(self) -> tuple[int, ...]:
        """This seat's cards, ascending."""
        return tuple(self._hand)

    @property
    def rows(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(r) for r in self._rows)

    @property
    def played(self) -> tuple[tuple[int, ...], ...]:
        """The cards of each turn played so far this round, by seat (everyone saw them revealed)."""
        return tuple(self._played)

    @property
    def turn(self) -> int:
        """Turns already played in this round (0..10)."""
        return 10 - len(self._hand)

    @property
    def round_penalties(self) -> tuple[int, ...]:
        """Bull heads each seat has taken so far this round."""
        return tuple(sum(BULL_HEADS[c] for c in pile) for pile in self._taken)

    @property
    def seen(self) -> frozenset[int]:
        """Cards revealed this round: the row cards of the deal and every card played since."""
        return frozenset().union(*self._rows, *self._taken)

    @property
    def unseen(self) -> frozenset[int]:
        """Cards of the deck this seat has not seen: in other hands or not dealt."""
        return frozenset(self.deck).difference(self._hand, *self._rows, *self._taken)

    @property
    def open_cards(self) -> tuple[int, ...]:
        """In a draft: the cards still open to pick. Empty otherwise."""
        return tuple(self._open or ())
