"""A proof of equivocation above a seat's commit of an undecided turn: held until the turn's reveals decide it
(protocol.md 8, check 4; 12, "A split commit", *Above a split commit*).

Seat X splits its commit of a turn at seq s (version A to some nodes, B to others), reveals on each version, and
signs on (s+2) on A alone. A node on A takes s+2 as X's next message; a node on B holds X's reveal on B at s+1, so
s+2 is a fork to it. Judged at once, the nodes on B alone would abort. So a proof against X that is not a split
commit's is judged by where its lowest message lies in X's chain as this node holds it:
- dropped (nothing recorded or sent) where X was expelled here from a split commit's seq below it: nothing X
  signed from there counts at any node;
- held where this node's chain of X has not reached it yet, or has, below it, a PLAY_COMMIT of a turn this node
  has not decided (the turn's reveals not agreed): every node decides the turn alike, from the reveals;
- else judged as before: fatal.
One held proof per seat, the one lowest in the chain (any higher one is decided no sooner and alike).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .effects import Effects, Fatal
from .envelope import open_envelope
from .messages import BodyError, check_body
from .phase import Phase
from .split import Held
from .table import Table

DROP, HOLD, JUDGE = "drop", "hold", "judge"
NOT_REACHED, NO_COMMIT = "not reached", "no commit"


def lowest(seat_peer: bytes, evidence: Sequence[bytes]) -> int | None:
    """The lowest seq of the sender's messages in a proof (None: none of them is its)."""
    seqs = [env.seq for env in map(open_envelope, evidence) if env.sender == seat_peer]
    return min(seqs) if seqs else None


def split_seq(table: Table, seat: int) -> int | None:
    """The seq from which the seat was expelled for a split commit its turn's reveals decided (protocol.md 12)."""
    if table.expelled_for.get(seat) != "equivocation" or seat in table.refused:
        return None
    return table.expelled[seat]


def decided(table: Table, turn: tuple[int, int]) -> bool:
    """This node has gone past the turn (its reveals agreed, or its round ended)."""
    if table.phase in (Phase.ROUND_END, Phase.GAME_END, Phase.OVER) and turn[0] <= table.round:
        return True  # (a round stopped for its audit, or void, ends with turns never played: none is left to decide)
    if (table.round, table.turn) != turn:
        return (table.round, table.turn) > turn
    record = table.turns.get(turn)
    return record is not None and record.cards is not None


def anchor(table: Table, held: Held) -> tuple[int, int] | str:
    """The (round, turn) of the seat's last PLAY_COMMIT below the proof's lowest message in this node's chain of it;
    NO_COMMIT if it has none there; NOT_REACHED if this node has not accepted its message before that one yet."""
    peer = table.roster[held.seat]
    if held.low > 0 and table.message_of(peer, held.low - 1) is None:
        return NOT_REACHED
    for seq in range(held.low - 1, -1, -1):
        env = table.message_of(peer, seq)
        if env is not None and env.kind == "PLAY_COMMIT":
            try:
                check_body(env.kind, env.body)
            except BodyError:  # it broke section 9 (its seat is expelled from it alike everywhere): no turn to wait
                return NO_COMMIT  # on, judged as before
            return (env.body["round"], env.body["turn"])
    return NO_COMMIT


def verdict(table: Table, held: Held, now: tuple[int, int] | None = None,
            others_in: Callable[[int], bool] | None = None) -> tuple[str, Held]:
    """DROP, HOLD or JUDGE the proof (the module's docstring), with `held`'s turn filled in once known. `now`: the
    turn at hand, whose reveals of every seat but the held proof's signer are in and name commit sets this node
    knows where `others_in(signer)`: the turn is decided (protocol.md 12, "Decided"), whatever the signer's own."""
    split = split_seq(table, held.seat)
    if split is not None and held.low > split:
        return DROP, held
    turn = held.turn
    if turn is None:
        found = anchor(table, held)
        if found == NOT_REACHED:
            return HOLD, held
        if not isinstance(found, tuple):
            return JUDGE, held
        turn = found
        held = held._replace(turn=turn)
    done = decided(table, turn) or turn == now and others_in is not None and others_in(held.seat)
    return (JUDGE if done else HOLD), held


def hold(table: Table, held: Held) -> None:
    """Keep the proof unjudged: one per seat, the lowest in its chain."""
    kept = table.held_proofs.get(held.seat)
    if kept is None or held.low < kept.low:
        table.held_proofs[held.seat] = held


def settle(table: Table, now: tuple[int, int] | None = None,
           others_in: Callable[[int], bool] | None = None) -> Effects[bool]:
    """Judge again every held proof (`now`, `others_in`: as verdict's; before the node uses the turn's reveals): drop
    those above a seat's decided split commit, yield the first to be judged (fatal); True if one was."""
    for seat, held in sorted(table.held_proofs.items()):
        found, held = verdict(table, held, now, others_in)
        if found == HOLD:
            table.held_proofs[seat] = held
            continue
        del table.held_proofs[seat]
        if found == JUDGE:
            yield Fatal(seat, held.code, held.detail, held.evidence, final=True)
            return True
    return False
