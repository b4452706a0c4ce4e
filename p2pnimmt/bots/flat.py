"""The `mcs100` bot: the classic flat Monte-Carlo player, a baseline that plays nothing like the heuristic.

For each candidate (each card of its hand, or each row when it must take
one) it plays the rest of the round out 100 times on the same 100 deals:
the unseen cards dealt uniformly to the other seats, then every seat,
itself included, playing uniformly random cards (and taking a random row
when its card is below every row end). It chooses the candidate with the
fewest own bull heads over the playouts (the lower card, or row, on ties).
The playouts run on the rollout kernel (`kernel`); it sees only its
PlayerView. The draft variant's picks are uniformly random.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import ROW_COUNT, PlayerView
from .base import SeededBot

# numpy and the kernel load when this bot is made or moves (importing `p2pnimmt.bots` needs neither)


class FlatMCBot(SeededBot):
    """Flat Monte-Carlo: `playouts` uniform deals played out at random per candidate; the fewest own bull heads."""

    name = "mcs100"
    playouts = 100

    def __init__(self, seed: int | str | bytes = 0) -> None:
        super().__init__(seed)
        import numpy as np

        self.np_rng = np.random.default_rng(self.rng.getrandbits(128))

    def choose_card(self, view: PlayerView) -> int:
        import numpy as np

        from .kernel import GONE, Tables, deal_hands, play_out, take

        hand = list(view.hand)
        if len(hand) == 1:
            return hand[0]
        seat, players, size = view.seat, view.players, len(hand)
        pool = sorted(view.unseen)
        if (players - 1) * size > len(pool):  # not a state of a real game: no deal fits it
            return hand[0]
        k, n = len(hand), self.playouts
        rng = self.np_rng
        hands = deal_hands(pool, n, players, seat, size, rng)
        hands[:, seat] = hand
        hands = np.repeat(hands, k, axis=0)  # deal d, candidate i at d * k + i
        mine = np.tile(np.arange(k), n)
        tables = Tables.of_rows(view.rows, n * k, players)
        slots = np.argmin(rng.random(hands.shape) + 2.0 * (hands == GONE), axis=2)
        slots[:, seat] = mine
        tables.place(take(hands, slots), rng.integers(0, ROW_COUNT, n * k))
        play_out(tables, hands, rng)
        totals = tables.pens[:, seat].reshape(n, k).sum(axis=0)
        return hand[int(np.argmin(totals))]

    def choose_row(self, view: PlayerView, plays: Sequence[int]) -> int:
        import numpy as np

        from .kernel import Tables, deal_hands, play_out

        seat, players = view.seat, view.players
        rest = [c for c in view.hand if c != plays[seat]]
        pool = sorted(set(view.unseen) - set(plays))
        if not rest or (players - 1) * len(rest) > len(pool):  # the last turn: only this row's bull heads count
            heads = Tables.of_rows(view.rows, 1, players).heads[0]
            return int(np.argmin(heads))
        n, rng = self.playouts, self.np_rng
        hands = deal_hands(pool, n, players, seat, len(rest), rng)
        hands[:, seat] = rest
        hands = np.repeat(hands, ROW_COUNT, axis=0)
        tables = Tables.of_rows(view.rows, n * ROW_COUNT, players)
        tables.place(np.tile(np.asarray(plays), (n * ROW_COUNT, 1)), np.tile(np.arange(ROW_COUNT), n))
        play_out(tables, hands, rng)
        totals = tables.pens[:, seat].reshape(n, ROW_COUNT).sum(axis=0)
        return int(np.argmin(totals))

    def choose_pick(self, view: PlayerView) -> int:
        cards = view.open_cards
        return cards[int(self.random() * len(cards))]
