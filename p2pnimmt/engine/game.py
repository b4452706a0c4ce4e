"""A whole game: settings, rounds, scores, the end condition and the winners."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import DEALS, VARIANTS, check_players, deck
from .draft import Draft
from .round import Round

DEFAULT_POINT_LIMIT = 66
MAX_CLOCK = 3600  # an hour a move: the longest turn clock a game may set
# The longest game a host sets up over the network (protocol.md 8, "A chain's bound"): one that ends within 100
# rounds, by its round limit or by a point limit of 200 at most (a round takes 4 bull heads or more at 2 seats,
# 10n - 16 at n: so 200 points end a game within 101 rounds). An honest seat signs some 28 messages and 14 KB a
# round at ten seats sealed (up to 120 messages where it asks the stand-in for nine seats in every turn), so such a
# game stays well under the 16,384 messages and 4 MiB every node accepts of one seat (review, session 46: a game of
# 400 rounds at two seats sealed, 10.5 KB a seat a round, stopped in its last round at 4 MiB, each seat's next
# message dropped by every other node and its sender cut off; at ten seats sealed it stops near round 310).
NETWORK_MAX_ROUNDS = 100
NETWORK_MAX_POINTS = 200


def ends_in_time(point_limit: int | None, max_rounds: int | None) -> bool:
    """A game of these limits ends within NETWORK_MAX_ROUNDS rounds: a host may set it up over the network."""
    return (max_rounds is not None and max_rounds <= NETWORK_MAX_ROUNDS) or \
        (point_limit is not None and point_limit <= NETWORK_MAX_POINTS)


@dataclass(frozen=True, slots=True)
class Settings:
    """How a game is played: seats, variant, when it ends (point limit and/or number of rounds), and the deal.

    `deal` says how a networked game deals (protocol.md): "sealed" (no one
    sees another hand; the default) or "open" (a shared seed). The rules
    do not depend on it. The draft variant deals open cards, so its deal
    is always "open".
    """

    players: int
    variant: str = "standard"
    point_limit: int | None = DEFAULT_POINT_LIMIT
    max_rounds: int | None = None
    deal: str = "sealed"
    clock: int | None = None  # seconds each player has for a move in a networked game; None: no clock

    def __post_init__(self) -> None:
        check_players(self.players)
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; expected one of {', '.join(VARIANTS)}")
        for name in ("point_limit", "max_rounds"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 1):
                raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
        if self.clock is not None and (type(self.clock) is not int or not 1 <= self.clock <= MAX_CLOCK):
            raise ValueError(f"clock must be 1..{MAX_CLOCK} seconds or None, got {self.clock!r}")
        if self.point_limit is None and self.max_rounds is None:
            raise ValueError("a game needs an end: set point_limit, max_rounds or both")
        if self.deal not in DEALS:
            raise ValueError(f"unknown deal {self.deal!r}; expected one of {', '.join(DEALS)}")
        if self.variant == "draft":
            object.__setattr__(self, "deal", "open")  # the draft's cards lie open: there is nothing to seal

    @property
    def deck(self) -> tuple[int, ...]:
        """The cards in play, ascending."""
        return deck(self.variant, self.players)

    @property
    def end_text(self) -> str:
        """When the game ends, in words: "66 points", "3 rounds" or "66 points or 3 rounds"."""
        parts = (f"{self.point_limit} points" if self.point_limit else "",
                 f"{self.max_rounds} round{'s' if self.max_rounds != 1 else ''}" if self.max_rounds else "")
        return " or ".join(part for part in parts if part)


class Game:
    """Scores across rounds; starts and finishes rounds; knows when the game is over and who won."""

    __slots__ = ("settings", "deck", "scores", "history", "round", "draft", "_cards", "before", "carried")

    def __init__(self, settings: Settings, before: int = 0, carried: Sequence[int] | None = None) -> None:
        """`before` rounds of the evening were played in a game this one continues (protocol.md 9, START's `carry`),
        each seat's total then `carried`: the game plays the rounds left, and its end counts the carried scores."""
        self.settings = settings
        if carried is not None and len(carried) != settings.players:
            raise ValueError(f"{settings.players} seats need {settings.players} carried scores, got {len(carried)}")
        self.before = before
        self.carried = tuple(carried) if carried is not None else (0,) * settings.players
        self.scores = list(self.carried)
        self.history: list[tuple[int, ...]] = []  # bull heads taken per seat, one entry per finished round
        self.round: Round | None = None
        self.draft: Draft | None = None
        self.deck = settings.deck  # the cards in play, ascending
        self._cards = frozenset(self.deck)

    @property
    def rounds_played(self) -> int:
        return len(self.history)

    def round_no(self, index: int) -> int:
        """The evening's number of this game's round `index` (0-based): a game that carries counts on from the rounds
        of the game it continues ("round 3" after 2 carried), as its totals do."""
        return self.before + index + 1

    @property
    def over(self) -> bool:
        """True once a finished round met the end condition (point limit reached, or the last round played)."""
        s = self.settings
        if s.max_rounds is not None and self.before + self.rounds_played >= s.max_rounds:
            return True
        return s.point_limit is not None and bool(self.history) and max(self.scores) >= s.point_limit

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats with the fewest bull heads (ties share the win)."""
        low = min(self.scores)
        return tuple(s for s, score in enumerate(self.scores) if score == low)

    def start_round(self, order: Sequence[int] | None = None) -> Round | Draft:
        """Begin the next round: deal from `order` (a deck order), or open the draft in the draft variant."""
        if self.over:
            raise ValueError("the game is over")
        if self.round is not None or self.draft is not None:
            raise ValueError("a round is in progress")
        n = self.settings.players
        if self.settings.variant == "draft":
            if order is not None:
                raise ValueError("the draft variant deals no deck order: the cards lie open")
            self.draft = Draft(n, self.rounds_played)
            return self.draft
        if order is None:
            raise ValueError("a deck order is needed to deal")
        self.round = Round.deal(order, n, self._cards)
        return self.round

    def start_dealt(self, rnd: Round) -> Round:
        """Begin the next round with one dealt elsewhere (the sealed deal: hands this node cannot see are hidden)."""
        if self.over:
            raise ValueError("the game is over")
        if self.round is not None or self.draft is not None:
            raise ValueError("a round is in progress")
        if rnd.players != self.settings.players or rnd.turn != 0:
            raise ValueError("the dealt round does not fit this game")
        self.round = rnd
        return rnd

    def void_round(self) -> tuple[int, ...]:
        """End the round in progress (or its deal) unscored: it counts as played, with no bull heads for anyone."""
        if self.over:
            raise ValueError("the game is over")
        taken = (0,) * self.settings.players
        self.history.append(taken)
        self.round = None
        self.draft = None
        return taken

    def finish_draft(self) -> Round:
        """Turn the finished draft into the round it dealt."""
        if self.draft is None:
            raise ValueError("no draft in progress")
        self.round = self.draft.deal()
        self.draft = None
        return self.round

    def finish_round(self) -> tuple[int, ...]:
        """Score the finished round; return the bull heads each seat took in it."""
        if self.round is None or not self.round.over:
            raise ValueError("no finished round to score")
        taken = tuple(self.round.penalties)
        for seat, points in enumerate(taken):
            self.scores[seat] += points
        self.history.append(taken)
        self.round = None
        return taken
