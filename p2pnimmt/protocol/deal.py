"""The deal step of a round, as a component the session plugs in (protocol.md, "Deal").

A deal component sees a read-only view of the table (tableview.py) and
never the session: it starts a round, consumes the messages of its kinds,
and reports the engine Round once every hand is dealt. What it wants done
(send, fault, keep a secret, ask for a pick) it yields as effects
(effects.py), which the session applies before the deal goes on. Each
deal keeps its own secrets and restores them on resume.

`OpenDeal`: every seat commits to 32 random bytes, then reveals them; the
seed of the round hashes them all and the specified shuffle deals.
`DraftDeal`: the draft variant; the seats pick open cards in the specified
order. `SealedDeal` (sealed_deal.py): hidden hands by commutative
encryption, audited at round end. `deals.deal_for` picks one from the
settings.
"""

from __future__ import annotations

from typing import Any

from ..engine import HAND_SIZE, Round, shuffle
from .commitments import NONCE_SIZE, card_value, commitment, round_seed
from .effects import Effects, Emit, Fatal, KeepSecret, Send
from .envelope import Envelope
from .events import Picked, PickNeeded, RoundVoided
from .phase import SEED_COMMIT_STEP, SEED_REVEAL_STEP
from .round_texts import SEED_REVEAL
from .standin import stand_in_pick
from .tableview import TableView


class Deal:
    """What every deal component does the same way: cards committed as one byte, no audit at round end."""

    kinds: tuple[str, ...] = ()

    def begin(self, table: TableView, round_index: int) -> Effects[None]:
        """Set up the round's deal (called once per round)."""
        return
        yield

    def advance(self, table: TableView, round_index: int) -> Effects[Round | None]:
        """Move the deal on as far as the slots allow; the dealt Round once every hand is dealt."""
        raise NotImplementedError
        yield

    def restore(self, record: dict[str, Any]) -> None:
        """Put back one of this deal's secrets records (resume); records of other kinds are ignored."""

    def secret_records(self) -> list[dict[str, Any]]:
        """This deal's secrets as records `restore` takes (to rebuild a table)."""
        return []

    def waiting(self, table: TableView) -> tuple[int, int, tuple[int, ...]] | None:
        """(step, place, seats) the deal waits on while it deals, one message at a time (a draft's pick, a sealed
        deal's shuffle or unlock: each its own position, protocol.md 11.1), or None if it waits on its commit and
        reveal slots."""
        return None

    def stored(self, table: TableView, kind: str, seat: int, env: Envelope) -> None:
        """A message of ours was stored in its slot (a deal may note what it fixes)."""

    def committed_value(self, table: TableView, seat: int, card: int,
                        body: dict[str, Any] | None = None) -> bytes | None:
        """The bytes a play commitment binds: the card (one byte). None if the reveal is malformed for this deal."""
        return None if body is not None and "position" in body else card_value(card)

    def reveal_fields(self, table: TableView, card: int) -> dict[str, Any]:
        """Fields a reveal carries besides card, nonce and commits."""
        return {}

    def check_play(self, table: TableView, seat: int, card: int, body: dict[str, Any]) -> Effects[str | None]:
        """Deal-specific checks of a revealed card (None when fine, else why it is refused)."""
        round_ = table.game.round
        if round_ is None or card not in round_.hands[seat]:
            return f"played {card}, which is not in its hand"
        return None
        yield

    def settle(self, table: TableView, round_index: int) -> Effects[bool]:
        """True once the finished round may be scored (a sealed deal audits it first)."""
        return True
        yield

    def keys_waiting(self, table: TableView) -> tuple[int, ...] | None:
        """Seats whose round-end keys the game waits for (None: no keys in this deal)."""
        return None

    interrupts = False  # void and audit_now can stop a round (a pass asks them only of a deal that says so)

    def void(self, table: TableView) -> Effects[RoundVoided | None]:
        """The round in progress cannot be finished (it is void): why, and which seat's drop made it so; or None."""
        return None
        yield

    def leavers(self, table: TableView) -> tuple[int, ...]:
        """The seats that forfeit the game with the round in progress void (protocol.md 17.9): those whose drop made
        it void, or the one its audit named."""
        return ()

    def audit_now(self, table: TableView) -> bool:
        """True when the round must stop for an audit before it ends."""
        return False

    def stop(self, table: TableView, r: int) -> int:
        """The turns of round r whose reveals its round end needs: every turn, unless an audit stopped it early."""
        return HAND_SIZE

    def turn_resolved(self, table: TableView) -> None:
        """The turn's revealed cards were placed."""


class OpenDeal(Deal):
    """Shared shuffle seed by commit-reveal. Protects the deck order from any one peer, not the hands."""

    kinds = ("SEED_COMMIT", "SEED_REVEAL")

    def __init__(self) -> None:
        self.secrets: dict[int, tuple[bytes, bytes]] = {}  # round -> (our contribution, its nonce)

    def restore(self, record: dict[str, Any]) -> None:
        if record.get("kind") == "seed":
            self.secrets[record["round"]] = (record["contribution"], record["nonce"])

    def secret_records(self) -> list[dict[str, Any]]:
        return [{"kind": "seed", "round": r, "contribution": contribution, "nonce": nonce}
                for r, (contribution, nonce) in sorted(self.secrets.items())]

    def _commit(self, table: TableView, round_index: int) -> Effects[None]:
        assert table.seat is not None
        secret = self.secrets.get(round_index)
        if secret is None:
            if table.replaying:
                return  # we had not committed before the restart; we will once the replay is over
            secret = (table.entropy(32), table.entropy(NONCE_SIZE))
            self.secrets[round_index] = secret
            yield KeepSecret({"kind": "seed", "round": round_index, "contribution": secret[0], "nonce": secret[1]})
        value = commitment("seed", table.game_id, round_index, 0, table.seat, secret[0], secret[1])
        yield Send("SEED_COMMIT", {"round": round_index, "commit": value})

    def advance(self, table: TableView, round_index: int) -> Effects[Round | None]:
        committers = table.active_at(round_index, SEED_COMMIT_STEP)
        commits = table.slot("SEED_COMMIT", round_index)
        if table.seat in committers and table.seat not in commits:
            yield from self._commit(table, round_index)
        if table.held_back(SEED_COMMIT_STEP) or any(s not in commits for s in committers):
            return None
        revealers = table.active_at(round_index, SEED_REVEAL_STEP)
        if table.seat in revealers and table.seat not in table.slot("SEED_REVEAL", round_index):
            contribution, nonce = self.secrets[round_index]
            yield Send("SEED_REVEAL", {"round": round_index, "contribution": contribution, "nonce": nonce})
        reveals = table.slot("SEED_REVEAL", round_index)
        if table.held_back(SEED_REVEAL_STEP) or any(s not in reveals for s in revealers):
            return None
        contributions = []
        for seat in revealers:  # a dropped seat's contribution is left out
            body = reveals[seat].body
            expected = commits[seat].body["commit"]
            got = commitment("seed", table.game_id, round_index, 0, seat, body["contribution"], body["nonce"])
            if got != expected:
                yield Fatal(seat, "seed-mismatch",
                            SEED_REVEAL.format(who=table.who_seat(seat), round=round_index + 1),
                            (commits[seat].wire, reveals[seat].wire))
                return None
            contributions.append(body["contribution"])
        seed = round_seed(table.game_id, round_index, contributions)
        dealt = table.game.start_round(shuffle(seed, table.game.deck))
        assert isinstance(dealt, Round)
        return dealt


class DraftDeal(Deal):
    """The draft variant: seats pick the open cards in the specified snake order; no secrets involved."""

    kinds = ("DRAFT_PICK",)

    def __init__(self) -> None:
        self.asked: set[tuple[int, int]] = set()  # (round, pick) we asked our driver for

    def begin(self, table: TableView, round_index: int) -> Effects[None]:
        table.game.start_round()
        return
        yield

    def waiting(self, table: TableView) -> tuple[int, int, tuple[int, ...]] | None:
        draft = table.game.draft
        if draft is None:
            return SEED_COMMIT_STEP, 0, ()
        seat = draft.to_move
        if seat is None:
            return SEED_COMMIT_STEP, 0, ()
        active = table.active_at(table.round, SEED_COMMIT_STEP, draft.picks)
        waiting = seat in active and seat not in table.slot("DRAFT_PICK", table.round, draft.picks)
        return SEED_COMMIT_STEP, draft.picks, (seat,) if waiting else ()

    def advance(self, table: TableView, round_index: int) -> Effects[Round | None]:
        draft = table.game.draft
        assert draft is not None
        while not draft.done:
            seat = draft.to_move
            assert seat is not None
            if seat not in table.active_at(round_index, SEED_COMMIT_STEP, draft.picks):
                card = stand_in_pick(draft.open_cards)
                draft.pick(seat, card)
                yield Emit(Picked(round_index, draft.picks - 1, seat, card))
                continue
            picks = table.slot("DRAFT_PICK", round_index, draft.picks)  # only the seat to pick's: slots.place
            if seat not in picks or table.held_back(SEED_COMMIT_STEP, draft.picks):
                if seat == table.seat and seat not in picks and (round_index, draft.picks) not in self.asked:
                    self.asked.add((round_index, draft.picks))
                    yield Emit(PickNeeded(round_index, draft.picks))
                return None
            card = picks[seat].body["card"]
            try:
                draft.pick(seat, card)
            except ValueError as exc:
                yield Fatal(seat, "bad-pick", str(exc), (picks[seat].wire,))
                return None
            yield Emit(Picked(round_index, draft.picks - 1, seat, card))
        return table.game.finish_draft()
