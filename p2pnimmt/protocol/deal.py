"""The deal step of a round, as a component the session plugs in (protocol.md, "Deal").

A deal component starts a round (sending what it must), consumes the
messages of its kinds, and reports the engine Round once every hand is
dealt. `OpenDeal`: every seat commits to 32 random bytes, then reveals
them; the seed of the round hashes them all and the specified shuffle
deals. `DraftDeal`: the draft variant; the seats pick open cards in the
specified order. `SealedDeal` (sealed_deal.py): hidden hands by
commutative encryption, audited at round end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine import Round, shuffle
from .commitments import NONCE_SIZE, card_value, commitment, round_seed
from .events import PickNeeded
from .standin import stand_in_pick
from .steps import SEED_COMMIT_STEP, SEED_REVEAL_STEP

if TYPE_CHECKING:
    from .session import Session


class Deal:
    """What every deal component does the same way: cards committed as one byte, no audit at round end."""

    kinds: tuple[str, ...] = ()

    def begin(self, session: Session, round_index: int) -> None:
        """Set up the round's deal (called once per round)."""

    def advance(self, session: Session, round_index: int) -> Round | None:
        raise NotImplementedError

    def deal_waiting(self, session: Session) -> tuple[int, tuple[int, ...]] | None:
        """(step, seats) the deal waits for, or None to use the seed steps' slots."""
        return None

    def committed_value(self, session: Session, seat: int, card: int, body: dict | None = None) -> bytes | None:
        """The bytes a play commitment binds: the card (one byte). None if the reveal is malformed for this deal."""
        return None if body is not None and "position" in body else card_value(card)

    def reveal_fields(self, session: Session, card: int) -> dict:
        """Fields a reveal carries besides card, nonce and commits."""
        return {}

    def check_play(self, session: Session, seat: int, card: int, body: dict) -> str | None:
        """Deal-specific checks of a revealed card ('' / None when fine, else why it is refused)."""
        if card not in session.game.round.hands[seat]:
            return f"played {card}, which is not in its hand"
        return None

    def settle(self, session: Session, round_index: int) -> bool:
        """True once the finished round may be scored (a sealed deal audits it first)."""
        return True

    def keys_waiting(self, session: Session) -> tuple[int, ...] | None:
        """Seats whose round-end keys the game waits for (None: no keys in this deal)."""
        return None

    def void(self, session: Session) -> str | None:
        """Why the round in progress cannot be finished (it is void), or None."""
        return None

    def audit_now(self, session: Session) -> bool:
        """True when the round must stop for an audit before it ends."""
        return False

    def turn_resolved(self, session: Session) -> None:
        """The turn's revealed cards were placed."""


class OpenDeal(Deal):
    """Shared shuffle seed by commit-reveal. Protects the deck order from any one peer, not the hands."""

    kinds = ("SEED_COMMIT", "SEED_REVEAL")

    def begin(self, session: Session, round_index: int) -> None:
        """Nothing to set up: `advance` commits this seat's contribution."""

    def _commit(self, session: Session, round_index: int) -> None:
        secret = session._secrets.get(("seed", round_index))
        if secret is None:
            if session._replaying:
                return  # we had not committed before the restart; we will once the replay is over
            secret = (session.entropy(32), session.entropy(NONCE_SIZE))
            session._secrets[("seed", round_index)] = secret
            session.journal.secret({"kind": "seed", "round": round_index, "contribution": secret[0],
                                    "nonce": secret[1]})
        value = commitment("seed", session.game_id, round_index, 0, session.seat, secret[0], secret[1])
        session._send("SEED_COMMIT", {"round": round_index, "commit": value})

    def advance(self, session: Session, round_index: int) -> Round | None:
        committers = session.active_at(round_index, SEED_COMMIT_STEP)
        commits = session.slot("SEED_COMMIT", round_index)
        if session.seat in committers and session.seat not in commits:
            self._commit(session, round_index)
        if session._held_back(SEED_COMMIT_STEP) or any(s not in commits for s in committers):
            return None
        revealers = session.active_at(round_index, SEED_REVEAL_STEP)
        if session.seat in revealers and session.seat not in session.slot("SEED_REVEAL", round_index):
            contribution, nonce = session._secrets[("seed", round_index)]
            session._send("SEED_REVEAL", {"round": round_index, "contribution": contribution, "nonce": nonce})
        reveals = session.slot("SEED_REVEAL", round_index)
        if session._held_back(SEED_REVEAL_STEP) or any(s not in reveals for s in revealers):
            return None
        contributions = []
        for seat in revealers:  # a dropped seat's contribution is left out
            body = reveals[seat].body
            expected = commits[seat].body["commit"]
            got = commitment("seed", session.game_id, round_index, 0, seat, body["contribution"], body["nonce"])
            if got != expected:
                session._fatal(session.roster[seat], "seed-mismatch",
                               f"seat {seat}'s seed reveal for round {round_index} does not match its commitment",
                               (commits[seat].wire, reveals[seat].wire))
                return None
            contributions.append(body["contribution"])
        seed = round_seed(session.game_id, round_index, contributions)
        return session.game.start_round(shuffle(seed, session.game.deck))


class DraftDeal(Deal):
    """The draft variant: seats pick the open cards in the specified snake order; no secrets involved."""

    kinds = ("DRAFT_PICK",)

    def begin(self, session: Session, round_index: int) -> None:
        session.game.start_round()

    def advance(self, session: Session, round_index: int) -> Round | None:
        draft = session.game.draft
        while not draft.done:
            seat = draft.to_move
            if seat not in session.active_at(round_index, SEED_COMMIT_STEP):
                draft.pick(seat, stand_in_pick(draft.open_cards))
                continue
            picks = session.slot("DRAFT_PICK", round_index, draft.picks)
            stray = [s for s in picks if s != seat]
            if stray:
                session._fatal(session.roster[stray[0]], "out-of-turn",
                               f"seat {stray[0]} sent pick {draft.picks} of round {round_index}, which is seat {seat}'s",
                               (picks[stray[0]].wire,))
                return None
            if seat not in picks or session._held_back(SEED_COMMIT_STEP):
                if seat == session.seat and seat not in picks:
                    session._once(("pick", round_index, draft.picks), PickNeeded(round_index, draft.picks))
                return None
            card = picks[seat].body["card"]
            try:
                draft.pick(seat, card)
            except ValueError as exc:
                session._fatal(session.roster[seat], "bad-pick", str(exc), (picks[seat].wire,))
                return None
        return session.game.finish_draft()
