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

from ..engine import HAND_SIZE, Game, PlayerView, Settings
from .codec import DecodeError
from .commitments import NONCE_SIZE, card_value, commit_set_digest, commitment, state_hash
from .deal import DraftDeal, OpenDeal
from .steps import GAME_END_STEP, GameSteps, message_step
from .envelope import NO_PREVIOUS, Envelope, open_envelope, seal
from .events import (
    Committed,
    Event,
    Fault,
    GameAborted,
    GameOver,
    GameStarted,
    Outgoing,
    PickNeeded,
    PlayNeeded,
    Revealed,
    RoundEnded,
    RoundStarted,
    RowChoiceNeeded,
    TurnResolved,
)
from .identity import Identity, game_id_for, peer_id
from .messages import FIELDS, BodyError, check_body, settings_body, settings_from_body

MAX_EARLY = 256  # messages held per delivering peer before START is known (signatures cannot be checked yet)
MAX_EARLY_PEERS = 64
MAX_AHEAD = 512  # messages held per sender ahead of its chain


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


class Session(GameSteps):
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
        self.deal: OpenDeal | DraftDeal | None = None
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
            value = commitment("play", self.game_id, self.round, self.turn, self.seat, card_value(card), nonce)
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

    # ----------------------------------------------------------------- the three gates

    def _ingest(self, wire: bytes, via: bytes | None) -> None:
        if self.phase == "aborted":
            return
        if not isinstance(wire, bytes):
            if not isinstance(wire, (bytearray, memoryview)):
                self._fault(via, "malformed", f"{type(wire).__name__} from {self._who(via)} is not bytes")
                return
            wire = bytes(wire)
        copy = self._wires.get(wire)
        if copy is not None:  # exactly a message we hold already: nothing to decode again
            self._duplicate(copy, via)
            return
        try:
            env = open_envelope(wire)
        except DecodeError as exc:
            self._fault(via, "malformed", f"bytes from {self._who(via)}: {exc}")
            return
        if self.game_id is not None and env.game_id != self.game_id:
            self._fault(via, "wrong-game", f"message from {self._who(via)} is for game {env.game_id.hex()}")
            return
        if self.start is None:
            if env.kind == "START" and env.seq == 0 and self._start_problem(env):
                self._fault(via, "bad-signature" if "signature" in self._start_problem(env) else "malformed",
                            f"START delivered by {self._who(via)}: {self._start_problem(env)}")
                return
            if env.kind == "START" and env.seq == 0:
                self._take_start(env)
                self._accept(env, via)
                self._drain(env.sender)
                early, self._early = self._early, {}
                for held_via, held in early.items():
                    for wire in held:
                        self._ingest(wire, held_via)
            else:
                # A quota per delivering peer: a flood from one peer cannot crowd out what others deliver.
                held = self._early.get(via)
                if held is None and len(self._early) < MAX_EARLY_PEERS:
                    held = self._early[via] = []
                if held is not None and len(held) < MAX_EARLY:
                    held.append(wire)
            return
        key = self.keys.get(env.sender)
        if key is None:
            self._fault(via, "unknown-sender", f"message from {self._who(via)} signed by {env.sender.hex()}, "
                                               "who is not at this table")
            return
        known = self._seen.get((env.sender, env.seq)) or self._ahead.get(env.sender, {}).get(env.seq)
        if known is not None and known.hash == env.hash:
            self._duplicate(known, via)
            return
        if not env.check_signature(key):
            self._fault(via, "bad-signature", f"{env.kind} #{env.seq} claiming to be from {self._who(env.sender)}, "
                                              f"delivered by {self._who(via)}, has a signature that does not verify")
            return
        if known is not None:
            self._fatal(env.sender, "equivocation",
                        f"{self._who(env.sender)} signed two different messages #{env.seq} "
                        f"({known.kind} and {env.kind})", (known.wire, env.wire))
            return
        if via == env.sender:
            self._direct.add((env.sender, env.seq))
        self._wires[env.wire] = env
        next_seq, _ = self._heads.get(env.sender, (0, NO_PREVIOUS))
        if env.seq > next_seq:
            ahead = self._ahead.setdefault(env.sender, {})
            if len(ahead) < MAX_AHEAD:
                ahead[env.seq] = env
            return
        self._accept(env, via)
        self._drain(env.sender)

    def _duplicate(self, env: Envelope, via: bytes | None) -> None:
        """A copy of a message we hold. Copies relayed by others are normal; the sender sending it twice is a replay."""
        if via != env.sender:
            return
        if (env.sender, env.seq) in self._direct:
            self._fault(via, "replay", f"{self._who(via)} sent its message #{env.seq} ({env.kind}) again")
        self._direct.add((env.sender, env.seq))

    def _drain(self, sender: bytes) -> None:
        ahead = self._ahead.get(sender)
        while ahead and self.phase != "aborted":
            next_seq, _ = self._heads.get(sender, (0, NO_PREVIOUS))
            env = ahead.pop(next_seq, None)
            if env is None:
                return
            self._accept(env, None)

    def _accept(self, env: Envelope, via: bytes | None) -> None:
        next_seq, last = self._heads.get(env.sender, (0, NO_PREVIOUS))
        if env.prev != last:
            if env.seq == 0:
                self._fatal(env.sender, "chain-broken",
                            f"{self._who(env.sender)}'s first message names a previous one", (env.wire,))
            else:
                # It signed #k+1 on top of a #k other than the one we hold: a fork, provable with both.
                held = self._seen[(env.sender, env.seq - 1)]
                self._fatal(env.sender, "equivocation",
                            f"{self._who(env.sender)} signed message #{env.seq} ({env.kind}) following a message "
                            f"#{env.seq - 1} other than its {held.kind} #{env.seq - 1}", (held.wire, env.wire))
            return
        if not self._replaying:
            self.journal.message(env.wire)
        self._wires[env.wire] = env
        self._accepted.append(env)
        self._heads[env.sender] = (next_seq + 1, env.hash)
        self._seen[(env.sender, env.seq)] = env
        if self.relay and env.sender != self.me:
            # One seat relays each sender's messages to the other seats: the next seat after the sender.
            # A message shown differently to different peers thus reaches everyone in both versions.
            # Every peer relays to spectators (who may be linked to it alone).
            skip = tuple(p for p in (env.sender, via) if p is not None)
            relayer = self.roster[(self.roster.index(env.sender) + 1) % self.players] if env.sender in self.keys else None
            self._emit(Outgoing(env.wire, skip=skip, watchers_only=relayer != self.me or relayer is None))
        self._store(env)
        self._advance()

    # ----------------------------------------------------------------- START

    def _start_problem(self, env: Envelope) -> str:
        """What is wrong with a START (its signer must sit in its own roster and have signed it); '' if nothing."""
        try:
            check_body("START", env.body)
        except BodyError as exc:
            return str(exc)
        keys = [s["key"] for s in env.body["roster"]]
        signer = next((k for k in keys if peer_id(k) == env.sender), None)
        if signer is None:
            return "its sender is not in its roster"
        if len(set(keys)) != len(keys):
            return "its roster names a key twice"
        if not env.check_signature(signer):
            return "its signature does not verify"
        if env.game_id != game_id_for(signer, env.body["salt"]):
            return "its game id is not bound to its signer's key (only the host can start this game)"
        return ""

    def _take_start(self, env: Envelope) -> None:
        body = env.body
        self.start = env
        self.game_id = env.game_id
        roster = body["roster"]
        self.roster = [peer_id(s["key"]) for s in roster]
        self.names = [s["name"] for s in roster]
        self.bots = [s["bot"] for s in roster]
        self.keys = {peer_id(s["key"]): s["key"] for s in roster}
        self.seat = self.roster.index(self.me) if self.me in self.keys else None
        self.game = Game(settings_from_body(body["settings"], len(roster)))
        self.deal = DraftDeal() if self.game.settings.variant == "draft" else OpenDeal()
        self.phase = "starting"
        self._emit(GameStarted(tuple(self.names), self.seat))

    # ----------------------------------------------------------------- slots

    def _store(self, env: Envelope) -> None:
        seat = self.roster.index(env.sender)
        kind, body = env.kind, env.body
        if seat in self.dropped:
            return  # a dropped seat's client may still talk; the stand-in plays for it and nothing it says counts
        if kind not in FIELDS:
            self._fatal(env.sender, "unknown-kind", f"{self._who(env.sender)} sent a message of unknown kind {kind!r}",
                        (env.wire,))
            return
        try:
            check_body(kind, body)
        except BodyError as exc:
            self._fatal(env.sender, "bad-body", f"{self._who(env.sender)}: {exc}", (env.wire,))
            return
        if kind == "START":
            if env is not self.start:
                self._fatal(env.sender, "unexpected", f"{self._who(env.sender)} sent a second START", (env.wire,))
            return
        if kind == "START_ACK":
            if body["start"] != self.start.hash:
                self._fatal(env.sender, "start-mismatch",
                            f"{self._who(env.sender)} acknowledged a different START", (env.wire,))
                return
            key = (kind, 0, 0)
        else:
            round_index = body.get("round", self.round)
            step = body.get("turn", body.get("pick", body.get("step", 0)))
            key = (kind, round_index if kind != "GAME_END" else 0, step)
            problem = self._out_of_place(env.sender, kind, round_index, step)
            if kind == "DROP" and not problem and not (body["seat"] < self.players and body["seat"] != seat):
                problem = f"to drop seat {body['seat']}, which is itself or no seat"
            if problem:
                self._fatal(env.sender, "unexpected", f"{self._who(env.sender)} sent {kind} {problem}", (env.wire,))
                return
            if kind == "ROW_CHOICE" and (round_index, step) < (self.round, self.turn):
                self._fatal(env.sender, "wrong-chooser",
                            f"{self._who(env.sender)} chose a row for turn {step + 1} of round {round_index + 1}, "
                            "which is over", (env.wire,))
                return
        slot = self._slots.setdefault(key, {})
        if seat in slot:
            self._fatal(env.sender, "duplicate",
                        f"{self._who(env.sender)} sent two {kind} messages for the same step", (slot[seat].wire, env.wire))
            return
        slot[seat] = env
        if kind == "PLAY_COMMIT":
            self._emit(Committed(seat, key[1], key[2]))
        if kind != "START_ACK":
            self._note_progress(seat, key[1] if kind != "GAME_END" else self.round, message_step(kind, body))

    def _out_of_place(self, sender: bytes, kind: str, round_index: int, step: int) -> str:
        """Why a message for (round, turn or pick) cannot belong to this game; '' if it can.

        Besides the bounds of the game, each sender's own messages must move
        forward one step at a time: its (round, turn) never goes back, and
        goes forward by at most one turn, or to turn 0 of the next round.
        That is a property of the sender's chain alone, so every receiver,
        however far behind, reaches the same verdict.
        """
        draft = self.game.settings.variant == "draft"
        if kind in ("SEED_COMMIT", "SEED_REVEAL") and draft or kind == "DRAFT_PICK" and not draft:
            return f"in a game of the {self.game.settings.variant} variant"
        if kind in ("PLAY_COMMIT", "PLAY_REVEAL", "ROW_CHOICE") and step >= HAND_SIZE:
            return f"for turn {step + 1}: a round has {HAND_SIZE} turns"
        if kind == "DRAFT_PICK" and step >= HAND_SIZE * self.players:
            return f"for pick {step + 1}: a draft has {HAND_SIZE * self.players} picks"
        if kind == "GAME_END":
            return ""
        if kind == "DROP":
            if step > GAME_END_STEP:
                return f"for step {step}: a round has steps 0..{GAME_END_STEP}"
            turn = min(max(step - 2, 0) // 3, HAND_SIZE - 1)
        elif kind in ("PLAY_COMMIT", "PLAY_REVEAL", "ROW_CHOICE"):
            turn = step
        else:
            turn = HAND_SIZE - 1 if kind == "ROUND_END" else 0
        last_round, last_turn = self._progress.get(sender, (0, 0))
        if (round_index, turn) < (last_round, last_turn):
            return f"for round {round_index + 1}, turn {turn + 1}, after its message for round {last_round + 1}, turn {last_turn + 1}"
        if round_index == last_round and turn > last_turn + 1 or round_index == last_round + 1 and turn > 0 \
                or round_index > last_round + 1:
            return (f"for round {round_index + 1}, turn {turn + 1}, skipping ahead of its message for round "
                    f"{last_round + 1}, turn {last_turn + 1}")
        self._progress[sender] = (round_index, turn)
        return ""
