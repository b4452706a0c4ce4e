"""One peer's view of one game: a sans-I/O state machine (protocol.md, "Session").

Theory of operation. A Session is fed wire bytes (`receive`) and local
intents (`play`, `choose_row`, `pick`); it returns what to send
(`Outgoing`) and what happened (events). It never touches a socket or a
clock, and its randomness comes from the `entropy` callable, so N sessions
can be linked in memory and a transcript can be replayed exactly.

Every message passes three gates before it counts:
1. shape: it decodes under the caps, for this game, from a known sender;
2. signature: the sender's key signed these exact bytes;
3. chain: it is the sender's next sequence number and names the hash of
   the sender's previous message. Messages ahead of their chain wait in a
   buffer; a second, different message for a sequence number already
   taken is a signed proof of equivocation.
A message that passes is *accepted*: appended to the journal (the
transcript), relayed to the other peers, and stored in its slot
(kind, round, turn-or-pick) by seat. Nothing acts on a message directly:
after every acceptance `_advance` moves the game forward as far as the
slots allow (all commits in -> reveal; all reveals in and agreeing ->
resolve; ...). So the order in which peers' messages arrive never
changes the outcome, and early messages (a reveal before the last
commit) simply wait in their slots.

A signed message that breaks a rule is a fatal fault: it is recorded,
the game is aborted, and the fault names the signer. Bytes nobody can be
held to (bad signatures, garbage, wrong game) are dropped with a
non-fatal fault naming the peer they came from.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import Any

from ..engine import Game, PlayerView, Settings
from .commitments import NONCE_SIZE, commitment
from .deal import Deal
from .sealed_deal import SealedDeal
from .envelope import NO_PREVIOUS, Envelope, seal
from .events import Event, Fault, GameAborted, GameOver, Outgoing, PickNeeded, PlayNeeded, RowChoiceNeeded
from .gates import MAX_EARLY, Gates
from .identity import Identity, game_id_for
from .messages import settings_body
from .steps import GameSteps



__all__ = ["MAX_EARLY", "Journal", "LocalError", "Session"]


class LocalError(ValueError):
    """This peer asked for something the rules do not allow now (a card not in hand, not its turn...)."""


class Journal:
    """Where a session writes what it accepts (in order), the faults it sees, and its own secrets."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.faults: list[Fault] = []
        self.secrets: list[dict[str, Any]] = []

    def message(self, wire: bytes) -> None:
        self.messages.append(wire)

    def fault(self, fault: Fault) -> None:
        self.faults.append(fault)

    def secret(self, record: dict[str, Any]) -> None:
        self.secrets.append(record)

    def seal(self) -> None:
        """The game is over or aborted: nothing more will be recorded."""


class Session(Gates, GameSteps):
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
        self.game_id = game_id
        self.entropy = entropy
        self.journal = journal if journal is not None else Journal()
        self.relay = relay
        self.phase = "lobby"  # lobby, starting, deal, turn, round-end, game-end, over, aborted
        self.start: Envelope | None = None
        self.roster: list[bytes] = []  # peer id by seat
        self.names: list[str] = []
        self.bots: list[bool] = []
        self.keys: dict[bytes, bytes] = {}  # peer id -> public key
        self.seat: int | None = None
        self.game: Game | None = None
        self.deal: Deal | None = None
        self.round = 0
        self.turn = 0
        self.result: GameOver | None = None
        self.fault: Fault | None = None  # the fatal fault, once there is one
        self._heads: dict[bytes, tuple[int, bytes]] = {}  # sender -> (next seq, hash of last accepted)
        self._seen: dict[tuple[bytes, int], Envelope] = {}  # (sender, seq) -> accepted message
        self._ahead: dict[bytes, dict[int, Envelope]] = {}
        self._early: dict[bytes | None, list[bytes]] = {}  # via -> held messages, before START
        self._direct: set[tuple[bytes, int]] = set()  # (sender, seq) received from the sender itself
        self._wires: dict[bytes, Envelope] = {}  # exact wire bytes of every signed message held
        self._accepted: list[Envelope] = []  # in the order accepted
        self._slots: dict[tuple, dict[int, Envelope]] = {}
        self._secrets: dict[tuple, Any] = {}
        self._marks: dict[tuple, Any] = {}  # one-shot steps already taken, with what they found
        self._out: list[Outgoing | Event] = []
        self._advancing = False
        self._again = False
        self._turn_state: bytes | None = None
        self._replaying = False
        self._progress: dict[bytes, tuple[int, int]] = {}  # sender -> (round, turn) of its latest message
        self.voided: dict[int, str] = {}  # round -> why it was void (scored as nothing)
        self.dropped: dict[int, tuple[int, int]] = {}  # seat -> (round, step) from which the stand-in plays it
        self._my_votes: dict[tuple[int, int], int] = {}  # (round, step) -> the seat we voted to drop there
        self._furthest: dict[int, tuple[int, int]] = {}  # seat -> furthest (round, step) it sent a message for

    # ----------------------------------------------------------------- queries

    @property
    def players(self) -> int:
        return len(self.roster)

    def slot(self, kind: str, round_index: int, step: int = 0) -> dict[int, Envelope]:
        """The accepted messages of one kind for one round and turn (or pick), by seat."""
        return self._slots.setdefault((kind, round_index, step), {})

    def heads(self) -> list[list]:
        """[[sender, number of its messages accepted], ...]: what to tell a peer on (re)connect."""
        return [[sender, seq] for sender, (seq, _last) in self._heads.items()]

    def missing_for(self, heads: Any) -> list[bytes]:
        """Wire bytes of the messages a peer with these `heads` lacks, in an order it can accept them."""
        have: dict[bytes, int] = {}
        if isinstance(heads, list):
            for item in heads:
                if isinstance(item, list) and len(item) == 2 and isinstance(item[0], bytes) and type(item[1]) is int:
                    have[item[0]] = item[1]
        return [env.wire for env in self._accepted if env.seq >= have.get(env.sender, 0)]

    def view(self) -> PlayerView:
        """What this peer's seat may know now (for a bot or a UI)."""
        if self.seat is None or self.game is None:
            raise LocalError("a spectator has no hand")
        if self.game.round is None and self.game.draft is None:
            raise LocalError("no round in progress")
        return PlayerView(self.game, self.seat)

    # ----------------------------------------------------------------- inputs

    def host(self, salt: bytes, settings: Settings, roster: Sequence[tuple[bytes, str, bool]]) -> list:
        """Start a game as its host: sign START with the settings and the ordered roster (key, name, bot).

        The game id is `game_id_for(our key, salt)`: bound to the host, so no one else can sign a START for it.
        """
        if self.identity is None or self.phase != "lobby":
            raise LocalError("only a peer with an identity, in the lobby, can host")
        if self.identity.public_key not in [key for key, _, _ in roster]:
            raise LocalError("the host must sit at the table")
        if len(roster) != settings.players:
            raise LocalError(f"{settings.players} seats need a roster of {settings.players}, got {len(roster)}")
        game_id = game_id_for(self.identity.public_key, salt)
        if self.game_id is not None and self.game_id != game_id:
            raise LocalError("this salt does not give the game id this session was made for")
        self.game_id = game_id
        body = {
            "salt": salt,
            "settings": settings_body(settings),
            "roster": [{"key": key, "name": name, "bot": bot} for key, name, bot in roster],
        }
        return self._run(lambda: self._send("START", body))

    def receive(self, wire: bytes, via: bytes | None = None) -> list:
        """Feed bytes that arrived from peer `via`; return what to send and what happened."""
        return self._run(lambda: self._ingest(wire, via))

    def play(self, card: int) -> list:
        """This seat commits to `card` for the current turn."""

        def act() -> None:
            self._check_seated("turn")
            if self.seat in self.slot("PLAY_COMMIT", self.round, self.turn):
                raise LocalError(f"already committed a card for turn {self.turn + 1}")
            if card not in self.game.round.hands[self.seat]:
                raise LocalError(f"{card!r} is not in your hand")
            nonce = self.entropy(NONCE_SIZE)
            key = ("play", self.round, self.turn)
            self._secrets[key] = (card, nonce)
            self.journal.secret({"kind": "play", "round": self.round, "turn": self.turn, "card": card, "nonce": nonce})
            value = commitment("play", self.game_id, self.round, self.turn, self.seat,
                               self.deal.committed_value(self, self.seat, card), nonce)
            self._send("PLAY_COMMIT", {"round": self.round, "turn": self.turn, "commit": value,
                                       "state": self._state_now()})

        return self._run(act)

    def choose_row(self, row: int) -> list:
        """This seat, whose card is below every row end, takes row `row` (0..3)."""

        def act() -> None:
            self._check_seated("turn")
            need = self._mark(("chooser", self.round, self.turn))
            if need != self.seat:
                raise LocalError("you have no row to choose now")
            if type(row) is not int or not 0 <= row <= 3:
                raise LocalError(f"row must be 0..3, got {row!r}")
            self._send("ROW_CHOICE", {"round": self.round, "turn": self.turn, "row": row})

        return self._run(act)

    def drop(self, seat: int) -> list:
        """Vote to drop `seat`, whose message the game has waited for too long (the stand-in then plays it)."""

        def act() -> None:
            if self.seat is None or self.seat not in self.active_at(self.round, self.step_now() or 0):
                raise LocalError("only a player still in the game can vote")
            if seat == self.seat or seat not in self.waiting_for() or self.phase == "starting":
                raise LocalError(f"the game is not waiting for seat {seat}")
            step = self.step_now()
            if (self.round, step) in self._my_votes:
                raise LocalError("already voted at this step")
            self._vote(seat, step)
            self._advance()

        return self._run(act)

    def pick(self, card: int) -> list:
        """Draft variant: this seat takes `card` from the open cards."""

        def act() -> None:
            self._check_seated("deal")
            draft = self.game.draft
            if draft is None or draft.to_move != self.seat:
                raise LocalError("it is not your pick")
            if card not in draft.open_cards:
                raise LocalError(f"{card!r} is not an open card")
            self._send("DRAFT_PICK", {"round": self.round, "pick": draft.picks, "card": card})

        return self._run(act)

    def replay(self, wires: Sequence[bytes], secrets: Sequence[dict[str, Any]] = ()) -> list:
        """Rebuild this peer's state after a restart from its own transcript and secrets; return what to do now.

        Nothing is signed, sent or recorded during the replay (our own
        messages are in the transcript); afterwards the session sends what
        it still owes and asks again for any move it still has to make.
        """
        for record in secrets:
            self._restore(record)
        self._replaying = True
        try:
            for wire in wires:
                self._run(lambda wire=wire: self._ingest(wire, None))
        finally:
            self._replaying = False
        return self._run(self._resume)

    def _restore(self, record: dict[str, Any]) -> None:
        kind = record.get("kind")
        if kind == "seed":
            self._secrets[("seed", record["round"])] = (record["contribution"], record["nonce"])
        elif kind == "sealed":
            SealedDeal.restore(self, record)
        elif kind == "play":
            self._secrets[("play", record["round"], record["turn"])] = (record["card"], record["nonce"])

    def _resume(self) -> None:
        self._advance()
        if self.seat is None or self.phase != "turn" and self.phase != "deal":
            return
        if self.phase == "turn" and self.seat not in self.slot("PLAY_COMMIT", self.round, self.turn):
            self._emit(PlayNeeded(self.round, self.turn))
        elif self.phase == "turn" and self._mark(("chooser", self.round, self.turn)) == self.seat:
            if self.seat not in self.slot("ROW_CHOICE", self.round, self.turn):
                cards = self._mark(("revealed", self.round, self.turn))
                self._emit(RowChoiceNeeded(self.round, self.turn, self.seat, min(cards), cards))
        elif self.phase == "deal" and self.game.draft is not None and self.game.draft.to_move == self.seat:
            self._emit(PickNeeded(self.round, self.game.draft.picks))

    # ----------------------------------------------------------------- machinery

    def _run(self, action: Callable[[], None]) -> list:
        self._out = []
        action()
        out, self._out = self._out, []
        return out

    def _check_seated(self, phase: str) -> None:
        if self.seat is None:
            raise LocalError("a spectator does not play")
        if self.seat in self.dropped:
            raise LocalError("you were dropped from this game: a stand-in plays your hand")
        if self.phase != phase:
            raise LocalError(f"not now: the game is in phase {self.phase}")

    def _emit(self, item: Outgoing | Event) -> None:
        self._out.append(item)

    def _once(self, key: tuple, event: Event | None = None, value: Any = True) -> bool:
        """Mark a one-shot step as taken (emitting `event`); False if it was taken before."""
        if key in self._marks:
            return False
        self._marks[key] = value
        if event is not None:
            self._emit(event)
        return True

    def _mark(self, key: tuple) -> Any:
        return self._marks.get(key)

    def _send(self, kind: str, body: dict[str, Any]) -> None:
        """Sign a message of ours, accept it locally, and send it to everyone."""
        if self._replaying:
            return  # what we sent before the restart is in the transcript and is being replayed
        seq, prev = self._heads.get(self.me, (0, NO_PREVIOUS))
        env = seal(self.identity, self.game_id, seq, prev, kind, body)
        self._emit(Outgoing(env.wire))
        if kind == "START":
            self._take_start(env)
        self._accept(env, self.me)

    def _fault(self, peer: bytes | None, code: str, detail: str, evidence: tuple[bytes, ...] = ()) -> None:
        fault = Fault(peer, code, detail, False, evidence)
        if not self._replaying:
            self.journal.fault(fault)
        self._emit(fault)

    def _fatal(self, peer: bytes | None, code: str, detail: str, evidence: tuple[bytes, ...] = ()) -> None:
        if self.phase == "aborted":
            return
        fault = Fault(peer, code, detail, True, evidence)
        self.fault = fault
        self.phase = "aborted"
        if not self._replaying:
            self.journal.fault(fault)
        # Spread the proof so every honest peer reaches the same verdict.
        for wire in evidence:
            self._emit(Outgoing(wire))
        self._emit(fault)
        self._emit(GameAborted(fault))  # the journal is sealed by whoever closes it: a sharper verdict may follow

    def _who(self, peer: bytes | None) -> str:
        if peer in self.keys:
            seat = self.roster.index(peer)
            return f"seat {seat} ({self.names[seat]})"
        return peer.hex() if peer else "an unknown peer"
