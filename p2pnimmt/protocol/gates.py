"""The gates every message passes, and the slots it lands in (protocol.md sections 8 and 11).

A mixin of Session: shape, signature and chain checks (`_ingest`,
`_accept`), the START that fixes who may sign, and `_store`, which puts an
accepted message in its slot after the checks every receiver makes
identically (body fields, game bounds, each sender's step progression).
"""

from __future__ import annotations

from ..engine import Game, HAND_SIZE
from .codec import DecodeError
from .deal import DraftDeal, OpenDeal
from .sealed_deal import SealedDeal
from .envelope import NO_PREVIOUS, Envelope, open_envelope
from .events import Committed, GameStarted, Outgoing
from .identity import game_id_for, peer_id
from .messages import FIELDS, BodyError, check_body, settings_from_body
from .steps import GAME_END_STEP, message_step

MAX_EARLY = 256  # messages held per delivering peer before START is known (signatures cannot be checked yet)
MAX_EARLY_PEERS = 64
MAX_AHEAD = 512  # messages held per sender ahead of its chain


class Gates:
    """Accepting messages: the part of Session that decides what counts, before the game moves."""

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
        settings = self.game.settings
        self.deal = DraftDeal() if settings.variant == "draft" else SealedDeal() if settings.deal == "sealed" \
            else OpenDeal()
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
        if kind == "SEALED_KEYS" and body["alarm"]:
            # The round stops before the first turn the alarm's sender has not revealed: its chain fixes that
            # turn identically for every receiver, whenever the alarm arrives.
            self._marks[("alarm-turn", key[1], seat)] = sum(
                seat in self.slot("PLAY_REVEAL", key[1], t) for t in range(HAND_SIZE))
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
        if kind.startswith("SEALED_") or kind.startswith("SEED_"):
            if kind not in self.deal.kinds:
                return f"in a game with the {self.game.settings.deal} deal"
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
            turn = 0
        last_round, last_turn = self._progress.get(sender, (0, 0))
        if kind in ("ROUND_END", "SEALED_KEYS") and round_index == last_round:
            turn = last_turn  # a round can end early (an audit, a void round): no turn is skipped by ending it
        if (round_index, turn) < (last_round, last_turn):
            return f"for round {round_index + 1}, turn {turn + 1}, after its message for round {last_round + 1}, turn {last_turn + 1}"
        if round_index == last_round and turn > last_turn + 1 or round_index == last_round + 1 and turn > 0 \
                or round_index > last_round + 1:
            return (f"for round {round_index + 1}, turn {turn + 1}, skipping ahead of its message for round "
                    f"{last_round + 1}, turn {last_turn + 1}")
        self._progress[sender] = (round_index, turn)
        return ""
