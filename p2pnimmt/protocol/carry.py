"""A game that continues the evening of one a seat's equivocation ended (protocol.md 9, START's `carry`; 12, "An
equivocation after the START"; 14, "A new start").

The host H of a game G whose session ended in an `equivocation` of a seat X other than H starts a new game G' without
X, and G' carries from G: G's id, the rounds of the evening played at the last round end H's session of G completed,
and each remaining seat's total there. Every seat checks the carry against its own record of G before it signs its
START_ACK (`carry_problem`); a node one round end ahead of H takes H's (that round is lost for all alike).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .phase import Phase, Step

if TYPE_CHECKING:
    from .table import Table


def round_ends(table: Table, scored: bool = False) -> dict[int, dict[bytes, int]]:
    """The round ends of the evening this node's session completed (every seat active there signed its ROUND_END, the
    same totals as ours), by the number of rounds of the evening played then (the carry's `rounds`): each seat's
    total by its public key. The game's own start counts as one (what it carried, or zeros at rounds 0). `scored`:
    also the rounds this node scored itself whose ROUND_ENDs are not all in here (a seat checking a carry: the host
    completed a round end only once every active seat signed it, so every honest seat had scored it)."""
    if table.start is None or table.engine is None:
        return {}
    game = table.engine
    keys = [seat["key"] for seat in table.start.body["roster"]]
    totals = list(game.carried)
    ends = {game.before: dict(zip(keys, totals, strict=True))}
    for r, taken in enumerate(game.history):
        totals = [a + b for a, b in zip(totals, taken, strict=True)]
        if r < table.round or table.phase in (Phase.GAME_END, Phase.OVER) and r == table.round:
            agreed = True  # the game went past this round end: every active seat's ROUND_END agreed with ours
        else:
            signed = table.slot("ROUND_END", r)
            active = table.active_at(*Step.round_end(r))
            agreed = r == table.round and bool(active) and all(
                s in signed and signed[s].body["scores"] == totals for s in active)
        if not agreed and not scored:
            break
        ends[game.before + r + 1] = dict(zip(keys, totals, strict=True))
    return ends


def carry_for(table: Table, keys: list[bytes]) -> dict[str, Any] | None:
    """The host: the carry of a new game seating `keys` (every one a seat of this game), from the last round end its
    session completed; None where no round of the evening was played yet (the new game starts from zero alike)."""
    ends = round_ends(table)
    if not ends:
        return None
    rounds = max(ends)
    if rounds == 0:
        return None
    return {"game": table.id, "rounds": rounds, "scores": [ends[rounds][key] for key in keys]}


def evening_over(table: Table) -> bool:
    """The last round end this node's session completed already ended the game (its last round, or a total at the
    points end): a new game has nothing left to continue (protocol.md 12: no new start is made)."""
    ends = round_ends(table)
    if table.start is None or not ends:
        return False
    rounds = max(ends)
    settings = table.start.body["settings"]
    return settings["max_rounds"] is not None and rounds >= settings["max_rounds"] or \
        settings["point_limit"] is not None and max(ends[rounds].values(), default=0) >= settings["point_limit"]


def out_for_proof(table: Table, rounds: int | None = None) -> dict[int, str]:
    """The seats out of this node's game for a proof (protocol.md 12, "Who G' leaves out"), with why (English): every
    seat it expelled (section 12, a split commit included), whatever the round, and every seat that forfeited it (17.9)
    in a round of the evening up to `rounds` (None: any; a forfeit in the round a new start loses counts for nothing).
    Not a seat whose START_ACK was refused (it never sat: a new start leaves it out for that) nor one merely dropped
    (it may take its seat back, 11.3)."""
    before = table.engine.before if table.engine is not None else 0
    out = {seat: f"lost its seat for a proven rule break ({code})"
           for seat, code in sorted(table.expelled_for.items()) if seat not in table.refused}
    for seat, r in sorted(table.forfeits.items()):
        if seat not in out and (rounds is None or before + r + 1 <= rounds):
            out[seat] = f"forfeited in round {before + r + 1}"
    return out


def carry_problem(table: Table, body: dict[str, Any]) -> str | None:
    """A seat of the game in `table`, offered a new start: why the new START's carry (or its lack) is not what this
    node's own record of the game says (None: it signs its START_ACK). The game named is the one it played; the round
    end named is one its session completed or scored itself, not before the one before its last completed; each
    seat's score is its own there; no seat of it is one this node holds out of the game for a proof (out_for_proof: a
    new start leaves those out; a seat left out that this node does not know to be out is its host's word). No carry
    is the game's start at rounds 0 (a game that carried itself must carry on)."""
    ends = round_ends(table, scored=True)  # its own count: the round ends it completed or scored itself
    completed = round_ends(table)
    carry = body.get("carry")
    rounds = carry["rounds"] if carry is not None else 0
    if carry is not None and carry["game"] != table.id:
        played = (table.id or b"").hex()
        return f"its carry names game {carry['game'].hex()}, not {played}, the one this seat played"
    if not ends:
        return "this node has no record of the game it continues"
    last = max(completed)
    if rounds not in ends or rounds < last - 1:
        return (f"its carry is after {rounds} rounds played, but this node's last round end is after {last}: "
                "not one of its own last two")
    roster = [seat["key"] for seat in body["roster"]]
    assert table.start is not None  # (it has round ends)
    keys = [seat["key"] for seat in table.start.body["roster"]]
    out = out_for_proof(table, rounds)
    for key in roster:
        if key in keys and keys.index(key) in out:
            return f"its roster seats {key.hex()[:8]}, who is out of the game it continues: it {out[keys.index(key)]}"
    if carry is None and rounds == 0 and all(v == 0 for v in ends[0].values()):
        return None
    scores = carry["scores"] if carry is not None else [0] * len(roster)
    for key, score in zip(roster, scores, strict=True):
        own = ends[rounds].get(key)
        if own is None:
            return f"its roster seats {key.hex()[:8]}, who had no seat in the game it continues"
        if own != score:
            return f"its carry gives {key.hex()[:8]} {score} points after {rounds} rounds; this node counted {own}"
    return None
