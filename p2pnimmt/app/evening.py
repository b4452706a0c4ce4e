"""The evening's table: games won and total points per player across a chain of rematches.

A chain is a game and the games it follows, each START naming the one before (`previous`). The node keeps
the finished games' results in memory as it moves from game to game, taken from each game's session at its
end (every message signed and checked, the same state `p2pnimmt verify` reaches); `from_records` gets the same
table back from the transcripts in the history folder. People are told apart by their key, not their name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..ui.words import evening_lines


@dataclass(frozen=True)
class GameResult:
    """One finished game of the evening: its id, the game it follows, and each seat's key, name and points."""

    game_id: bytes
    previous: bytes | None
    peers: tuple[bytes, ...]
    names: tuple[str, ...]
    bots: tuple[bool, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class EveningRow:
    name: str
    bot: bool
    games: int
    wins: int
    points: int


def previous_of(session) -> bytes | None:
    """The game a session's game follows (its START's `previous`), or None."""
    start = getattr(session, "start", None)
    previous = start.body.get("previous") if start is not None else None
    return previous if isinstance(previous, bytes) else None


def result_of(session, finished: bool = True) -> GameResult:
    """The game of `session` as it stands (its scores so far; winners only once it is over)."""
    game = session.game
    over = finished and session.phase == "over"
    return GameResult(session.game_id, previous_of(session), tuple(session.roster), tuple(session.names),
                      tuple(bool(b) for b in session.bots), tuple(game.scores),
                      tuple(session.result.winners) if over else ())


class Evening:
    """The finished games of the evening, oldest first."""

    def __init__(self, games: Iterable[GameResult] = ()) -> None:
        self.games: list[GameResult] = list(games)

    def add(self, session) -> None:
        """A game is over: keep its result (once)."""
        if session.game is not None and session.phase == "over" and \
                all(g.game_id != session.game_id for g in self.games):
            self.games.append(result_of(session))

    def count(self, session=None) -> int:
        """How many games the table covers: the finished ones (with `session`'s, once it is over)."""
        return len(self._with(session))

    def _with(self, session) -> list[GameResult]:
        """The finished games, and `session`'s if it is over and not added yet. A game in play is not counted:
        at the start of a rematch, its 0 points would make '2 games' of one game's points."""
        games = list(self.games)
        if self._new(session) and session.phase == "over":
            games.append(result_of(session))
        return games

    def _new(self, session) -> bool:
        """Whether `session` plays a game of this evening that is not among its finished games."""
        return session is not None and getattr(session, "game", None) is not None and \
            all(g.game_id != session.game_id for g in self.games)

    def rows(self, session=None) -> list[EveningRow]:
        """Per player (by key): games played, games won (a tie: each winner wins), total points, over the finished
        games (with `session`'s once it is over). Fewest points first among the most wins."""
        tally: dict[bytes, list] = {}
        for g in self._with(session):
            for seat, peer in enumerate(g.peers):
                row = tally.setdefault(peer, [g.names[seat], g.bots[seat], 0, 0, 0])
                row[0] = g.names[seat]  # the latest name
                row[2] += 1
                row[3] += seat in g.winners
                row[4] += g.scores[seat]
        rows = [EveningRow(*row) for row in tally.values()]
        return sorted(rows, key=lambda r: (-r.wins, r.points, r.name))

    def shown(self, session=None) -> bool:
        """The table is worth showing from the evening's second game on (during it: the first game's table)."""
        return len(self.games) + self._new(session) > 1

    def table(self, session=None) -> tuple[int, list[EveningRow]]:
        """(games, rows) for the screens: the games counted and each player's row; (0, []) with one game only."""
        return (self.count(session), self.rows(session)) if self.shown(session) else (0, [])

    def lines(self, session=None) -> list[str]:
        """The table as lines of text (the line terminal); none with one game only."""
        games, rows = self.table(session)
        return evening_lines(games, rows) if games else []

    @classmethod
    def from_records(cls, records, last) -> Evening:
        """The evening that ends with the game of `last` (a history GameRecord), from the verified records:
        `last`, the game its START names as `previous`, and so on back (a game not found, or not verified,
        ends the chain)."""
        by_id = {r.game_id: r for r in records if r.verified and r.game_id}
        chain: list[GameResult] = []
        record = last if last.verified else None
        seen: set[bytes] = set()
        while record is not None and record.game_id not in seen:
            seen.add(record.game_id)
            players = record.players
            chain.append(GameResult(record.game_id, record.previous, tuple(p.peer for p in players),
                                    tuple(p.name for p in players), tuple(p.who == "bot" for p in players),
                                    tuple(p.score for p in players), tuple(i for i, p in enumerate(players) if p.won)))
            record = by_id.get(record.previous) if record.previous is not None else None
        return cls(reversed(chain))
