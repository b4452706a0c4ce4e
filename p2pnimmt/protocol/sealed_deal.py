"""The sealed deal as a session component: hidden hands, no dealer, audited at round end (protocol.md 17).

Per round, in seat order among the seats still playing:
1. SEALED_SHUFFLE {round, deck, commit}: each seat layers its key on the
   previous deck and permutes it (sealed.shuffle_step); `commit` binds its
   key and permutation seed. Received decks are checked at once for shape
   (sealed.take_shuffle).
2. SEALED_UNLOCK {round, values}: each seat removes its layer from every
   dealt position but its own hand (sealed.unlock_step), checked at once
   (sealed.take_unlock); a collision its sender did not make breaks the
   deal there: after the last unlock everyone audits at once.
3. Each seat opens its own hand; everyone opens the rows (and the hands of
   seats dropped before the deal, which added no layer and play open).
4. Reveals name the deck position of the card, committed with it; a
   position not owned, reused, or a card already public is refused at once.
5. SEALED_KEYS {round, key, seed, nonce, alarm}: at round end every seat
   reveals its key and seed; `sealed.audit` checks the deal (its outcomes;
   every step when one is wrong) and every play and names the first seat at
   fault. A seat whose own hand does not
   open reveals its keys at once instead (alarm) before its first play of
   the round: everyone then reveals and the audit names the cheat, or the
   alarm was false and its sender is at fault.

A seat dropped after it shuffled can no longer remove its layer or reveal
its key: the round is void (scored as nothing) and the next round is dealt
without it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine import HAND_SIZE, Round
from .commitments import NONCE_SIZE, commitment
from .deal import Deal
from .effects import DropSeat, Effects, Fatal, KeepSecret, Send, Suspect
from .envelope import Envelope
from .events import RoundVoided
from .phase import KEYS_PLACE, ROUND_END_PLACE, ROUND_END_STEP, SEED_COMMIT_STEP, SEED_REVEAL_STEP, Step
from .round_texts import AUDIT, SEALED, SHUFFLE, UNLOCK
from .sealed import (
    Layout,
    RoundSecrets,
    audit,
    initial_deck,
    new_secrets,
    open_hand,
    open_public,
    shuffle_step,
    take_shuffle,
    take_unlock,
    unlock_start,
    unlock_step,
)
from .sealed_group import key_pair_from
from .tableview import TableView

SHUFFLE_STEP, UNLOCK_STEP = SEED_COMMIT_STEP, SEED_REVEAL_STEP

def sealed_value(card: int, position: int) -> bytes:
    """What a sealed play commits to: the card, then its deck position, one byte each."""
    return bytes([card, position])


def key_value(secrets: RoundSecrets) -> bytes:
    """What SEALED_SHUFFLE's commit binds: e || seed (64 bytes)."""
    return secrets.key.e + secrets.seed


@dataclass
class SealedRound:
    """What one node knows of one round's sealed deal."""

    layout: Layout
    cards: tuple[int, ...]
    previous: list[bytes]
    shufflers: list[int] = field(default_factory=list)
    seats: tuple[int, ...] | None = None  # the shuffling seats, once every shuffle is in
    current: list[bytes] | None = None
    folds: list[int] | None = None  # the twin keys of `previous`, then of `current`, when found (17.1's memo)
    own: tuple[list[bytes], list[bytes]] | None = None  # (previous, the deck we shuffled from it): see take_shuffle
    unlocked: list[int] = field(default_factory=list)
    dealt: bool = False
    broken: str = ""  # why everyone audits now (public cards that do not open, a card revealed twice)
    broken_turn: int = HAND_SIZE  # the audit covers the plays of the turns before this one
    broken_at_unlock: bool = False  # a collision an unlock's sender is not to blame for (17.5 step 3): full audit
    known: dict[int, dict[int, int]] = field(default_factory=dict)  # seat -> card -> position, hands we can see
    used: dict[int, set[int]] = field(default_factory=dict)  # seat -> positions played
    plays: list[tuple[int, int, int]] = field(default_factory=list)  # (seat, card, position), in play order
    pending: list[tuple[int, int, int]] = field(default_factory=list)  # this turn's plays, until it resolves
    settled: bool = False
    caught: str = ""  # the audit's verdict against a seat (the round is void)
    culprit: int | None = None  # the seat it names: it forfeits the game (17.9)
    absent: set[int] = field(default_factory=set)  # seats already reported for leaving the deal half done


class SealedDeal(Deal):
    """Mental-poker deal: no peer learns another's hand or the undealt cards during the round."""

    kinds = ("SEALED_SHUFFLE", "SEALED_UNLOCK", "SEALED_KEYS")
    interrupts = True  # a lost seat voids the round, a broken deal or an alarm audits it at once

    def __init__(self) -> None:
        self.rounds: dict[int, SealedRound] = {}
        self.secrets: dict[int, tuple[RoundSecrets, bytes]] = {}  # round -> (our key and seed, commitment nonce)
        self.alarm_turns: dict[tuple[int, int], int] = {}  # (round, seat) -> the turn its alarm stops the round at
        self.absent_words: dict[tuple[int, int], str] = {}  # (round, seat) -> why its drop voided the round

    # ----------------------------------------------------------------- secrets

    def _secrets(self, table: TableView, r: int) -> Effects[tuple[RoundSecrets, bytes] | None]:
        got = self.secrets.get(r)
        if got is None:
            if table.replaying:
                return None  # we had not shuffled before the restart; we will once the replay is over
            secrets = new_secrets(table.entropy)
            nonce = table.entropy(NONCE_SIZE)
            got = self.secrets[r] = (secrets, nonce)
            yield KeepSecret({"kind": "sealed", "round": r, "key": secrets.key.e, "seed": secrets.seed,
                              "nonce": nonce})
        return got

    def restore(self, record: dict[str, Any]) -> None:
        """Put back a `sealed` secrets record (resume)."""
        if record.get("kind") == "sealed":
            pair = key_pair_from(record["key"])
            self.secrets[record["round"]] = (RoundSecrets(pair, record["seed"]), record["nonce"])

    def secret_records(self) -> list[dict[str, Any]]:
        return [{"kind": "sealed", "round": r, "key": secrets.key.e, "seed": secrets.seed, "nonce": nonce}
                for r, (secrets, nonce) in sorted(self.secrets.items())]

    # ----------------------------------------------------------------- the deal

    def begin(self, table: TableView, round_index: int) -> Effects[None]:
        cards = tuple(table.game.deck)
        self.rounds[round_index] = SealedRound(Layout(table.players, len(cards)), cards, initial_deck(cards))
        return
        yield

    @staticmethod
    def _fault(table: TableView, seat: int, code: str, detail: str, wire: bytes) -> Fatal:
        return Fatal(seat, code, SEALED.format(who=table.who_seat(seat), detail=detail), (wire,))

    def advance(self, table: TableView, r: int) -> Effects[Round | None]:
        st = self.rounds[r]
        if st.seats is None and not (yield from self._shuffle(table, r, st)):
            return None
        if self.left(table, r, st.seats or ()):
            return None  # a seat that shuffled is dropped: the round is void (nobody unlocks on)
        if st.current is None or len(st.unlocked) < len(st.seats or ()):
            if not (yield from self._unlock(table, r, st)):
                return None
        if st.broken:
            return None
        return (yield from self._open(table, r, st))

    @staticmethod
    def shuffles(table: TableView, r: int, seat: int) -> bool:
        """`seat` shuffles in round `r`: it is active at its own shuffle's position (r, 0, seat) and did not forfeit
        in an earlier round (protocol.md 17.5, 17.9: a seat that forfeited is dealt open for the rest of the game)."""
        return table.forfeits.get(seat, r) >= r and table.playing(seat, r, SHUFFLE_STEP, seat)

    def left(self, table: TableView, r: int, seats: Any) -> list[int]:
        """The seats of `seats` that shuffled in round `r` and were dropped later in it: their layer is in the deck
        and can never be removed (the round is void, 17.9). Not one dropped at its ROUND_END's place (r, 32, 1): it
        showed its keys, or the round was void already (a void round waits on nobody's keys)."""
        if not table.dropped:
            return []  # nobody dropped (the usual pass)
        end = Step(r, ROUND_END_STEP, ROUND_END_PLACE)
        return [s for s in seats if s in table.dropped and table.dropped[s].round == r and table.dropped[s] < end
                and self.shuffles(table, r, s)]

    def _shuffle(self, table: TableView, r: int, st: SealedRound) -> Effects[bool]:
        shuffles = table.slot("SEALED_SHUFFLE", r)
        if any(not self.shuffles(table, r, s) for s in st.shufflers):
            # Dropped at or before its shuffle after we took it (our own, if the others dropped us): the deal goes
            # on without it.
            st.shufflers, st.previous, st.folds = [], initial_deck(st.cards), None
        for seat in range(table.players):
            if seat in st.shufflers or not self.shuffles(table, r, seat):
                continue  # taken, or dropped at or before its own shuffle's position: it does not shuffle
            if seat not in shuffles:
                if seat == table.seat and not self.left(table, r, st.shufflers):
                    got = yield from self._secrets(table, r)
                    if got is not None:
                        secrets, nonce = got
                        deck = shuffle_step(secrets.key.e, secrets.seed, st.previous)
                        st.own = (st.previous, deck)
                        commit = commitment("sealed", table.game_id, r, 0, seat, key_value(secrets), nonce)
                        yield Send("SEALED_SHUFFLE", {"round": r, "deck": deck, "commit": commit})
                return False
            if table.held_back(SHUFFLE_STEP, seat):
                return False
            env = shuffles[seat]
            own = st.own[1] if st.own is not None and st.own[0] is st.previous and seat == table.seat else None
            try:
                taken = take_shuffle(st.previous, env.body["deck"], own)
            except ValueError as exc:
                yield self._fault(table, seat, "sealed-shuffle", SHUFFLE.format(round=r + 1, why=exc), env.wire)
                return False
            st.previous, st.folds = taken.values, taken.folds
            st.shufflers.append(seat)
        if self.left(table, r, st.shufflers):
            return False  # a seat that shuffled was dropped at a later seat's shuffle: the round is void
        st.seats = tuple(st.shufflers)
        st.current = unlock_start(st.layout, st.previous)
        st.folds = st.folds[: st.layout.dealt] if st.folds is not None else None
        return True

    def _unlock(self, table: TableView, r: int, st: SealedRound) -> Effects[bool]:
        unlocks = table.slot("SEALED_UNLOCK", r)
        assert st.seats is not None and st.current is not None
        for seat in st.seats:
            if seat in st.unlocked:
                continue
            if seat not in unlocks:
                if seat == table.seat:
                    got = yield from self._secrets(table, r)
                    if got is not None:
                        values = unlock_step(st.layout, seat, got[0].key.d, st.current)
                        yield Send("SEALED_UNLOCK", {"round": r, "values": values})
                return False
            if table.held_back(UNLOCK_STEP, seat):
                return False
            env = unlocks[seat]
            try:
                taken = take_unlock(st.layout, seat, st.current, st.folds, env.body["values"])
            except ValueError as exc:
                yield self._fault(table, seat, "sealed-unlock", UNLOCK.format(round=r + 1, why=exc), env.wire)
                return False
            st.current, st.folds = taken.values, taken.folds
            st.unlocked.append(seat)
            if taken.broken and not st.broken:
                # Not the sender's fault on arrival (its hand may hold what an earlier cheat wrote there: a framed
                # unlock, 17.10): the unlocks go on, then everyone audits at once, every step recomputed.
                st.broken, st.broken_turn = f"the deal broke at an unlock ({taken.broken})", 0
                st.broken_at_unlock = True
        return True

    def _open(self, table: TableView, r: int, st: SealedRound) -> Effects[Round | None]:
        layout = st.layout
        assert st.seats is not None and st.current is not None
        opened = open_public(layout, st.seats, st.current)
        if None in opened.values():
            st.broken, st.broken_turn = "a public card of the deal opens to no card", 0
            return None
        public = {position: card for position, card in opened.items() if card is not None}
        hands: list[list[int] | None] = [None] * table.players
        for seat in range(table.players):
            if seat not in st.seats:
                hands[seat] = [public[p] for p in layout.hand(seat)]
                st.known[seat] = {public[p]: p for p in layout.hand(seat)}
        me = table.seat
        if me in st.seats and (got := (yield from self._secrets(table, r))) is not None:
            opened_hand = open_hand(layout, me, got[0].key.d, st.current)
            mine = [card for card in opened_hand if card is not None]
            if len(mine) == len(opened_hand) and len(set(mine)) == len(mine) and set(mine) <= set(st.cards) \
                    and not set(mine) & set(public.values()):
                hands[me] = mine
                st.known[me] = {card: p for card, p in zip(mine, layout.hand(me))}
            elif not self._alarmed(table, r):
                yield from self._send_keys(table, r, alarm=True)  # our hand does not open: make everyone reveal now
        st.dealt = True
        rows = [public[p] for p in layout.rows]
        return table.game.start_dealt(Round.sealed(hands, rows))

    # ----------------------------------------------------------------- waiting

    def waiting(self, table: TableView) -> tuple[int, int, tuple[int, ...]]:
        """The position the deal waits on: (r, 0, s) for the first shuffling seat s whose shuffle is missing (or
        held back here: our vote to drop a seat there is open), then (r, 1, s) likewise for the unlocks
        (protocol.md 11.1, "Positions"); past the last one, place n."""
        r = table.round
        st = self.rounds[r]
        if st.seats is None:
            shuffles = table.slot("SEALED_SHUFFLE", r)
            for seat in range(table.players):
                if not self.shuffles(table, r, seat):
                    continue
                if seat not in shuffles:
                    return SHUFFLE_STEP, seat, (seat,)
                if seat not in st.shufflers and table.held_back(SHUFFLE_STEP, seat):
                    return SHUFFLE_STEP, seat, ()
            return SHUFFLE_STEP, table.players, ()
        unlocks = table.slot("SEALED_UNLOCK", r)
        for seat in st.seats:
            if not table.playing(seat, r, UNLOCK_STEP, seat):
                continue  # dropped: the round is void
            if seat not in unlocks:
                return UNLOCK_STEP, seat, (seat,)
            if seat not in st.unlocked and table.held_back(UNLOCK_STEP, seat):
                return UNLOCK_STEP, seat, ()
        return UNLOCK_STEP, table.players, ()

    def stored(self, table: TableView, kind: str, seat: int, env: Envelope) -> None:
        if kind == "SEALED_KEYS" and env.body["alarm"]:
            # The round stops before the first turn the alarm's sender has not revealed: its chain fixes that
            # turn identically for every receiver, whenever the alarm arrives.
            r = env.body["round"]
            self.alarm_turns[(r, seat)] = sum(seat in table.slot("PLAY_REVEAL", r, t) for t in range(HAND_SIZE))

    # ----------------------------------------------------------------- plays

    def committed_value(self, table: TableView, seat: int, card: int,
                        body: dict[str, Any] | None = None) -> bytes | None:
        if body is None:
            return sealed_value(card, self.rounds[table.round].known[seat][card])
        position = body.get("position")
        return None if position is None or card > 255 else sealed_value(card, position)

    def reveal_fields(self, table: TableView, card: int) -> dict[str, Any]:
        assert table.seat is not None
        return {"position": self.rounds[table.round].known[table.seat][card]}

    def check_play(self, table: TableView, seat: int, card: int, body: dict[str, Any]) -> Effects[str | None]:
        st = self.rounds[table.round]
        rnd = table.game.round
        assert rnd is not None
        position = body["position"]
        if (seat, card, position) in st.pending:
            return None  # checked in this turn's pass already: the pass runs again after another seat's fault
        if card not in st.cards:
            return f"played {card}, which is not in this game's deck"
        if position >= st.layout.dealt:
            return f"played from position {position}, which was not dealt (0..{st.layout.dealt - 1})"
        owner = st.layout.owner(position)
        if owner != seat:
            return f"played from position {position}, which is " + ("a row's" if owner is None else f"seat {owner}'s")
        if position in st.used.get(seat, ()) or any(p == position for _s, _c, p in st.pending):
            return f"played from position {position} a second time"
        # our hand hidden (we shuffled): a card of an open hand of ours is public, not-in-hand as everywhere (17.6)
        mine = rnd.hands[table.seat] if table.seat is not None and table.seat in (st.seats or ()) else ()
        known = st.known.get(seat)
        if known is not None:
            # a hand open to everyone (its seat did not shuffle): its position holds one known card, first (17.8): a
            # card of ours from it is not-in-hand at every node alike, never an alarm the audit (which looks at no
            # open hand) would find false
            if known.get(card) != position:
                return f"played {card} from position {position}, which does not hold it"
        elif seat != table.seat and card in mine:
            # Only we can see that this card is ours: make everyone reveal keys, and the audit names the cheat.
            if table.seat not in table.slot("SEALED_KEYS", table.round):
                yield from self._send_keys(table, table.round, alarm=True)
            st.pending.append((seat, card, position))
            return None
        else:
            try:
                rnd.reveal(seat, card)
            except ValueError as exc:
                if any(c == card for _s, c, _p in st.pending):
                    st.broken = f"card {card} was revealed twice in one turn"  # the audit tells whose it is
                    st.broken_turn = table.turn + 1
                else:
                    return f"played {card}: {exc}"
        st.pending.append((seat, card, position))
        return None

    def turn_resolved(self, table: TableView) -> None:
        st = self.rounds[table.round]
        for seat, card, position in st.pending:
            st.used.setdefault(seat, set()).add(position)
            st.plays.append((seat, card, position))
        st.pending = []

    # ----------------------------------------------------------------- round end

    def _alarms(self, table: TableView, r: int) -> list[int]:
        """The seats whose SEALED_KEYS of round r in so far say `alarm`: shuffling seats of the round only (17.8). A
        seat that does not shuffle in it (it forfeited before, 17.9: dealt open) has no keys to send; one it signs
        anyway is taken by no step, as its SEALED_SHUFFLE or SEALED_UNLOCK would be (since session 33: its alarm
        stopped the round, nothing settled it, and the reference raised 'no finished round to score')."""
        keys = table.slot("SEALED_KEYS", r)
        if not keys:
            return []  # no keys in yet (the round's every pass before its end)
        st = self.rounds.get(r)
        seats = st.seats if st is not None and st.seats is not None else ()
        return [s for s, env in keys.items() if env.body["alarm"] and s in seats]

    def _alarmed(self, table: TableView, r: int) -> bool:
        return bool(self._alarms(table, r))

    def audit_now(self, table: TableView) -> bool:
        """True when the round must stop for an audit before it ends (a broken deal, or an alarm)."""
        st = self.rounds.get(table.round)
        if st is None or st.settled or st.seats is None or len(st.unlocked) < len(st.seats):
            return False  # nothing to audit before the whole deal is in (an alarm that early waits for it)
        return bool(st.broken) or self._alarmed(table, table.round)

    def stop(self, table: TableView, r: int) -> int:
        """17.7's stop: the lowest turn of the round's alarms in so far, or the turn after the deal broke, or 10."""
        st = self.rounds.get(r)
        alarms = [self.alarm_turns[(r, s)] for s in self._alarms(table, r)]
        return min([*alarms, st.broken_turn if st is not None else HAND_SIZE])

    def _send_keys(self, table: TableView, r: int, alarm: bool = False) -> Effects[None]:
        got = yield from self._secrets(table, r)
        if got is None:
            return
        secrets, nonce = got
        yield Send("SEALED_KEYS", {"round": r, "key": secrets.key.e, "seed": secrets.seed, "nonce": nonce,
                                   "alarm": alarm})

    def keys_waiting(self, table: TableView) -> tuple[int, ...] | None:
        st = self.rounds.get(table.round)
        if st is None or st.settled or st.seats is None:
            return None
        if st.caught or any(s in table.dropped and table.dropped[s][0] == table.round for s in st.seats):
            # A void round (`void`) needs no (more) SEALED_KEYS (17.9): between the pass that ends it and the one
            # that scores it, the game waits on nobody's keys (an expelled seat is dropped at its ROUND_END's place,
            # or later, never at the keys of a void round: the same position whenever the proof came, section 12).
            return None
        keys = table.slot("SEALED_KEYS", table.round)
        active = table.active_at(table.round, ROUND_END_STEP, KEYS_PLACE)
        lacking = tuple(s for s in st.seats if s not in keys and s in active)
        if lacking:
            return lacking
        # Every key in: the audit also needs every reveal below the stop, which a seat sends before its keys (17.8);
        # one that sent its keys instead is waited on here, so that it can be voted out (11.1).
        reveals = [table.slot("PLAY_REVEAL", table.round, t) for t in range(self.stop(table, table.round))]
        return tuple(s for s in st.seats if s in active and any(s not in slot for slot in reveals))

    def settle(self, table: TableView, r: int) -> Effects[bool]:
        st = self.rounds[r]
        if st.settled:
            return True
        assert st.seats is not None
        keys = table.slot("SEALED_KEYS", r)
        mine = table.seat in st.seats and table.seat not in keys
        if mine and table.playing(table.seat, r, ROUND_END_STEP, KEYS_PLACE):
            yield from self._send_keys(table, r)
        if table.held_back(ROUND_END_STEP, KEYS_PLACE) or any(s not in keys for s in st.seats):
            return False
        shuffles = table.slot("SEALED_SHUFFLE", r)
        revealed = {}
        for seat in st.seats:
            body = keys[seat].body
            value = body["key"] + body["seed"]
            if commitment("sealed", table.game_id, r, 0, seat, value, body["nonce"]) != shuffles[seat].body["commit"]:
                return (yield from self._caught(table, st, seat, "sealed-key",
                                                "revealed a key that does not match its commitment", keys[seat].wire))
            revealed[seat] = (body["key"], body["seed"])
        unlocks = table.slot("SEALED_UNLOCK", r)
        alarms = [s for s in st.seats if keys[s].body["alarm"]]
        stop = self.stop(table, r)
        plays: list[tuple[int, int, Any]] = []
        # every seat's reveals of the turns before the stop, from the slots: alike everywhere
        wires: dict[tuple[int, Any], bytes] = {}
        for t in range(stop):
            reveals = table.slot("PLAY_REVEAL", r, t)
            for seat in st.seats:
                if seat not in reveals:
                    return False  # the turn is not complete here yet; it will be
                body = reveals[seat].body
                plays.append((seat, body["card"], body.get("position")))
                wires.setdefault((seat, body.get("position")), reveals[seat].wire)
        fault = audit(st.cards, table.players, st.seats, {s: shuffles[s].body["deck"] for s in st.seats},
                      {s: unlocks[s].body["values"] for s in st.seats if s in unlocks}, revealed, plays,
                      trusted=table.seat, recompute=st.broken_at_unlock)
        if fault is not None:
            if fault.step == "play":
                evidence = wires.get((fault.seat, fault.index)) or keys[fault.seat].wire
            else:
                held = {"shuffle": shuffles, "unlock": unlocks}.get(fault.step, keys).get(fault.seat)
                evidence = held.wire if held else keys[fault.seat].wire
            return (yield from self._caught(table, st, fault.seat, f"sealed-{fault.step}", fault.reason, evidence))
        if alarms:
            return (yield from self._caught(table, st, alarms[0], "sealed-false-alarm",
                                            "said its hand did not open, but the audit finds every step right",
                                            keys[alarms[0]].wire))
        if st.broken:  # not reachable: a broken deal always has a wrong step
            return (yield from self._caught(table, st, st.seats[0], "sealed-audit",
                                            f"{st.broken}, yet the audit finds every step right",
                                            keys[st.seats[0]].wire))
        st.settled = True
        return True

    def _caught(self, table: TableView, st: SealedRound, seat: int, code: str, detail: str,
                wire: bytes) -> Effects[bool]:
        """The audit names `seat`: the round is void, the seat is dropped (the stand-in plays it from now on) and it
        forfeits the game (17.9: it may take its seat back, dealt open, but cannot win nor void another round).

        Every node runs the same audit on the same signed messages, so every node drops the same seat at the
        same step; the fault (with the message that proves it) goes in the transcript.
        """
        r = table.round
        st.caught = AUDIT.format(round=r + 1, who=table.who_seat(seat), why=detail)
        st.culprit = seat
        yield Suspect(seat, code, st.caught, (wire,))
        yield DropSeat(seat, Step(r, ROUND_END_STEP))
        return False

    @staticmethod
    def _shuffled(st: SealedRound) -> tuple[int, ...]:
        """The seats that shuffled in the round so far (all of them, once every shuffle is in)."""
        return st.seats if st.seats is not None else tuple(st.shufflers)

    def _owed_a_reveal(self, table: TableView, seat: int) -> bool:
        """Dropped at its keys (r, 32, 0): a PLAY_REVEAL of `seat` is not in for a turn below the stop of every alarm
        this node took in the round (a dropped seat's too) and of a broken deal: the message it lacked there was a
        reveal it owed before its keys (17.8), whether or not its keys came (protocol.md 17.9, the words)."""
        r = table.round
        st = self.rounds.get(r)
        seats = st.seats if st is not None and st.seats is not None else ()
        stop = min([t for (at, s), t in self.alarm_turns.items() if at == r and s in seats] +
                   [st.broken_turn if st is not None else HAND_SIZE])
        return any(seat not in table.slot("PLAY_REVEAL", r, t) for t in range(stop))

    def leavers(self, table: TableView) -> tuple[int, ...]:
        st = self.rounds.get(table.round)
        if st is not None and st.culprit is not None:  # the seat the audit named forfeits too (17.9, since session 33)
            return (st.culprit,)
        if st is None or st.caught or st.settled:
            return ()
        return tuple(self.left(table, table.round, self._shuffled(st)))

    def void(self, table: TableView) -> Effects[RoundVoided | None]:
        st = self.rounds.get(table.round)
        if st is not None and st.caught:
            return RoundVoided(table.round, st.caught)
        if st is None or st.settled:
            return None
        gone = self.left(table, table.round, self._shuffled(st))
        if not gone:
            return None
        reasons = {}
        for seat in gone:  # every seat dropped with the one that voids the round, in seat order (protocol.md 17.9)
            at = table.dropped[seat]  # (dropped at a later seat's shuffle: it stopped before its unlock)
            what = "its unlock" if at.number in (SHUFFLE_STEP, UNLOCK_STEP) else \
                "its keys" if at.number == ROUND_END_STEP and not self._owed_a_reveal(table, seat) else "its card"
            reasons[seat] = self.absent_words.setdefault(
                (table.round, seat), f"{table.who_seat(seat)} stopped before sending {what} after it shuffled: its "
                f"layer cannot be removed nor its key revealed")  # the words of its first count (17.9)
            if seat not in st.absent:
                st.absent.add(seat)
                yield Suspect(seat, "absent", reasons[seat])  # at fault: it left the deal half done
        return RoundVoided(table.round, reasons[gone[0]], absent=gone[0])
