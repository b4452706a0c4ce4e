"""One peer's view of one game: a sans-I/O state machine (protocol.md, "Session").

Theory of operation. A Session is fed wire bytes (`receive`) and local
intents (`play`, `choose_row`, `pick`, `drop`); it returns what to send
(`Outgoing`) and what happened (events). It never touches a socket or a
clock, and its randomness comes from the `entropy` callable, so N sessions
can be linked in memory and a transcript can be replayed exactly.

The session owns its parts and is the only one to apply what they ask:
- the inbox (inbox.py) passes every message through three gates — shape,
  signature, chain — holding messages that arrive early or ahead of their
  chain, and proving equivocation;
- a message that passes is *accepted*: written to the journal (the
  transcript), relayed, and put in its slot by seat (slots.py);
- the table (table.py) is the game state: roster, engine game, phase
  (phase.py: an enum with its transitions as data), slots, drops, and
  records of the one-shot steps taken;
- the steps (steps.py) and the deal component (deal.py, sealed_deal.py)
  move the game on from the slots, and yield effects (effects.py) — send,
  fault, drop a seat, keep a secret, an event — that the session applies.
After every acceptance the session advances to a fixed point: it repeats
passes until a pass changes nothing. So the order in which peers'
messages arrive never changes the outcome, and early messages (a reveal
before the last commit) simply wait in their slots.

A signed message that breaks a rule is a fatal fault: it is recorded,
the game is aborted, and the fault names the signer. Bytes nobody can be
held to (bad signatures, garbage, wrong game) are dropped with a
non-fatal fault naming the peer they came from.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from ..engine import Game, PlayerView, Settings
from . import steps
from .above_split import HOLD, hold, lowest, settle, split_seq, verdict
from .commitments import NONCE_SIZE, commitment
from .deal import Deal
from .deals import deal_for
from .effects import DropSeat, Effect, Effects, Emit, Fatal, KeepSecret, Rewind, Send, StandInMove, Suspect
from .envelope import Envelope, open_envelope, seal
from .errors import LocalError
from .events import (
    Event,
    Fault,
    GameAborted,
    GameOver,
    GameStarted,
    Outgoing,
    PickNeeded,
    PlayNeeded,
    RowChoiceNeeded,
    SeatDropped,
)
from .identity import Identity, game_id_for, peer_id
from .inbox import MAX_EARLY, Inbox, Ready, Refused, StartFound
from .journal import Journal
from .messages import settings_body, settings_from_body
from .phase import Phase, Step
from .slots import store
from .split import Held, split_versions
from .standin import stand_in_card, stand_in_pick, stand_in_row
from .table import EXPELS, Table, standin_slot

__all__ = ["MAX_EARLY", "Journal", "LocalError", "Session"]

Output = Outgoing | Event


def slot_of(kind: str, body: Any) -> tuple[Any, ...]:
    """What names the one message a seat may sign of `kind` (section 11's table): its round, turn or pick, step,
    place and the seat it names (a DROP, KEEP or STANDIN)."""
    if not isinstance(body, dict):
        return (kind,)
    return (kind, *(body.get(name) for name in ("round", "turn", "pick", "step", "place", "seat")))


class Session:
    """The protocol state of one peer (a seat, or a spectator when it has no seat)."""

    def __init__(
        self,
        identity: Identity | None,
        *,
        game_id: bytes | None = None,
        entropy: Callable[[int], bytes] = secrets.token_bytes,
        journal: Journal | None = None,
        relay: bool = True,
    ) -> None:
        self.identity = identity
        self.me = identity.peer if identity else None
        self.entropy = entropy
        self.journal = journal if journal is not None else Journal()
        self.relay = relay
        self.table = Table(self.me, entropy, game_id)
        self.inbox = Inbox(game_id, self.table.who)
        self.table.message_of = self.inbox.message
        self._out: list[Output] = []
        self._advancing = False
        self._restored: list[dict[str, Any]] = []  # the deal's secrets records, until START makes the deal
        self._rewinds: set[tuple[int, Step]] = set()  # drops found complete at a step this node had passed
        self._rebuilding = False
        self._signed: set[tuple[Any, ...]] = set()  # the slot of every message of ours accepted (slot_of)
        self._relaying: frozenset[bytes] = frozenset()  # senders whose messages we relay to the seats (_take_start)
        self._proofs: dict[bytes, None] = {}  # the messages of every proof we sent on (_spread), others' only, in order
        # Where a message we sign goes at once, with the messages of this input before it (the relays), its record in
        # the journal: a node sends it there and then, before the input's passes go on (issue 24); unset (in memory,
        # verify), our messages are returned with the input's other outputs, as before.
        self.on_signed: Callable[[list[Outgoing]], None] | None = None

    # ----------------------------------------------------------------- the table, read-only

    phase = property(lambda self: self.table.phase, doc="lobby, starting, deal, turn, round-end, game-end, over...")
    game_id = property(lambda self: self.table.id, doc="the game id, once known")
    start = property(lambda self: self.table.start, doc="the START message, once taken")
    roster = property(lambda self: self.table.roster, doc="peer id by seat")
    names = property(lambda self: self.table.names)
    bots = property(lambda self: self.table.bots)
    keys = property(lambda self: self.table.keys, doc="peer id -> public key")
    seat = property(lambda self: self.table.seat, doc="our seat; None for a spectator")
    game = property(lambda self: self.table.engine, doc="the engine game, once started")
    deal = property(lambda self: self.table.deal, doc="the deal component, once started")
    round = property(lambda self: self.table.round)
    turn = property(lambda self: self.table.turn)
    result = property(lambda self: self.table.result, doc="the GameOver, once every seat agreed")
    fault = property(lambda self: self.table.fault, doc="the fatal fault, once there is one")
    voided = property(lambda self: self.table.voided, doc="round -> why it was void (scored as nothing)")
    dropped = property(lambda self: self.table.dropped, doc="seat -> (round, step) from which the stand-in plays it")
    forfeits = property(lambda self: self.table.forfeits,
                        doc="seat -> the round its drop first voided: it cannot win, and is dealt open from then on")

    @property
    def players(self) -> int:
        return self.table.players

    def slot(self, kind: str, round_index: int, step: int = 0) -> dict[int, Envelope]:
        """The accepted messages of one kind for one round and turn (or pick), by seat."""
        return self.table.slot(kind, round_index, step)

    def active_at(self, round_index: int, step: int) -> tuple[int, ...]:
        """Seats not dropped at or before (round, step)."""
        return self.table.active_at(round_index, step)

    def step_now(self) -> int | None:
        """The step the game waits on now (None outside a round)."""
        return self.table.step_now()

    def waiting_for(self) -> tuple[int, ...]:
        """Active seats whose message the game waits for now."""
        return self.table.waiting_for()

    def heads(self) -> list[list[Any]]:
        """[[sender, number of its messages accepted], ...]: what to tell a peer on (re)connect."""
        return self.inbox.heads()

    def missing_for(self, heads: Any) -> list[bytes]:
        """Wire bytes of the messages a peer with these `heads` lacks, in an order it can accept them; then the
        messages of every proof we sent on (protocol.md 14 `heads`): a peer that was down or unlinked when a proof
        passed gets it on its next link (a carrier sends a message once per link: Connection.send_message)."""
        have: dict[bytes, int] = {}
        if isinstance(heads, list):
            for item in heads:
                if isinstance(item, list) and len(item) == 2 and isinstance(item[0], bytes) and type(item[1]) is int:
                    have[item[0]] = item[1]
        lacked = self.inbox.missing(have)
        if not self._proofs:
            return lacked
        listed = set(lacked)
        return lacked + [wire for wire in self._proofs if wire not in listed]

    def view(self) -> PlayerView:
        """What this peer's seat may know now (for a bot or a UI)."""
        game = self.table.engine
        if self.seat is None or game is None:
            raise LocalError("a spectator has no hand")
        if game.round is None and game.draft is None:
            raise LocalError("no round in progress")
        return PlayerView(game, self.seat)

    # ----------------------------------------------------------------- inputs

    def host(self, salt: bytes, settings: Settings, roster: Sequence[tuple[bytes, str, bool]],
             previous: bytes | None = None, carry: dict[str, Any] | None = None) -> list[Output]:
        """Start a game as its host: sign START with the settings and the ordered roster (key, name, bot);
        `previous`: the id of the game this one is a rematch of (START's optional `previous`); `carry`: what it
        carries from the game an equivocation ended (START's optional `carry`, protocol.md 9).

        The game id is `game_id_for(our key, salt)`: bound to the host, so no one else can sign a START for it.
        """
        if self.identity is None or self.phase != Phase.LOBBY:
            raise LocalError("only a peer with an identity, in the lobby, can host")
        if self.identity.public_key not in [key for key, _, _ in roster]:
            raise LocalError("the host must sit at the table")
        if len(roster) != settings.players:
            raise LocalError(f"{settings.players} seats need a roster of {settings.players}, got {len(roster)}")
        game_id = game_id_for(self.identity.public_key, salt)
        if self.game_id is not None and self.game_id != game_id:
            raise LocalError("this salt does not give the game id this session was made for")
        self.table.id = self.inbox.game_id = game_id
        body = {
            "salt": salt,
            "settings": settings_body(settings),
            "roster": [{"key": key, "name": name, "bot": bot} for key, name, bot in roster],
        }
        if previous is not None:
            body["previous"] = previous
        if carry is not None:
            body["carry"] = carry
        where = self.table.own_where() if self.table.own_where is not None else None
        if where is not None:  # where we listen, in our own signed word (protocol.md 14; none without a network)
            body["where"] = where
        return self._run(lambda: self.send("START", body))

    def receive(self, wire: bytes, via: bytes | None = None) -> list[Output]:
        """Feed bytes that arrived from peer `via`; return what to send and what happened."""
        # (what _run does, written out: no closure made and called for each message)
        self._out = []
        self.journal.hold()  # what one input leads to is written in one piece, before anything is sent
        try:
            self._ingest(wire, via)
        finally:
            self.journal.flush()
        out, self._out = self._out, []
        return out

    def play(self, card: int) -> list[Output]:
        """This seat commits to `card` for the current turn."""
        return self._ask(lambda: self._commit(card, auto=False))

    def choose_row(self, row: int) -> list[Output]:
        """This seat, whose card is below every row end, takes row `row` (0..3)."""
        return self._ask(lambda: self._choose(row, auto=False))

    def play_stand_in(self) -> list[Output]:
        """Make the move this seat owes now by the stand-in's rule, marked auto (its clock ran out, or it is away).

        The card is the lowest of the hand, the row the one with the fewest bull heads, the pick the lowest open
        card: what every node's stand-in would play. LocalError if this seat owes no move now.
        """
        return self._ask(self._stand_in_move)

    def ask_stand_in(self, seat: int) -> list[Output]:
        """Ask the stand-in to make `seat`'s move of this turn (it has stalled); once every other seat asked (an
        expelled seat is not needed: protocol.md 11.2), the seat's own node makes it, marked auto. The seat stays
        seated."""

        def act() -> None:
            table = self.table
            me, _game, _deal = self._seated(Phase.TURN)
            if seat == me or seat not in self.waiting_for():
                raise LocalError(f"the game is not waiting for seat {seat}")
            if me in table.slot("STANDIN", table.round, standin_slot(table.turn, seat)):
                raise LocalError(f"already asked the stand-in for seat {seat} in this turn")
            self.send("STANDIN", {"round": table.round, "turn": table.turn, "seat": seat})

        return self._ask(act)

    def away(self, seat: int) -> bool:
        """The seat's last three cards were played by the stand-in."""
        return self.table.away(seat)

    def _commit(self, card: int, *, auto: bool) -> None:
        seat, game, deal = self._seated(Phase.TURN)
        table = self.table
        if seat in self.slot("PLAY_COMMIT", table.round, table.turn):
            raise LocalError(f"already committed a card for turn {table.turn + 1}")
        assert game.round is not None
        committed = deal.committed_value(table, seat, card) if card in game.round.hands[seat] else None
        if committed is None:  # every guard before the nonce: a refused commit draws nothing (protocol.md 11)
            raise LocalError(f"{card!r} is not in your hand")
        nonce = self.entropy(NONCE_SIZE)
        table.plays[(table.round, table.turn)] = (card, nonce)
        record = {"kind": "play", "round": table.round, "turn": table.turn, "card": card, "nonce": nonce}
        if auto:
            table.auto.add((table.round, table.turn))
            record["auto"] = True
        self.journal.secret(record)
        value = commitment("play", table.game_id, table.round, table.turn, seat, committed, nonce)
        self.send("PLAY_COMMIT", {"round": table.round, "turn": table.turn, "commit": value,
                                  "state": table.state_now()})

    def _choose(self, row: int, *, auto: bool) -> None:
        seat, _game, _deal = self._seated(Phase.TURN)
        if self.table.record(self.round, self.turn).chooser != seat:
            raise LocalError("you have no row to choose now")
        if seat in self.slot("ROW_CHOICE", self.round, self.turn):
            raise LocalError("you chose a row already")
        if type(row) is not int or not 0 <= row <= 3:
            raise LocalError(f"row must be 0..3, got {row!r}")
        body: dict[str, Any] = {"round": self.round, "turn": self.turn, "row": row}
        if auto:
            body["auto"] = True
        self.send("ROW_CHOICE", body)

    def _stand_in_move(self) -> None:
        table = self.table
        seat, game, _deal = self._seated(table.phase if table.phase in (Phase.TURN, Phase.DEAL) else Phase.TURN)
        r, t = table.round, table.turn
        if table.phase == Phase.DEAL:
            draft = game.draft
            if draft is None or draft.to_move != seat:
                raise LocalError("you owe no move now")
            self.send("DRAFT_PICK", {"round": r, "pick": draft.picks, "card": stand_in_pick(draft.open_cards)})
        elif seat not in self.slot("PLAY_COMMIT", r, t):
            assert game.round is not None
            self._commit(stand_in_card(game.round.hands[seat]), auto=True)
        elif table.record(r, t).chooser == seat and seat not in self.slot("ROW_CHOICE", r, t):
            assert game.round is not None
            self._choose(stand_in_row(game.round.rows), auto=True)
        else:
            raise LocalError("you owe no move now")

    def drop(self, seat: int) -> list[Output]:
        """Vote to drop `seat`, whose message the game has waited for too long (the stand-in then plays it); or,
        while the game waits on someone, a seat that is gone too (protocol.md 11.1: several seats gone
        together), which would otherwise have to vote."""

        def act() -> None:
            at = self.table.now()  # the position, its place included: a seat dropped at a draft's pick p, or at a
            # sealed deal's shuffle or unlock of seat p, is no longer in the game there (protocol.md 11.1)
            active = self.table.active_at(*at) if at is not None else self.active_at(self.round, 0)
            if self.seat is None or self.seat not in active:
                raise LocalError("only a player still in the game can vote")
            waiting = self.waiting_for()
            if seat == self.seat or self.phase == Phase.STARTING or at is None or not waiting or \
                    seat not in waiting and seat not in self.table.active_at(*at):
                raise LocalError(f"the game is not waiting for seat {seat}")
            if seat in self.table.votes.get(at, ()):
                raise LocalError(f"already voted to drop seat {seat} at this step")
            if self.table.went_on(self.seat, at, seat):
                raise LocalError(f"we went on from seat {seat}'s message at this step (a KEEP): no vote now")
            self._drive(steps.vote(self.table, seat, at))
            self._advance()

        return self._ask(act)

    def rejoin(self) -> list[Output]:
        """Ask for our seat back (the others dropped it): we play again from the round after a round end at
        which more than half of the other seats had our ask (protocol.md 11.3); our score so far stays ours."""

        def act() -> None:
            if self.seat is None or self.seat not in self.table.dropped:
                raise LocalError("your seat is not dropped")
            if self.phase in (Phase.GAME_END, Phase.OVER):  # no round is left to play again in (protocol.md 11.3)
                raise LocalError("the game is over: no round is left to take your seat back in")
            if self.table.asked_back(self.seat, self.round):
                raise LocalError("you asked for your seat back already")
            self.send("REJOIN", {"round": self.round})
            self._advance()

        return self._ask(act)

    def pick(self, card: int) -> list[Output]:
        """Draft variant: this seat takes `card` from the open cards."""

        def act() -> None:
            _seat, game, _deal = self._seated(Phase.DEAL)
            draft = game.draft
            if draft is None or draft.to_move != self.seat:
                raise LocalError("it is not your pick")
            if card not in draft.open_cards:
                raise LocalError(f"{card!r} is not an open card")
            self.send("DRAFT_PICK", {"round": self.round, "pick": draft.picks, "card": card})

        return self._ask(act)

    def replay(self, wires: Sequence[bytes], secrets: Sequence[dict[str, Any]] = (),
               seen: Callable[[Event], None] | None = None) -> list[Output]:
        """Rebuild this peer's state after a restart from its own transcript and secrets; return what to do now.

        Nothing is signed, sent or recorded during the replay (our own
        messages are in the transcript); afterwards the session sends what
        it still owes and asks again for any move it still has to make.
        `seen(event)`: each event of the replay, as it happens (a screen that shows the game so far).
        """
        for record in secrets:
            if record.get("kind") == "play":
                self.table.plays[(record["round"], record["turn"])] = (record["card"], record["nonce"])
                if record.get("auto"):
                    self.table.auto.add((record["round"], record["turn"]))
            elif self.table.deal is not None:
                self.table.deal.restore(record)
            else:
                self._restored.append(record)
        self.table.replaying = True
        try:
            for wire in wires:
                replayed = self._run(partial(self._ingest, wire, None))
                if seen is not None:
                    for item in replayed:
                        if isinstance(item, Event):
                            seen(item)
        finally:
            self.table.replaying = False
        return self._run(self._resume)

    def send(self, kind: str, body: dict[str, Any]) -> None:
        """Sign a message of ours, accept it here, and send it to everyone (how every Send effect is applied)."""
        if self.table.replaying:
            return  # what we sent before the restart is in the transcript and is being replayed
        if slot_of(kind, body) in self._signed:
            # We signed this slot's message already: a rebuild may reach the step again while ours waits for our
            # own vote to be decided (parked), and a second one would be a `duplicate` proven against us
            # (protocol.md 11.1: a node signs at most one message per slot).
            return
        assert self.identity is not None and self.game_id is not None
        seq, prev = self.inbox.head(self.me)
        env = seal(self.identity, self.game_id, seq, prev, kind, body)
        self._emit(Outgoing(env.wire))
        if kind == "START":
            self._take_start(env)
        self._accept(env, self.me)
        if self.on_signed is not None:
            self._send_now()

    def _send_now(self) -> None:
        """Hand this input's messages so far (ours just signed and accepted, its record in the journal, and the relays
        before it) to on_signed, in order; its events stay for the input's outputs. What the input's passes do after
        it (taking our own message into the deal, the next pass, another node's bookkeeping) waits, not the others."""
        out = self._out
        messages = [item for item in out if type(item) is Outgoing]
        if messages:
            self._out = [item for item in out if type(item) is not Outgoing]
            assert self.on_signed is not None
            self.on_signed(messages)

    # ----------------------------------------------------------------- after a restart

    def _resume(self) -> None:
        self._advance()
        self._ask_owed()

    def _ask_owed(self, before: Table | None = None) -> None:
        """Ask our driver again for the move we owe (after a restart or a rebuild, whose asks were not shown).

        `before`: the table a rebuild replaced; what it had asked already is not asked again (the driver has
        it, and may have answered in the outputs of this very call: a second ask made a bot play twice)."""
        table = self.table
        if self.seat is None or self.seat in table.dropped or table.phase not in (Phase.TURN, Phase.DEAL):
            return
        r, t = table.round, table.turn
        record = table.record(r, t)
        shown = before.turns.get((r, t)) if before is not None else None
        if table.phase == Phase.TURN and self.seat not in self.slot("PLAY_COMMIT", r, t):
            if shown is None or not shown.asked:
                self._emit(PlayNeeded(r, t))
        elif table.phase == Phase.TURN and record.chooser == self.seat:
            if self.seat not in self.slot("ROW_CHOICE", r, t) and record.cards is not None and \
                    (shown is None or shown.chooser != self.seat):
                cards = record.cards
                self._emit(RowChoiceNeeded(r, t, self.seat, min(cards), cards))
        elif table.phase == Phase.DEAL and (draft := self.game.draft) is not None and draft.to_move == self.seat:
            old = before.engine.draft if before is not None and before.engine is not None else None
            if before is None or before.phase != Phase.DEAL or before.round != r or old is None or \
                    old.picks != draft.picks:
                self._emit(PickNeeded(r, draft.picks))

    # ----------------------------------------------------------------- accepting

    def _ingest(self, wire: bytes, via: bytes | None) -> None:
        for found in self.inbox.ingest(wire, via):
            if self.table.phase == Phase.ABORTED:  # (the table's, not the property's: asked for each message)
                return
            if isinstance(found, Ready):  # (the most frequent first)
                self._accept(found.env, found.via)
            elif isinstance(found, Refused):
                if found.fatal:
                    self._proven(found)
                else:
                    self._fault(found.peer, found.code, found.detail, found.evidence)
            elif isinstance(found, StartFound):
                self._take_start(found.env)
                self._accept(found.env, found.via)

    def _accept(self, env: Envelope, via: bytes | None) -> None:
        if env.sender != self.me and self.inbox.over_chain(env, via):
            return  # past its sender's bound: as a message that never came (protocol.md 8, "A chain's bound")
        broken = self.inbox.broken_chain(env)
        if broken is not None:
            self._proven(broken)
            return
        if not self.table.replaying:
            self.journal.message(env.wire)
        self.inbox.take(env)
        if env.sender == self.me:
            self._signed.add(slot_of(env.kind, env.body))
        if self.relay and env.sender != self.me:
            # One seat relays each sender's messages to the other seats: the next seat after the sender.
            # A message shown differently to different peers thus reaches everyone in both versions.
            # Every peer relays to spectators (who may be linked to it alone).
            skip = (env.sender,) if via is None else (env.sender, via)
            # (Outgoing(env.wire, skip=skip, watchers_only=...), made without its __new__'s Python call)
            self._emit(tuple.__new__(Outgoing, (env.wire, None, skip, env.sender not in self._relaying)))
        if not self.table.void_since_expelled(env):
            self._drive(store(self.table, env))
        if self._rewinds or not steps.turn_still_short(self.table, env):
            self._advance()  # (a commit or reveal that leaves its turn short changes nothing a pass acts on)

    def _take_start(self, env: Envelope) -> None:
        table = self.table
        body = env.body
        table.start = env
        table.id = env.game_id
        roster = body["roster"]
        table.roster = [peer_id(s["key"]) for s in roster]
        table.names = [s["name"] for s in roster]
        table.bots = [s["bot"] for s in roster]
        table.keys = {peer_id(s["key"]): s["key"] for s in roster}
        table.seat = table.roster.index(self.me) if self.me in table.keys else None
        players = len(table.roster)
        # the seats whose messages this node relays to the other seats: the seat before ours (see _accept)
        self._relaying = frozenset(table.roster[s - 1] for s in range(players) if table.roster[s] == self.me)
        carry = body.get("carry")  # a game that continues the evening of one an equivocation ended (protocol.md 9)
        table.engine = Game(settings_from_body(body["settings"], len(roster)),
                            carry["rounds"] if carry is not None else 0, carry["scores"] if carry is not None else None)
        table.deal = deal_for(table.engine.settings)
        for record in self._restored:
            table.deal.restore(record)
        self._restored = []
        self.inbox.start_with(env.game_id, table.keys)
        table.move(Phase.STARTING)
        self._emit(GameStarted(tuple(table.names), table.seat))

    # ----------------------------------------------------------------- moving on

    def _advance(self) -> None:
        """Take passes of the steps until the table stops changing (a fixed point)."""
        if self._advancing:
            return  # the pass under way goes on, and the loop below sees the change
        self._advancing = True
        try:
            before = None
            while self.table.phase not in (Phase.ABORTED, Phase.OVER):  # (a rebuild makes a new table)
                if before is None:
                    before = self._fingerprint()
                self._drive(steps.advance(self.table))
                if self._rewinds and not self._rebuilding:
                    self._rebuild()
                    before = None
                    continue
                after = self._fingerprint()
                if after == before:
                    break
                before = after  # nothing changes between two passes: the next pass starts from this
            if self.table.held_proofs and self.table.phase != Phase.ABORTED:
                self._drive(settle(self.table))  # a held proof whose turn went by without its reveals agreeing
        finally:
            self._advancing = False

    def _rebuild(self) -> None:
        """Rebuild the table from every accepted message, with the seats of complete past votes dropped there.

        This node went past a step at which the others dropped a seat (it is that seat, or a spectator or
        verify, which never vote): it used that seat's messages there, and they did not. Replayed with the
        seat's messages from that step on left out, the game stops at the step until the votes are in, and
        the seat is dropped exactly where everyone else dropped it (protocol.md 11.1).
        """
        old = self.table
        drops = old.rewinds | self._rewinds
        self._rewinds = set()
        self.table = Table(self.me, self.entropy, old.id)
        self.table.rewinds = drops
        # Not the expelled seats: the rebuild finds each expulsion again at the message that proves it (a seat's
        # messages before that message count, its DROPs among them; protocol.md 11.1, 12).
        self.table.versions = {at: {seat: dict(v) for seat, v in seats.items()} for at, seats in old.versions.items()}
        self.table.held_proofs = dict(old.held_proofs)
        self.table.message_of = self.inbox.message
        self.table.plays = dict(old.plays)
        self.table.auto = set(old.auto)
        self._restored = old.deal.secret_records() if old.deal is not None else []
        out, self._out = self._out, []
        self._rebuilding, self._advancing = True, False
        self.table.replaying = True
        try:
            for env in list(self.inbox.accepted):
                if self.table.start is None:
                    self._take_start(env)  # the first message accepted is always the START
                if not self.table.void_since_expelled(env):
                    self._drive(store(self.table, env))
                self._advance()
        finally:
            self.table.replaying = old.replaying
            self._rebuilding, self._advancing = False, True
            self._out = out
        for seat, step in sorted(drops):
            if old.dropped.get(seat) != step and self.table.dropped.get(seat) == step:
                self._emit(SeatDropped(seat, step.round, step.number))
        self._ask_owed(old)

    def _fingerprint(self) -> tuple[Any, ...]:
        """What a pass can change that another pass may act on (the table's version counts its slots, drops,
        votes and furthest steps). In a turn the step is not asked: it is the one Table.step_now keeps for the
        (version, round, turn) already here."""
        table = self.table
        return (table.phase, table.round, table.turn, table.version, len(self.inbox.accepted), len(self._out),
                len(table.parked),
                table.now() if table.phase not in (Phase.LOBBY, Phase.STARTING, Phase.TURN) else None)

    def _drive(self, effects: Effects[Any]) -> None:
        """Apply each effect a part yields, resuming it after each. What a part returns is not asked for: a `for`
        takes its end without the StopIteration that next() raised and a handler caught (half of what driving a
        pass that yields nothing cost)."""
        apply = self._apply
        for effect in effects:
            apply(effect)

    def _apply(self, effect: Effect) -> None:
        table = self.table
        if isinstance(effect, Emit):  # (the most frequent first: a committed card, a turn resolved)
            if isinstance(effect.event, GameOver):
                self.journal.seal()
            self._emit(effect.event)
        elif isinstance(effect, Send):
            self.send(effect.kind, effect.body)
        elif isinstance(effect, Fatal):
            if self._refuses_ack(effect.seat, effect.code, effect.evidence):
                self._refuse(effect.seat, effect.code, effect.detail, effect.evidence)
            elif effect.code not in EXPELS or effect.final or self._proves_start(effect):
                self._fatal(table.roster[effect.seat], effect.code, effect.detail, effect.evidence)
            else:
                self._expel(effect)
        elif isinstance(effect, Suspect):
            self._fault(table.roster[effect.seat], effect.code, effect.detail, effect.evidence)
        elif isinstance(effect, StandInMove):
            if not self.table.replaying:
                self._stand_in_move()
        elif isinstance(effect, Rewind):
            self._rewinds.add((effect.seat, effect.step))
        elif isinstance(effect, DropSeat):
            table.drop(effect.seat, effect.step)
            self._emit(SeatDropped(effect.seat, effect.step.round, effect.step.number))
        elif isinstance(effect, KeepSecret):
            self.journal.secret(effect.record)

    # ----------------------------------------------------------------- machinery

    def _run(self, action: Callable[[], None]) -> list[Output]:
        self._out = []
        self.journal.hold()  # what one input leads to is written in one piece, before anything is sent
        try:
            action()
        finally:
            self.journal.flush()
        out, self._out = self._out, []
        return out

    def _ask(self, action: Callable[[], None]) -> list[Output]:
        """A person's ask (a move, a vote, its seat back), run as any input; refused once the game is aborted, whatever
        it asks: an aborted session signs nothing more (protocol.md 11)."""
        if self.phase == Phase.ABORTED:
            raise LocalError("the game was aborted")
        return self._run(action)

    def _seated(self, phase: Phase) -> tuple[int, Game, Deal]:
        """(our seat, the game, the deal) if we may act in `phase` now; LocalError otherwise."""
        table = self.table
        if table.seat is None:
            raise LocalError("a spectator does not play")
        if table.seat in table.dropped:
            raise LocalError("you were dropped from this game: a stand-in plays your hand")
        if table.phase != phase:
            raise LocalError(f"not now: the game is in phase {table.phase}")
        assert table.deal is not None
        return table.seat, table.game, table.deal

    def _emit(self, item: Output) -> None:
        self._out.append(item)

    def _fault(self, peer: bytes | None, code: str, detail: str, evidence: tuple[bytes, ...] = ()) -> None:
        fault = Fault(peer, code, detail, False, evidence)
        if not self.table.replaying:
            self.journal.fault(fault)
        self._emit(fault)

    def _proven(self, proof: Refused) -> None:
        """A signed proof found at the gates: fatal, unless it shows a split commit (protocol.md 12, split.py).

        A split commit's versions are kept for the turn's reveals to decide on; a proof that shows a version
        not held yet is recorded as a non-fatal fault and sent on to every peer, so every node comes to hold
        every version (and a transcript holds every version a reveal may name). More versions of one commit
        than the table has seats is fatal: a seat needs no more to show each peer its own, and the reveals'
        commit sets, the records and the relays stay bounded (protocol.md 12)."""
        table = self.table
        seat = table.roster.index(proof.peer) if proof.peer in table.keys else None
        if seat is not None and seat in table.refused:
            return  # nothing the seat signed from its refused START_ACK on counts (a proof against it included)
        if seat is not None and proof.code in ("equivocation", "chain-broken") and table.phase == Phase.STARTING \
                and self._refuses_ack(seat, proof.code, proof.evidence):
            self._refuse(seat, proof.code, proof.detail, proof.evidence)
            return
        low = lowest(proof.peer, proof.evidence) if seat is not None and proof.peer is not None \
            and proof.code == "equivocation" and table.phase not in (Phase.LOBBY, Phase.ABORTED) else None
        if low is not None and seat is not None:  # above a split commit decided here: nothing there counts
            split = split_seq(table, seat)
            if split is not None and low > split:
                return
        versions = split_versions(proof.evidence) if table.phase not in (
            Phase.LOBBY, Phase.ABORTED) and proof.code == "equivocation" else None
        if versions is None or proof.peer not in table.keys:
            if low is not None and seat is not None:  # judged by where it lies in the seat's chain (above_split.py)
                found, waiting = verdict(table, Held(seat, low, None, proof.code, proof.detail, proof.evidence))
                if found == HOLD:
                    hold(table, waiting)
                    table.changed()
                    self._advance()  # the turn may be decided already, but for the signer's own reveal (above_split)
                    return
            self._fatal(proof.peer, proof.code, proof.detail, proof.evidence)
            return
        seat = table.roster.index(proof.peer)
        held = table.versions.get((versions[0].body["round"], versions[0].body["turn"]), {}).get(seat, {})
        new = [env for env in versions if env.hash not in held]
        if len(held) + len(new) > table.players:
            self._fatal(proof.peer, proof.code, f"more than {table.players} versions of one commit for turn "
                        f"{versions[0].body['turn'] + 1} (protocol.md 12)", proof.evidence)
            return
        if not new:
            return
        for env in new:
            table.versions.setdefault((env.body["round"], env.body["turn"]), {}).setdefault(seat, {})[env.hash] = env
        table.changed()
        self._fault(proof.peer, proof.code, f"{proof.detail}; the turn's reveals decide (protocol.md 12)",
                    proof.evidence)
        self._spread(proof.evidence)
        self._advance()

    def _proves_start(self, effect: Fatal) -> bool:
        """The fault is proven by the START or a START_ACK of its signer: fatal, whatever this node's phase (protocol.md
        12: nobody but the host can start the game again). Any other proof expels, also at a node that still lacks a
        START_ACK: every node finds it alike, whenever it comes (another seat's first START_ACK: _refuses_ack)."""
        table = self.table
        peer = table.roster[effect.seat] if effect.seat < len(table.roster) else None
        host = table.start.sender if table.start is not None else None
        return any(env.sender == peer and (env.kind == "START" or env.kind == "START_ACK" and peer == host)
                   for env in map(open_envelope, effect.evidence))

    def _refuses_ack(self, seat: int, code: str, evidence: tuple[bytes, ...]) -> bool:
        """The proof refuses the seat's acknowledgement (protocol.md 12, "A refused START_ACK"): it shows a START_ACK of
        a seat other than the host, and this node has taken no START_ACK of that seat before (an equivocation: the
        version taken, if any, is one of the proof's). A START_ACK after the seat's first is a rule break: it expels."""
        table = self.table
        if table.start is None or seat >= len(table.roster) or table.roster[seat] == table.start.sender \
                or seat in table.refused:
            return False
        peer = table.roster[seat]
        acks = [env for env in map(open_envelope, evidence) if env.sender == peer and env.kind == "START_ACK"]
        if not acks:
            return False
        taken = table.signed.get(seat, {}).get(("START_ACK", 0, 0))
        return taken is None or code == "equivocation" and taken.wire in evidence

    def _refuse(self, seat: int, code: str, detail: str, evidence: tuple[bytes, ...]) -> None:
        """A seat's first START_ACK is proven wrong: it never acknowledges the START here (protocol.md 12, "A refused
        START_ACK"). Not fatal: the fault is recorded with its evidence, which is sent on to everyone; nothing the seat
        signs from that message on counts; the game stays starting, and its host starts a new one without the seat
        (protocol.md 14, "A new start")."""
        table = self.table
        peer = table.roster[seat]
        seqs = [env.seq for env in map(open_envelope, evidence) if env.sender == peer]
        table.refused[seat] = code
        table.expel(seat, min(seqs), code)
        table.changed()
        self._fault(peer, code, f"{detail}; its START_ACK is refused: the game cannot start, its host may start it "
                    "again without it (protocol.md 12)", evidence)
        self._spread(evidence)

    def _expel(self, effect: Fatal) -> None:
        """A proven rule break by a seat costs that seat its seat, not the others their game (protocol.md 12).

        The proof is its own signed message, checked alike by every node: from that message on nothing the
        seat signs counts (its later messages already in slots are taken out), and it is dropped, with no
        vote, at the first step the game then waits on it — the same step on every node, spectators and
        verify included. The fault is recorded (not fatal) with its evidence, which is sent on to everyone.
        """
        table = self.table
        peer = table.roster[effect.seat]
        seqs = [env.seq for env in map(open_envelope, effect.evidence) if env.sender == peer]
        # From the highest seq of its messages in the evidence, whatever their order; a second proof counts only if
        # it starts before the first (a check of section 11 or 17 on a message that waited): protocol.md 12.
        if not seqs or max(seqs) >= table.expelled.get(effect.seat, max(seqs) + 1):
            return
        table.expel(effect.seat, max(seqs), effect.code)
        self._fault(peer, effect.code, f"{effect.detail}; it loses its seat (the stand-in plays it from the "
                    "next step it owes)", effect.evidence)
        self._spread(effect.evidence)

    def _spread(self, evidence: tuple[bytes, ...]) -> None:
        """Send a proof on to every peer (protocol.md 12), and keep its messages for every later link's heads answer
        (missing_for, protocol.md 14), but those we signed ourselves (a copy of our own message sent again is a
        `replay` where it came from us before). Kept while replaying our transcript too: what we held, we hold."""
        for wire in evidence:
            if wire not in self._proofs and open_envelope(wire).sender != self.me:
                self._proofs[wire] = None
        if not self.table.replaying:
            for wire in evidence:
                self._emit(Outgoing(wire))

    def _fatal(self, peer: bytes | None, code: str, detail: str, evidence: tuple[bytes, ...] = ()) -> None:
        table = self.table
        if table.phase == Phase.ABORTED:
            return
        fault = Fault(peer, code, detail, True, evidence)
        table.fault = fault
        table.move(Phase.ABORTED)
        self.inbox.close()
        if not table.replaying:
            self.journal.fault(fault)
        self._spread(evidence)  # so every honest peer reaches the same verdict
        self._emit(fault)
        self._emit(GameAborted(fault))  # the journal is sealed by whoever closes it: a sharper verdict may follow
