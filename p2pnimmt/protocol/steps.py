"""How a session moves the game forward from its slots, and how absent players are dropped (protocol.md 11, 12).

Steps of a round: 0 seed commit (or the draft), 1 seed reveal, then for
turn t: 2+3t commit, 3+3t reveal, 4+3t row choice; 32 round end, 33 game
end. A seat dropped at (round, step) sends nothing from that step on:
the stand-in (standin.py) plays for it, the same on every node.

Dropping (DROP votes): a seat that has waited too long for seat X at
step S votes DROP(X, S). A seat that is itself still waiting for X at S
joins the vote. Once every seat active at S but X has voted, X is dropped
at S. A voter holds back from S (it will not use X's late messages there)
unless it sees that some other seat has moved past S: that seat used X's
messages, so the drop can never complete, and the voter withdraws and
uses them too. Either everyone drops X at S or nobody does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine import HAND_SIZE
from .commitments import commit_set_digest, commitment, state_hash
from .events import (
    GameOver,
    PlayNeeded,
    Revealed,
    RoundEnded,
    RoundStarted,
    RoundVoided,
    RowChoiceNeeded,
    SeatDropped,
    TurnResolved,
)
from .standin import stand_in_card, stand_in_row

SEED_COMMIT_STEP, SEED_REVEAL_STEP = 0, 1
ROUND_END_STEP, GAME_END_STEP = 2 + 3 * HAND_SIZE, 3 + 3 * HAND_SIZE


def turn_step(turn: int, part: int) -> int:
    """The step of a turn's commit (part 0), reveal (1) or row choice (2)."""
    return 2 + 3 * turn + part


def message_step(kind: str, body: dict[str, Any]) -> int:
    """The step a message belongs to."""
    part = {"PLAY_COMMIT": 0, "PLAY_REVEAL": 1, "ROW_CHOICE": 2}.get(kind)
    if part is not None:
        return turn_step(body["turn"], part)
    return {"SEED_REVEAL": SEED_REVEAL_STEP, "SEALED_UNLOCK": SEED_REVEAL_STEP, "ROUND_END": ROUND_END_STEP,
            "SEALED_KEYS": ROUND_END_STEP, "GAME_END": GAME_END_STEP,
            "DROP": body.get("step", 0)}.get(kind, SEED_COMMIT_STEP)


class GameSteps:
    """The part of Session that advances the game (a mixin: it uses the Session's slots, sends and emits)."""

    # ----------------------------------------------------------------- who is still playing

    def active_at(self, round_index: int, step: int) -> list[int]:
        """Seats not dropped at or before (round, step)."""
        return [s for s in range(self.players) if s not in self.dropped or self.dropped[s] > (round_index, step)]

    def step_now(self) -> int | None:
        """The step the game waits on now (None outside a round)."""
        r, t = self.round, self.turn
        if self.phase == "deal":
            if self.game.settings.variant == "draft":
                return SEED_COMMIT_STEP
            sequential = self.deal.deal_waiting(self)
            if sequential is not None:
                return sequential[0]
            commits = self.slot("SEED_COMMIT", r)
            return SEED_COMMIT_STEP if any(s not in commits for s in self.active_at(r, 0)) else SEED_REVEAL_STEP
        if self.phase == "turn":
            commits = self.slot("PLAY_COMMIT", r, t)
            if any(s not in commits for s in self.active_at(r, turn_step(t, 0))):
                return turn_step(t, 0)
            reveals = self.slot("PLAY_REVEAL", r, t)
            if any(s not in reveals for s in self.active_at(r, turn_step(t, 1))):
                return turn_step(t, 1)
            return turn_step(t, 2)
        return {"round-end": ROUND_END_STEP, "game-end": GAME_END_STEP}.get(self.phase)

    def waiting_for(self) -> tuple[int, ...]:
        """Active seats whose message the game waits for now."""
        if self.phase == "starting":
            acks = self.slot("START_ACK", 0)
            return tuple(s for s in range(self.players) if s not in acks and self.roster[s] != self.start.sender)
        step = self.step_now()
        if step is None:
            return ()
        r, t = self.round, self.turn
        active = self.active_at(r, step)
        if self.phase == "deal" and self.game.draft is not None:
            seat = self.game.draft.to_move
            return (seat,) if seat in active and seat not in self.slot("DRAFT_PICK", r, self.game.draft.picks) else ()
        if self.phase == "deal" and (sequential := self.deal.deal_waiting(self)) is not None:
            return sequential[1]
        if self.phase == "round-end" and not self._mark(("scored", r)):
            keys = self.deal.keys_waiting(self)
            if keys:
                return keys
        kind, have = {
            SEED_COMMIT_STEP: ("SEED_COMMIT", self.slot("SEED_COMMIT", r)),
            SEED_REVEAL_STEP: ("SEED_REVEAL", self.slot("SEED_REVEAL", r)),
            ROUND_END_STEP: ("ROUND_END", self.slot("ROUND_END", r)),
            GAME_END_STEP: ("GAME_END", self.slot("GAME_END", 0)),
        }.get(step, (None, None))
        if kind is None:
            part = (step - 2) % 3
            if part == 2:
                chooser = self._mark(("chooser", r, t))
                waiting = chooser is not None and chooser in active and chooser not in self.slot("ROW_CHOICE", r, t)
                return (chooser,) if waiting else ()
            have = self.slot("PLAY_COMMIT" if part == 0 else "PLAY_REVEAL", r, t)
        return tuple(s for s in active if s not in have)

    def _held_back(self, step: int) -> bool:
        """True while our own vote to drop someone at this step is open (we will not use its late messages).

        The vote is void once another active seat has sent a message for a later step: that seat went on
        with the absent seat's messages, so it never votes and the drop can never complete.
        """
        key = (self.round, step)
        target = self._my_votes.get(key)
        if target is None or target in self.dropped:
            return False
        active = self.active_at(self.round, step)
        return not any(self._furthest.get(s, (-1, -1)) > key for s in active if s != target)

    def _count_votes(self) -> None:
        """Join open votes to drop a seat we are waiting for too; drop a seat once every other active seat voted."""
        step = self.step_now()
        if step is None:
            return
        r = self.round
        votes = self.slot("DROP", r, step)
        if not votes:
            return
        active = self.active_at(r, step)
        waiting = self.waiting_for()
        for target in sorted({env.body["seat"] for env in votes.values()}):
            if target not in active:
                continue
            if (self.seat in active and self.seat != target and (r, step) not in self._my_votes
                    and target in waiting):
                self._vote(target, step)
            voters = {v for v, env in votes.items() if env.body["seat"] == target and v in active}
            if voters >= set(active) - {target}:
                self.dropped[target] = (r, step)
                self._emit(SeatDropped(target, r, step))
                self._again = True

    def _vote(self, target: int, step: int) -> None:
        self._my_votes[(self.round, step)] = target
        self._send("DROP", {"round": self.round, "step": step, "seat": target})

    def _note_progress(self, seat: int, round_index: int, step: int) -> None:
        """Remember the furthest step each seat has sent a message for (it voids votes it went past)."""
        if (round_index, step) > self._furthest.get(seat, (-1, -1)):
            self._furthest[seat] = (round_index, step)
            self._again = True

    # ----------------------------------------------------------------- the steps

    def _advance(self) -> None:
        if self._advancing:
            self._again = True
            return
        self._advancing = True
        try:
            self._again = True
            while self._again and self.phase not in ("aborted", "over"):
                self._again = False
                self._count_votes()
                step = getattr(self, "_step_" + self.phase.replace("-", "_"), None)
                if step is not None:
                    step()
        finally:
            self._advancing = False

    def _step_starting(self) -> None:
        acks = self.slot("START_ACK", 0)
        if self.seat is not None and self.roster[self.seat] != self.start.sender and self.seat not in acks:
            self._send("START_ACK", {"start": self.start.hash})
            return
        if len(acks) + 1 < self.players:
            return
        self._begin_round(0)

    def _begin_round(self, round_index: int) -> None:
        self.round = round_index
        self.turn = 0
        self.phase = "deal"
        self.deal.begin(self, round_index)
        self._again = True

    def _interrupted(self) -> bool:
        """The round stops before its end: void (a sealed deal lost a seat) or audited at once; go to round end."""
        if self.deal.void(self) is None and not self.deal.audit_now(self):
            return False
        self.phase = "round-end"
        self._again = True
        return True

    def _step_deal(self) -> None:
        if self._interrupted():
            return
        rnd = self.deal.advance(self, self.round)
        if rnd is None:
            self._interrupted()
            return
        self.phase = "turn"
        self._emit(RoundStarted(self.round, tuple(tuple(r) for r in rnd.rows)))
        self._again = True

    def _state_now(self) -> bytes:
        if self._turn_state is None:
            self._turn_state = state_hash(self.game, self.round)
        return self._turn_state

    def _playing(self, seat: int | None, round_index: int, step: int) -> bool:
        return seat is not None and seat in self.active_at(round_index, step)

    def _step_turn(self) -> None:
        if self._interrupted():
            return
        r, t = self.round, self.turn
        committers = self.active_at(r, turn_step(t, 0))
        commits = self.slot("PLAY_COMMIT", r, t)
        if self._playing(self.seat, r, turn_step(t, 0)) and self.seat not in commits:
            self._once(("play", r, t), PlayNeeded(r, t))
        if self._held_back(turn_step(t, 0)) or any(s not in commits for s in committers):
            return
        if self._once(("state-checked", r, t)):
            here = self._state_now()
            for seat in committers:
                if commits[seat].body["state"] != here:
                    self._fatal(self.roster[seat], "state-mismatch",
                                f"{self._who(self.roster[seat])} committed on a different game state "
                                f"(round {r + 1}, turn {t + 1})", (commits[seat].wire,))
                    return
        digest = commit_set_digest([commits[s].hash for s in committers])
        revealers = self.active_at(r, turn_step(t, 1))
        reveals = self.slot("PLAY_REVEAL", r, t)
        if self.seat in revealers and self.seat not in reveals:
            card, nonce = self._secrets[("play", r, t)]
            self._send("PLAY_REVEAL", {"round": r, "turn": t, "card": card, "nonce": nonce, "commits": digest,
                                       **self.deal.reveal_fields(self, card)})
            return
        if self._held_back(turn_step(t, 1)) or any(s not in reveals for s in revealers):
            return
        for seat in revealers:
            if reveals[seat].body["commits"] != digest and self._once(("digest", r, t, seat)):
                # Either this seat lies, or someone showed it other commits; relayed copies will tell.
                self._fault(self.roster[seat], "digest-mismatch",
                            f"{self._who(self.roster[seat])} saw a different set of commitments in turn {t + 1}",
                            (reveals[seat].wire,))
        if any(reveals[s].body["commits"] != digest for s in revealers):
            return
        cards = self._mark(("turn-cards", r, t))
        if cards is None:  # checked once: a sealed deal learns hidden cards from the reveals
            cards = self._turn_cards(r, t, commits, reveals, revealers)
            if cards is None:
                return  # refused: a fatal fault
            self._marks[("turn-cards", r, t)] = cards
        if self._interrupted():
            return
        self._once(("revealed", r, t), Revealed(r, t, tuple(cards)), value=tuple(cards))
        rnd = self.game.round
        chooser = rnd.chooser(cards)
        choices = self.slot("ROW_CHOICE", r, t)
        stray = [s for s in choices if s != chooser and s in self.active_at(r, turn_step(t, 2))]
        if stray:
            self._fatal(self.roster[stray[0]], "wrong-chooser",
                        f"{self._who(self.roster[stray[0]])} chose a row in turn {t + 1}, but "
                        + ("nobody chooses" if chooser is None else f"it is seat {chooser}'s choice"),
                        (choices[stray[0]].wire,))
            return
        row = None
        if chooser is not None:
            self._once(("chooser", r, t), RowChoiceNeeded(r, t, chooser, min(cards), tuple(cards)), value=chooser)
            if not self._playing(chooser, r, turn_step(t, 2)):
                row = stand_in_row(rnd.rows)
            elif self._held_back(turn_step(t, 2)) or chooser not in choices:
                return
            else:
                row = choices[chooser].body["row"]
                if row > 3:
                    self._fatal(self.roster[chooser], "bad-row",
                                f"{self._who(self.roster[chooser])} chose row {row}; rows are 0..3",
                                (choices[chooser].wire,))
                    return
        placed = rnd.play_turn(cards, row)
        self.deal.turn_resolved(self)
        self._emit(TurnResolved(r, t, tuple(placed), tuple(tuple(x) for x in rnd.rows)))
        self.turn += 1
        self._turn_state = None
        if rnd.over:
            self._finish_round()
        self._again = True

    def _turn_cards(self, r: int, t: int, commits, reveals, revealers: Sequence[int]) -> list[int] | None:
        """The card of every seat this turn: revealed and checked, or the stand-in's for a dropped seat."""
        rnd = self.game.round
        cards = []
        for seat in range(self.players):
            if seat not in revealers:
                cards.append(stand_in_card(rnd.hands[seat]))
                continue
            body = reveals[seat].body
            card = body["card"]
            if card > 255:  # not even a byte: it cannot be a card, nor what was committed
                self._fatal(self.roster[seat], "not-in-hand",
                            f"{self._who(self.roster[seat])} played {card}, which is not a card", (reveals[seat].wire,))
                return None
            committed = self.deal.committed_value(self, seat, card, body)
            if committed is None:
                self._fatal(self.roster[seat], "bad-reveal",
                            f"{self._who(self.roster[seat])}'s reveal in turn {t + 1} lacks the deck position the "
                            f"{self.game.settings.deal} deal requires, or has one it does not", (reveals[seat].wire,))
                return None
            value = commitment("play", self.game_id, r, t, seat, committed, body["nonce"])
            if value != commits[seat].body["commit"]:
                self._fatal(self.roster[seat], "bad-reveal",
                            f"{self._who(self.roster[seat])} revealed {card}, which does not match its commitment",
                            (commits[seat].wire, reveals[seat].wire))
                return None
            problem = self.deal.check_play(self, seat, card, body)
            if problem:
                self._fatal(self.roster[seat], "not-in-hand", f"{self._who(self.roster[seat])} {problem}",
                            (reveals[seat].wire,))
                return None
            cards.append(card)
        return cards

    def _finish_round(self) -> None:
        self.phase = "round-end"
        self._score_round()

    def _score_round(self) -> bool:
        """Score the round once the deal allows (a sealed deal audits first), or void it; then sign ROUND_END."""
        r = self.round
        if self._mark(("scored", r)):
            return True
        reason = self.deal.void(self)
        if reason is not None:
            penalties = self.game.void_round()
            self.voided[r] = reason
            self._emit(RoundVoided(r, reason))
        elif self.deal.settle(self, r):
            penalties = self.game.finish_round()
        else:
            return False
        self._once(("scored", r))
        self._turn_state = None
        if self._playing(self.seat, r, ROUND_END_STEP):
            self._send("ROUND_END", {"round": r, "penalties": list(penalties),
                                     "scores": list(self.game.scores), "state": self._state_now()})
        return True

    def _agree(self, kind: str, step: int, fields: Sequence[str], mine: dict[str, Any]) -> bool:
        """True when every active seat's `kind` message is in and matches ours; a fatal fault for one that differs."""
        have = self.slot(kind, self.round if kind != "GAME_END" else 0)
        active = self.active_at(self.round, step)
        for seat, env in sorted(have.items()):
            if seat not in active:
                continue
            for name in fields:
                if env.body[name] != mine[name]:
                    self._fatal(self.roster[seat], "result-mismatch",
                                f"{self._who(self.roster[seat])} signed {kind} with {name} {env.body[name]!r}, "
                                f"but the game gives {mine[name]!r}", (env.wire,))
                    return False
        return not self._held_back(step) and all(s in have for s in active)

    def _step_round_end(self) -> None:
        if not self._score_round():
            return
        penalties = self.game.history[-1]
        mine = {"round": self.round, "penalties": list(penalties), "scores": list(self.game.scores),
                "state": self._state_now()}
        if not self._agree("ROUND_END", ROUND_END_STEP, ("penalties", "scores", "state"), mine):
            return
        self._emit(RoundEnded(self.round, tuple(penalties), tuple(self.game.scores)))
        if not self.game.over:
            self._turn_state = None
            self._begin_round(self.round + 1)
            return
        self.phase = "game-end"
        if self._playing(self.seat, self.round, GAME_END_STEP):
            self._send("GAME_END", self._game_end_body())
        self._again = True

    def _game_end_body(self) -> dict[str, Any]:
        return {"rounds": self.game.rounds_played, "scores": list(self.game.scores),
                "winners": list(self.game.winners), "state": self._state_now()}

    def _step_game_end(self) -> None:
        if not self._agree("GAME_END", GAME_END_STEP, ("rounds", "scores", "winners", "state"), self._game_end_body()):
            return
        self.phase = "over"
        self.result = GameOver(tuple(self.game.scores), tuple(self.game.winners), self.game.rounds_played)
        self.journal.seal()
        self._emit(self.result)
