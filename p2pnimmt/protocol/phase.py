"""Where a game is: the phase (with its allowed transitions as data) and the step within a round (protocol.md 11, 12).

Steps of a round, as they go on the wire (DROP's `step`): 0 the deal's
commit (seed commit, sealed shuffle, or the draft), 1 the deal's reveal
(seed reveal, sealed unlock), then for turn t: 2+3t commit, 3+3t reveal,
4+3t row choice; 32 round end, 33 game end. Some steps have several
places (DROP's `place`): a draft's step 0 one per pick, a sealed deal's
steps 0 and 1 one per seat (seat s's SEALED_SHUFFLE at (r, 0, s), its
SEALED_UNLOCK at (r, 1, s)), and step 32 the sealed deal's keys (place 0)
before ROUND_END (place 1). `Step` is the
one place that makes and reads these numbers.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Any, NamedTuple

from ..engine import HAND_SIZE


class Phase(StrEnum):
    """The phase of a session; a StrEnum, so it compares equal to its name ("turn", "over", ...)."""

    LOBBY = "lobby"
    STARTING = "starting"  # START taken, acknowledgements coming in
    DEAL = "deal"
    TURN = "turn"
    ROUND_END = "round-end"
    GAME_END = "game-end"
    OVER = "over"
    ABORTED = "aborted"


TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.LOBBY: frozenset({Phase.STARTING}),
    Phase.STARTING: frozenset({Phase.DEAL}),
    Phase.DEAL: frozenset({Phase.TURN, Phase.ROUND_END}),  # dealt; or void / audited before a turn
    Phase.TURN: frozenset({Phase.ROUND_END}),  # the last turn resolved; or void / audited at once
    Phase.ROUND_END: frozenset({Phase.DEAL, Phase.GAME_END}),
    Phase.GAME_END: frozenset({Phase.OVER}),
    Phase.OVER: frozenset(),
    Phase.ABORTED: frozenset(),
}
for _phase in (Phase.LOBBY, Phase.STARTING, Phase.DEAL, Phase.TURN, Phase.ROUND_END, Phase.GAME_END, Phase.OVER):
    # A fatal fault aborts the game, even one over here: a late message can still prove a rule broken.
    TRANSITIONS[_phase] |= {Phase.ABORTED}


class IllegalTransition(RuntimeError):
    """The session tried a phase change the table does not allow (a bug, never the network's doing)."""


def check_transition(old: Phase, new: Phase) -> Phase:
    """`new`, if the game may go from `old` to it."""
    if new not in TRANSITIONS[old]:
        raise IllegalTransition(f"phase {old} cannot go to {new}")
    return new


class Part(IntEnum):
    """The three parts of a turn."""

    COMMIT = 0
    REVEAL = 1
    ROW_CHOICE = 2


SEED_COMMIT_STEP, SEED_REVEAL_STEP = 0, 1
ROUND_END_STEP, GAME_END_STEP = 2 + 3 * HAND_SIZE, 3 + 3 * HAND_SIZE
KEYS_PLACE, ROUND_END_PLACE = 0, 1  # the places of step 32: a sealed deal's SEALED_KEYS, then ROUND_END

_TURN_KIND_PART = {"PLAY_COMMIT": Part.COMMIT, "PLAY_REVEAL": Part.REVEAL, "ROW_CHOICE": Part.ROW_CHOICE,
                   "STANDIN": Part.COMMIT}
_KIND_STEP = {"SEED_REVEAL": (SEED_REVEAL_STEP, 0),
              "ROUND_END": (ROUND_END_STEP, ROUND_END_PLACE), "SEALED_KEYS": (ROUND_END_STEP, KEYS_PLACE),
              "GAME_END": (GAME_END_STEP, 0)}
_SEATED = {"SEALED_SHUFFLE": SEED_COMMIT_STEP, "SEALED_UNLOCK": SEED_REVEAL_STEP}  # at the place of their sender


_tuple_new = tuple.__new__  # what a named tuple's __new__ calls, without that Python call (made for every message)


class Step(NamedTuple):
    """A position of the game: (round, the step number on the wire, the place within the step).

    A tuple, so positions order as the game goes. Some steps have several places, each its own position to
    wait, vote and drop at (protocol.md 11.1): a draft's step 0 one per pick (the place is the pick), a
    sealed deal's steps 0 and 1 one per seat (the place is the seat whose shuffle or unlock it is), and
    step 32 the sealed deal's SEALED_KEYS (place 0) before ROUND_END (place 1).
    """

    round: int
    number: int
    place: int = 0

    @classmethod
    def of_turn(cls, round_index: int, turn: int, part: Part) -> Step:
        return _tuple_new(cls, (round_index, 2 + 3 * turn + part, 0))

    @classmethod
    def of_message(cls, round_index: int, kind: str, body: dict[str, Any], seat: int = 0) -> Step:
        """The position a message of `kind` with `body` belongs to; `seat`: its sender's (a sealed deal's shuffle
        and unlock are at their sender's place)."""
        if kind in _SEATED:
            return _tuple_new(cls, (round_index, _SEATED[kind], seat))
        part = _TURN_KIND_PART.get(kind)
        if part is not None:
            return _tuple_new(cls, (round_index, 2 + 3 * body["turn"] + part, 0))  # (of_turn's)
        if kind in ("DROP", "KEEP"):
            return _tuple_new(cls, (round_index, body.get("step", 0), body.get("place", 0)))
        if kind == "DRAFT_PICK":
            return _tuple_new(cls, (round_index, SEED_COMMIT_STEP, body["pick"]))
        return _tuple_new(cls, (round_index, *_KIND_STEP.get(kind, (SEED_COMMIT_STEP, 0))))

    @classmethod
    def round_end(cls, round_index: int) -> Step:
        """Where ROUND_END is signed (after a sealed deal's keys, at the same step)."""
        return cls(round_index, ROUND_END_STEP, ROUND_END_PLACE)

    @property
    def slot(self) -> int:
        """The k of a DROP or KEEP slot at this position (section 11's slots): one per step and place."""
        return self.number + (GAME_END_STEP + 1) * self.place

    @property
    def in_turn(self) -> bool:
        return SEED_REVEAL_STEP < self.number < ROUND_END_STEP

    @property
    def turn(self) -> int:
        """The turn this step is in, or reaches back to (0 before the turns, the last turn after them)."""
        return min(max(self.number - 2, 0) // 3, HAND_SIZE - 1)

    @property
    def part(self) -> Part | None:
        """Commit, reveal or row choice for a step of a turn; None for the deal and round-end steps."""
        return Part((self.number - 2) % 3) if self.in_turn else None


def turn_steps(turn: int) -> tuple[int, int, int]:
    """The step numbers of a turn's commit, reveal and row choice (what `Step.of_turn` numbers, without a Step)."""
    commit = 2 + 3 * turn
    return commit, commit + 1, commit + 2


def turn_step(turn: int, part: int) -> int:
    """The step number of a turn's commit (part 0), reveal (1) or row choice (2)."""
    return Step.of_turn(0, turn, Part(part)).number


def message_step(kind: str, body: dict[str, Any]) -> int:
    """The step number a message belongs to."""
    return Step.of_message(0, kind, body).number


def message_round(kind: str, body: Any) -> int:
    """The round a message is for; a GAME_END is for the last round (`rounds` - 1): a seat that is dropped
    where it arrives may be back by then (11.3)."""
    fields = body if isinstance(body, dict) else {}
    got = fields.get("rounds") if kind == "GAME_END" else fields.get("round")
    if type(got) is not int:
        return -1
    return got - 1 if kind == "GAME_END" else got
