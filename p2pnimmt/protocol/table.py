"""The state of the game at one node, and the questions every part asks of it (protocol.md 11, 12).

`Table` holds what the accepted messages have established: the roster,
the engine game, the phase, round and turn, the slots (accepted messages
by kind, round and step, by seat), the drops and votes, and named records
of the one-shot steps already taken. It answers who is still playing, what
step the game is at and whom it waits for (`waiting_for`, the one answer
used by the UI, the drop timers and spectators). The session and its
steps change it; a deal component sees it read-only (tableview.TableView).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import MAX_PLAYERS, Game
from . import quorum
from .commitments import commit_set_digest, state_hash
from .deal import Deal
from .envelope import Envelope
from .events import Fault, GameOver
from .phase import (
    GAME_END_STEP,
    KEYS_PLACE,
    ROUND_END_PLACE,
    ROUND_END_STEP,
    SEED_COMMIT_STEP,
    SEED_REVEAL_STEP,
    Part,
    Phase,
    Step,
    check_transition,
    message_round,
    turn_steps,
)
from .quorum import vote_slot
from .split import Held, commit_sets

AWAY_AFTER = 3  # stand-in cards in a row that make a seat "away"

# Faults proven by one signed message that every node checks alike: they cost the signer its seat, not the
# game (protocol.md 12); and so does a split commit, decided by the turn's reveals (split.py, "equivocation").
# Any other equivocation and a broken chain stay fatal (two nodes may hold different versions), and so does any
# fault the host's START or START_ACK proves; one another seat's first START_ACK proves refuses that seat's
# acknowledgement (the game waits for the host's new start), one a later START_ACK proves expels it (protocol.md 12).
EXPELS = frozenset({"equivocation", "unknown-kind", "bad-body", "unexpected", "duplicate", "start-mismatch",
                    "seed-mismatch", "bad-reveal", "not-in-hand", "sealed-shuffle", "sealed-unlock", "state-mismatch",
                    "wrong-chooser", "bad-row", "out-of-turn", "bad-pick", "result-mismatch"})


# Kinds of a seat's chain that are at no position of a round (a REJOIN asks for a round, 11.3): going on by them is
# going on from nothing (Table.expelled_furthest; the TypeScript positionOfMessage gives them none either)
UNPLACED = frozenset({"START_ACK", "REJOIN"})


def standin_slot(turn: int, seat: int) -> int:
    """STANDIN votes are kept per (round, turn, seat asked for): the slot's step number for (turn, seat)."""
    return turn * MAX_PLAYERS + seat


@dataclass
class TurnRecord:
    """What this node has already done and found in one turn."""

    asked: bool = False  # PlayNeeded was emitted
    state_checked: bool = False  # every commit's game state was compared with ours
    cards: tuple[int, ...] | None = None  # every seat's card, checked (hidden cards learnt from the reveals)
    revealed: bool = False  # Revealed was emitted
    chooser: int | None = None  # the seat that must choose a row (RowChoiceNeeded was emitted)
    commit_set: tuple[tuple[int, ...], bytes] | None = None  # (committers, the digest of their commits: commit_digest)


class Table:
    """One node's game state (see the module docstring)."""

    def __init__(self, me: bytes | None, entropy: Callable[[int], bytes], game_id: bytes | None) -> None:
        self.me = me
        self.entropy = entropy
        self.id = game_id  # the game id, once known (given, hosted, or from START)
        self.phase = Phase.LOBBY
        self.start: Envelope | None = None
        self.roster: list[bytes] = []  # peer id by seat
        self.names: list[str] = []
        self.bots: list[bool] = []
        self.keys: dict[bytes, bytes] = {}  # peer id -> public key
        self.seat: int | None = None
        # our own signed `where` record for this game as a body holds it, or None (no network: an in-memory session):
        # the START and our START_ACK carry it (protocol.md 14, "In the START and the START_ACKs"; the node sets it)
        self.own_where: Callable[[], list[Any] | None] | None = None
        self.engine: Game | None = None  # the engine game, once START is taken
        self.deal: Deal | None = None
        self.round = 0
        self.turn = 0
        self.result: GameOver | None = None
        self.fault: Fault | None = None  # the fatal fault, once there is one
        self.replaying = False
        self.voided: dict[int, str] = {}  # round -> why it was void (scored as nothing)
        # seat -> the round its drop first voided: it cannot win, and never shuffles again (protocol.md 17.9)
        self.forfeits: dict[int, int] = {}
        self.expelled: dict[int, int] = {}  # seat -> seq of its message that broke a rule: from it on nothing counts
        self.expelled_for: dict[int, str] = {}  # seat -> the fault code it was expelled for
        # seat -> the fault code its first START_ACK was refused for (protocol.md 12, "A refused START_ACK"): the game
        # never starts; nothing the seat signs from that message on counts (it is in `expelled` too)
        self.refused: dict[int, str] = {}
        # seat -> the furthest position of its chain up to the message that expelled it, that one included where it
        # passed section 9's checks: where it went on, the same at every node that expelled it (11.1, went_on)
        self.expelled_furthest: dict[int, Step] = {}
        # (round, turn) -> seat -> hash -> its PLAY_COMMITs of that turn held here, once a proof shows two (split.py)
        self.versions: dict[tuple[int, int], dict[int, dict[bytes, Envelope]]] = {}
        # seat -> a proof of equivocation against it held unjudged above its commit of an undecided turn (above_split)
        self.held_proofs: dict[int, Held] = {}
        # (sender, seq) -> the sender's message accepted here at that seq (the session's inbox), for above_split
        self.message_of: Callable[[bytes, int], Envelope | None] = lambda _sender, _seq: None
        self.dropped: dict[int, Step] = {}  # seat -> the step from which the stand-in plays it
        self.rewinds: set[tuple[int, Step]] = set()  # in a rebuild: (seat, step from which its messages do not count)
        self.absences: dict[int, list[tuple[Step, int]]] = {}  # seat -> (dropped at, back from round) it came back from
        self.back_seq: dict[int, int] = {}  # seat -> seq of the REJOIN it came back by: what it signed before, not
        self.slots: dict[tuple[str, int, int], dict[int, Envelope]] = {}
        self.drop_steps: set[Step] = set()  # the step of every DROP slot (scanned each pass)
        self.drop_targets: dict[Step, set[int]] = {}  # step -> the seats some DROP there names
        self.parked: list[Envelope] = []  # messages of voters from past their open votes (slots.after_open_vote)
        self.votes: dict[Step, set[int]] = {}  # step -> the seats we voted to drop there
        self.furthest: dict[int, Step] = {}  # seat -> furthest step it sent a message for
        self.progress: dict[bytes, tuple[int, int]] = {}  # sender -> (round, turn) of its latest message
        # seat -> slot key -> its message there, and seat -> furthest step: of every message of its chain that passed
        # section 9's checks, placed or not (items 5 and 7 compare with its chain, whatever its state here)
        self.signed: dict[int, dict[tuple[str, int, int], Envelope]] = {}
        self.signed_furthest: dict[int, Step] = {}
        self.rejoined: set[bytes] = set()  # senders whose REJOIN came after their latest message bound by progress
        self.turns: dict[tuple[int, int], TurnRecord] = {}
        self.scored: set[int] = set()  # rounds scored (or voided) here
        self.plays: dict[tuple[int, int], tuple[int, bytes]] = {}  # (round, turn) -> our card and its nonce
        self.auto: set[tuple[int, int]] = set()  # (round, turn) where our card was the stand-in's (auto)
        self.streak: dict[int, int] = {}  # seat -> its last turns in a row whose card was the stand-in's
        self._state: bytes | None = None
        # Bumped by every change the step a turn waits on depends on (`changed`): a slot filled or emptied, a
        # seat dropped or back, a vote, a seat's furthest step. The session's fixed point and `step_now` key on it.
        self.version = 0
        self._turn_step: tuple[tuple[int, int, int], int] | None = None  # ((version, round, turn), step_now)
        # (round, step, place) -> the seats active there: kept until a seat is dropped or comes back (the only
        # changes of `dropped` and `absences`: drop, take_back), so a pass asks no seat twice.
        self._active: dict[tuple[int, int, int], tuple[int, ...]] = {}

    @property
    def game(self) -> Game:
        """The engine game (only asked for once START is taken)."""
        assert self.engine is not None, "no game before START"
        return self.engine

    @property
    def game_id(self) -> bytes:
        assert self.id is not None, "no game id yet"
        return self.id

    # ----------------------------------------------------------------- changes

    def move(self, phase: Phase) -> None:
        """Go to `phase` (IllegalTransition if the transition table does not allow it)."""
        self.phase = check_transition(self.phase, phase)

    def changed(self) -> None:
        """Something a step may act on changed (see `version`)."""
        self.version += 1

    def drop(self, seat: int, step: Step) -> None:
        """The stand-in plays `seat` from `step` on."""
        self.dropped[seat] = step
        self._active.clear()
        self.changed()

    def take_back(self, seat: int, back: int) -> None:
        """`seat`, dropped, plays again from round `back` (REJOIN, protocol.md 11.3)."""
        self.absences.setdefault(seat, []).append((self.dropped.pop(seat), back))
        self._active.clear()
        self.changed()

    def record(self, round_index: int, turn: int) -> TurnRecord:
        record = self.turns.get((round_index, turn))
        if record is None:  # (made only when missing: a pass asks for it on every message of the turn)
            record = self.turns[(round_index, turn)] = TurnRecord()
        return record

    def state_now(self) -> bytes:
        """The hash of the game state now (cached until `forget_state`)."""
        if self._state is None:
            self._state = state_hash(self.game, self.round)
        return self._state

    def forget_state(self) -> None:
        self._state = None

    # ----------------------------------------------------------------- queries

    @property
    def players(self) -> int:
        return len(self.roster)

    def slot(self, kind: str, round_index: int, step: int = 0) -> dict[int, Envelope]:
        """The accepted messages of one kind for one round and turn (or pick), by seat."""
        slot = self.slots.get((kind, round_index, step))
        if slot is None:
            slot = self.slots[(kind, round_index, step)] = {}
        return slot

    def expel(self, seat: int, seq: int, code: str) -> None:
        """From `seq` on, nothing `seat` signs counts: its messages from there are taken out of their slots."""
        self.expelled[seat] = seq
        self.expelled_for[seat] = code
        self.expelled_furthest[seat] = max(
            (Step.of_message(message_round(env.kind, env.body), env.kind, env.body, seat)
             for env in self.signed.get(seat, {}).values() if env.seq <= seq and env.kind not in UNPLACED),
            default=Step(-1, -1))
        peer = self.roster[seat]
        for slot in self.slots.values():
            env = slot.get(seat)
            if env is not None and env.sender == peer and env.seq >= seq:
                del slot[seat]
        self.parked = [env for env in self.parked if not (env.sender == peer and env.seq >= seq)]
        self.drop_targets = {}
        for (kind, round_index, _), slot in self.slots.items():
            if kind == "DROP":
                for env in slot.values():
                    at = Step(round_index, env.body["step"], env.body.get("place", 0))
                    self.drop_targets.setdefault(at, set()).add(env.body["seat"])
        self.changed()

    def void_since_expelled(self, env: Envelope) -> bool:
        """`env` is from a seat that broke a rule, signed at or after the message that did: it does not count."""
        if env.sender not in self.keys or not self.expelled:
            return False
        seq = self.expelled.get(self.roster.index(env.sender))
        return seq is not None and env.seq >= seq

    def active_at(self, round_index: int, step: int, place: int = 0) -> tuple[int, ...]:
        """Seats not dropped at or before the position (round, step, place), in seat order. Kept for the next ask
        until a seat is dropped or back (a tuple: no caller can change what the next one reads)."""
        key = (round_index, step, place)
        active = self._active.get(key)
        if active is None:
            if not self.dropped and not self.absences:  # nobody was ever dropped: everyone (the usual game)
                active = tuple(range(self.players))
            else:
                at = Step(round_index, step, place)
                active = tuple(s for s in range(self.players) if self._present(s, at))
            if self.roster:  # (before START there is no seat to keep)
                self._active[key] = active
        return active

    def _present(self, seat: int, at: Step) -> bool:
        if seat in self.dropped and self.dropped[seat] <= at:
            return False
        return not any(gone <= at < Step(back, 0) for gone, back in self.absences.get(seat, ()))

    def rewound(self, seat: int, step: Step) -> bool:
        """In a rebuild: a message of `seat` for `step` does not count (from a drop on, until it came back)."""
        for s, gone in self.rewinds:
            if s == seat and gone <= step:
                back = [b for g, b in self.absences.get(seat, ()) if g == gone]
                if not back or step < Step(back[0], 0):
                    return True
        return False

    def ask_back(self, seat: int, round_index: int) -> Envelope | None:
        """`seat`'s first REJOIN since it was dropped (for its drop's round or later, up to `round_index`)."""
        gone = self.dropped.get(seat)
        if gone is None:
            return None
        asks = [slot[seat] for r in range(gone.round, round_index + 1)
                if seat in (slot := self.slots.get(("REJOIN", r, 0), {}))]
        return min(asks, key=lambda env: env.seq) if asks else None

    def asked_back(self, seat: int, round_index: int) -> bool:
        """`seat` is dropped and has asked for its seat back, in a REJOIN for its drop's round or later."""
        gone = self.dropped.get(seat)
        return gone is not None and any(seat in self.slots.get(("REJOIN", r, 0), {})
                                        for r in range(gone.round, round_index + 1))

    def lacking(self, seats: Sequence[int], slot: dict[int, Envelope]) -> bool:
        """Some of `seats` has no message in `slot` (whose keys are seats). Every seat asked: counted, not scanned."""
        if len(seats) == self.players:
            return len(slot) < len(seats)
        return any(s not in slot for s in seats)

    def commit_digest(self, r: int, t: int, committers: tuple[int, ...]) -> bytes:
        """The digest of turn t's commit set: the commits of `committers`, every one held here (not `lacking`).

        Kept per turn for the committers it was made for: a commit placed in its slot is never replaced (a second
        one for the slot is a duplicate, protocol.md 9; an expelled seat's is taken out, and the set is then
        lacking until the seat is dropped, which changes the committers), so the same committers mean the same
        commits. Every pass while a turn waits for reveals asks it."""
        record = self.record(r, t)
        if record.commit_set is None or record.commit_set[0] != committers:
            commits = self.slot("PLAY_COMMIT", r, t)
            record.commit_set = (committers, commit_set_digest([commits[s].hash for s in committers]))
        return record.commit_set[1]

    def to_count(self) -> bool:
        """Some vote to count or seat to expel (steps.count_votes has nothing to do in the usual game)."""
        return bool(self.drop_steps or self.expelled)

    def playing(self, seat: int | None, round_index: int, step: int, place: int = 0) -> bool:
        return seat is not None and seat in self.active_at(round_index, step, place)

    def has_places(self, number: int) -> bool:
        """A DROP or KEEP at this step names its place: step 32 (keys, round end), a draft's step 0 (picks), a
        sealed deal's steps 0 and 1 (the seat whose shuffle or unlock it is)."""
        settings = self.game.settings
        return number == ROUND_END_STEP or settings.variant == "draft" and number == SEED_COMMIT_STEP or \
            settings.deal == "sealed" and number in (SEED_COMMIT_STEP, SEED_REVEAL_STEP)

    def held_back(self, step: int, place: int = 0) -> bool:
        """True while our own vote to drop someone at this step is open (we will not use its late messages).

        The vote is void once another active seat went on from the absent seat's message there (`went_on`):
        that seat never votes, so the drop can never complete.
        """
        if not self.votes or self.seat is None:
            return False
        key = Step(self.round, step, place)
        return key in self.votes and quorum.undecided(self, self.seat, key)

    def went_on(self, seat: int, at: Step, target: int) -> bool:
        """`seat` has signed that it used `target`'s message at `at`.

        That is a message for a later position (a sealed deal's shuffles and unlocks are at their seats'
        places: a seat's own shuffle after `target`'s is a later position than `target`'s), or a
        KEEP(at, target): it holds the message and waits on a seat that voted to drop `target` there.
        An expelled seat by its chain up to the message that expelled it only (protocol.md 11.1, "An expelled
        seat"): that message included where it passed section 9's checks (a node may have used it before its
        check of section 11 or 17 found the fault), none after it.
        """
        if seat in self.expelled:
            keep = self.signed.get(seat, {}).get(("KEEP", at.round, vote_slot(at, target)))
            return self.expelled_furthest[seat] > at or keep is not None and keep.seq <= self.expelled[seat]
        return self.furthest.get(seat, Step(-1, -1)) > at or seat in self.slots.get(("KEEP", at.round,
                                                                                     vote_slot(at, target)), {})

    def voters(self, at: Step, target: int) -> set[int]:
        """The seats active at `at` whose DROP there names `target`."""
        active = self.active_at(*at)
        return {v for v in self.slots.get(("DROP", at.round, vote_slot(at, target)), {}) if v in active}

    def vote_void(self, at: Step, target: int) -> bool:
        """A seat active at `at` that did not vote to drop `target` there went on from `target`'s message.

        That seat never votes, so the drop can never complete. (A voter that went on did so because the drop
        completed at it, or because the vote was void already: it voids nothing.) An expelled seat goes on by its
        messages up to the one that expelled it only (`went_on`); one that did not is not needed (`needed`).
        """
        voters = self.voters(at, target)
        return any(self.went_on(s, at, target) for s in self.active_at(*at) if s != target and s not in voters)

    def needed(self, at: Step, target: int) -> set[int]:
        """The seats whose DROP(at, target) the one-seat rule needs: every seat active at `at` but `target`, except
        an expelled seat (protocol.md 11.1, "An expelled seat"): its DROP there counts if it signed one before the
        message that expelled it, and if it went on there the vote is void (`vote_void`), but it is not waited
        for: nothing it signs now counts, and the game may never wait on it (it sent what the game needs there)."""
        return {s for s in self.active_at(*at) if s != target and s not in self.expelled}

    def now(self) -> Step | None:
        """The step the game is at (None outside a round)."""
        number = self.step_now()
        if number is None:
            return None
        if self.phase == Phase.ROUND_END:  # a sealed deal's keys until the round is scored (or void), then ROUND_END
            # A void round waits on nobody's keys: from the pass that voids it on, the game is at (r, 32, 1), also
            # before the pass that scores it (protocol.md 17.9: the same position whatever the order of arrival).
            keys = self.round not in self.scored and self.deal is not None and self.deal.keys_waiting(self) is not None
            return Step(self.round, number, KEYS_PLACE if keys else ROUND_END_PLACE)
        if self.phase == Phase.DEAL and self.deal is not None and (sequential := self.deal.waiting(self)) is not None:
            return Step(self.round, sequential[0], sequential[1])  # a draft's pick, a sealed deal's seat
        return Step(self.round, number)

    def complete_votes(self) -> list[tuple[int, Step]]:
        """(seat, step) for every drop not yet applied: a seat every other seat active at its step voted out there,
        or one of a set of seats gone together that the rest voted out (quorum.dropped_together, 11.1)."""
        found: list[tuple[int, Step]] = []
        for at in self.vote_steps():
            others = set(self.active_at(*at))
            for target in self.vote_targets(at):
                if target not in others or target in self.dropped:
                    continue
                voters = self.voters(at, target)  # (at least one: a drop needs a DROP)
                if voters and voters >= self.needed(at, target) and \
                        (not self.expelled or not self.vote_void(at, target)):
                    found.append((target, at))
            found += [(target, at) for target in sorted(quorum.dropped_together(self, at))
                      if target not in self.dropped and (target, at) not in found]
        return found

    def vote_steps(self) -> list[Step]:
        """Every step with a DROP slot, in order."""
        return sorted(self.drop_steps)

    def vote_targets(self, at: Step) -> list[int]:
        """The seats that some DROP at `at` names."""
        return sorted(self.drop_targets.get(at, ()))

    def winners(self) -> tuple[int, ...]:
        """The seats with the fewest bull heads among those that never voided a round by leaving it (all seats,
        if every seat did): leaving to escape a bad round never pays (protocol.md 17.9)."""
        scores = self.game.scores
        running = [s for s in range(self.players) if s not in self.forfeits] or list(range(self.players))
        low = min(scores[s] for s in running)
        return tuple(s for s in running if scores[s] == low)

    def away(self, seat: int) -> bool:
        """The seat's last three cards were played by the stand-in (AWAY_AFTER turns in a row)."""
        return self.streak.get(seat, 0) >= AWAY_AFTER

    def stand_in_asked(self, seat: int, round_index: int, turn: int, step: int) -> bool:
        """Every seat active at `step` but `seat` and the expelled seats asked the stand-in to play `seat`'s move in
        this turn, at least one (protocol.md 11.2: an expelled seat is never needed for the ask; nothing it signs
        from the message that expelled it on counts, so its ask may never come)."""
        voters = set(self.slot("STANDIN", round_index, standin_slot(turn, seat)))
        others = set(self.active_at(round_index, step)) - {seat} - set(self.expelled)
        return bool(others) and voters >= others

    def who(self, peer: bytes | None) -> str:
        if peer in self.keys:
            seat = self.roster.index(peer)
            return f"seat {seat} ({self.names[seat]})"
        return peer.hex() if peer else "an unknown peer"

    def who_seat(self, seat: int) -> str:
        return self.who(self.roster[seat])

    def step_now(self) -> int | None:
        """The step the game waits on now (None outside a round)."""
        r, t = self.round, self.turn
        if self.phase == Phase.DEAL:
            assert self.deal is not None
            sequential = self.deal.waiting(self)
            if sequential is not None:
                return sequential[0]
            commits = self.slot("SEED_COMMIT", r)
            missing = self.lacking(self.active_at(r, 0), commits) or self.held_back(SEED_COMMIT_STEP)
            return SEED_COMMIT_STEP if missing else SEED_REVEAL_STEP
        if self.phase == Phase.TURN:
            key = (self.version, r, t)
            if self._turn_step is None or self._turn_step[0] != key:
                self._turn_step = (key, self._turn_step_now(r, t))
            return self._turn_step[1]
        return {Phase.ROUND_END: ROUND_END_STEP, Phase.GAME_END: GAME_END_STEP}.get(self.phase)

    def _turn_step_now(self, r: int, t: int) -> int:
        everyone = not self.dropped and not self.absences  # nobody was ever dropped: every seat (the usual game)
        commit, reveal, choice = turn_steps(t)
        for step, kind in ((commit, "PLAY_COMMIT"), (reveal, "PLAY_REVEAL")):
            have = self.slot(kind, r, t)
            missing = len(have) < self.players if everyone else any(s not in have for s in self.active_at(r, step))
            if missing or self.held_back(step) or step == reveal and self._disagreeing(r, t):
                return step  # a message missing (or naming a set we cannot build), or one we hold back
        return choice

    def split_seats(self, r: int, t: int, committers: Sequence[int]) -> list[int]:
        """The seats with two versions of their commit of turn t held here: a committer, or a split seat expelled
        at this turn's commit step (protocol.md 12, split.py)."""
        versions = self.versions.get((r, t))
        if not versions:
            return []  # (nobody signed two: the usual turn, asked by every pass while it waits for reveals)
        commit = turn_steps(t)[0]
        return sorted(s for s, v in versions.items() if len(v) > 1 and (
            s in committers or self.expelled_for.get(s) == "equivocation" and self.dropped.get(s) == Step(r, commit)))

    def disagreeing(self) -> tuple[int, ...]:
        """Active seats whose PLAY_REVEAL of this turn names a commit set this node cannot build from the commits
        it holds (any version of a split commit included): the game counts such a reveal as missing, so that
        its sender is voted out like an absent seat (protocol.md 11, "A reveal naming another commit set")."""
        return self._disagreeing(self.round, self.turn) if self.phase == Phase.TURN else ()

    def _disagreeing(self, r: int, t: int) -> tuple[int, ...]:
        reveals = self.slot("PLAY_REVEAL", r, t)
        if not reveals:
            return ()
        commit, reveal, _ = turn_steps(t)
        commits = self.slot("PLAY_COMMIT", r, t)
        committers = self.active_at(r, commit)
        if self.lacking(committers, commits):
            return ()  # no set to compare with yet
        split = self.split_seats(r, t, committers)
        revealers = self.active_at(r, reveal)
        if not split:
            sets = {self.commit_digest(r, t, committers)}
            return tuple(s for s in revealers if s in reveals and reveals[s].body["commits"] not in sets)
        options = commit_sets(sorted(set(committers) | set(split)), commits, self.versions[(r, t)])
        sets = set(options)
        others = [s for s in revealers if s not in split]
        if others and all(s in reveals and reveals[s].body["commits"] in options for s in others):
            # Decided (protocol.md 12): a split seat whose version every other seat named keeps its seat, and only
            # the sets with that version are the game's; its own reveal naming its other version counts as missing.
            for x in split:
                used = {options[reveals[s].body["commits"]][x] for s in others}
                if x in committers and len(used) == 1:
                    sets = {d for d in sets if options[d][x] in used}
        return tuple(s for s in revealers if s in reveals and reveals[s].body["commits"] not in sets)

    def waiting_for(self) -> tuple[int, ...]:
        """Active seats whose message the game waits for now."""
        if self.phase == Phase.STARTING:
            assert self.start is not None
            acks = self.slot("START_ACK", 0)
            return tuple(s for s in range(self.players) if s not in acks and self.roster[s] != self.start.sender)
        number = self.step_now()
        if number is None:
            return ()
        assert self.deal is not None
        r, t = self.round, self.turn
        step = Step(r, number)
        active = self.active_at(r, number, ROUND_END_PLACE if number == ROUND_END_STEP else 0)  # ROUND_END's
        if self.phase == Phase.DEAL and (sequential := self.deal.waiting(self)) is not None:
            return sequential[2]
        if self.phase == Phase.ROUND_END and r not in self.scored:
            keys = self.deal.keys_waiting(self)
            if keys is not None:  # at (r, 32, 0): the shufflers whose keys are missing; with every one in, nobody
                return keys  # (a seat expelled then is dropped at its ROUND_END's place: protocol.md 11.1)
        if step.part == Part.ROW_CHOICE:
            chooser = self.record(r, t).chooser
            waiting = chooser is not None and chooser in active and chooser not in self.slot("ROW_CHOICE", r, t)
            return (chooser,) if waiting and chooser is not None else ()
        if step.part == Part.REVEAL:
            have = self.slot("PLAY_REVEAL", r, t)
            lying = self._disagreeing(r, t)  # a reveal naming a set we cannot build counts as missing
            return tuple(s for s in active if s not in have or s in lying)
        if step.part is not None:
            have = self.slot("PLAY_COMMIT", r, t)
        else:
            kind = {SEED_COMMIT_STEP: "SEED_COMMIT", SEED_REVEAL_STEP: "SEED_REVEAL", ROUND_END_STEP: "ROUND_END",
                    GAME_END_STEP: "GAME_END"}[number]
            have = self.slot(kind, r if kind != "GAME_END" else 0)
        return tuple(s for s in active if s not in have)
