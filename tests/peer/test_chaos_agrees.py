"""Seeded chaos at mixed tables (tests/peer/chaos.py): per seed, a table and what goes wrong at it (delivery
shuffled, held back, doubled and replayed; a forger's twins; a cheat's message twice, with a wrong field, a row
choice late or stray, keys early, a false alarm, a reveal never sent; a seat cut off and back, a node restarted, a
clock running out, a stalled seat), played at the all-Python table and at the mixed one: every node sends the same
bytes, writes the same transcript and ends the same as the Python node in its place, counts the same seats away,
and both verifiers give each transcript the same verdict and report (test_mixed_tables.node_by_node).

The default run plays the seeds of SEEDS; more by hand, e.g.

    P2PNIMMT_CHAOS_SEEDS=0-999 .venv/bin/python -m pytest -q -n 2 tests/peer/test_chaos_agrees.py

(a range, or seeds separated by commas; with P2PNIMMT_CHAOS_PULL=0 no node asks for what it lacks, as GAPS).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from chaos import plan, play, still_playing
from mixed import NodeSeats
from test_mixed_tables import (
    child as child,  # noqa: F401 (the node process of test_mixed_tables, a fixture)
    node_by_node,
)

# Twelve seeds, played as a table plays: a node that waits asks the others for what it lacks (chaos.Plan.pull); then
# seeds that found a disagreement so (each failed before its fix): 128, a TypeScript node still starting, lacking
# the START_ACK of a seat cut off just after sending it to some, said it waited on nobody, so it never asked for the
# ack and stayed starting while the others played (the reference's node waits on that seat and asks); 120, a seat
# away (its clock ran out three turns in a row) dropped and taken back: the TypeScript node kept its count until its
# first card of the new round and showed it away meanwhile (protocol.md 11.2: taken back, it counts from 0); 376, a
# stalled seat whose stand-in move (every other seat asked for it) completed the last turn's commits while a seat
# expelled earlier was first waited on at that turn's reveals: the reference signed its reveal in the pass that made
# the move, before that drop voided the sealed round (protocol.md 11, "Entropy"; every other node signed ROUND_END).
# 52, a sealed deal where the forger signs a twin of seat 1's PLAY_COMMIT
# on another `state`: the seats that took the twin first expelled seat 1 at the turn's state check and voided the
# round, a spectator that took the real one kept both as a split commit and waited in 'turn' for reveals that never
# came (protocol.md 12, "Two commits with another `state`": now a fatal proof, so every node ends aborted); 23, the
# same in an open deal (three seats; seat 2's twin): a seat and both spectators waited in 'turn' for ever.
# 155, 170 and 189 found no disagreement but a table stopped for good at both tables alike (now asserted: every node
# that nothing excuses ends its game, chaos.still_playing): a seat expelled where the game did not wait on it (a
# STANDIN naming itself, a DROP for a later turn) made every vote there void, so the seat cut off or stalled after
# it could never be voted out (protocol.md 11.1, "An expelled seat": it is not needed there). 998 likewise: a seat
# that signed a DROP for a later turn and then a STANDIN for this one (`unexpected`) voided the others' vote on a
# stalled seat, whose node waited for the expelled seat's ask of the stand-in for ever (protocol.md 11.2: an expelled
# seat is never needed for the ask). 1039, 1094, 1139, 1159 and 1194 (a seat cut off and back, a cheat, two rounds): the
# TypeScript session's section-9 faults were made by arrow functions kept as fields of the session (session 27, a
# CPU change), which a rebuild (Object.assign of a fresh session onto this one) copied bound to the fresh session: a
# fault found after a rebuild was blamed on it and lost (other bytes sent, a recorded fault the verifier could not
# find); they are methods now. 267 (session 31): a forger's second START_ACK, refused by the nodes still starting,
# aborted those that had started; node 2, restarted from its transcript after it aborted, came back in the deal and
# played on holding no proof (its fatal record was not replayed, and no peer sent the proof again: protocol.md 12, "A
# proof reaches every node"); the nodes still starting wait for the host's new start (still_playing excuses them).
# 101 (session 32): a cheat's PLAY_COMMIT without its fields, then an equivocation above it: the first cut of
# protocol.md 12's *Above a split commit* read the commit's round and turn to find the turn to wait on, and the Python
# session threw (KeyError); a commit that broke section 9 now waits on no turn (the proof is judged as before).
SEEDS = list(range(12)) + [120, 128, 376, 23, 52, 155, 170, 189, 998, 1039, 1094, 1139, 1159, 1194, 267, 101]
# Seeds played with no node asking for what it lacks, so that votes are cast while some nodes lack what others hold
# (a gap a real table closes within a second, unless a link is down) — how these seeds found a disagreement where
# no focused test was made of it (each failed before its fix): 622, a seat that owed a KEEP where an expelled
# voter's drop voids a sealed round (the reference signs it before the void; the TypeScript session voided first and
# signed none); 1113, a seat back from a cut that joined a vote on the row chooser whose row choice it held aside
# behind the chooser's own vote, in the pass in which the message that came made that vote void (the reference
# joined and dropped the chooser; protocol.md 11.1: a decided vote frees its voter's messages before any vote is
# joined); 1166, a sealed round voided at an unlock while the seat held votes at (r, 32, 1) it then joined (the
# reference signed those DROPs before the void round's ROUND_END, protocol.md 11, "Entropy": a round ends where the
# drop that voids it is made); 1524, a dropped seat whose node aborted on a forger's
# equivocation, asked back (the reference signed the REJOIN, the TypeScript seat signed nothing and did not refuse,
# so the table's clocks asked again for ever; protocol.md 11: an aborted session signs nothing more); 113 and 920, a
# seat that came to a position where its own DROP completed a drop and owed KEEP on a seat its one sweep by seat had
# passed (the reference swept once and made the drops; protocol.md 11, "Entropy": swept again while a sweep signed);
# 757, a voter at the last round's end rebuilt for every other seat dropped together at a turn: the rebuilt game
# ended, and the reference, which signed GAME_END only in the step that ended the game (a step the rebuild took
# signing nothing), waited on its own GAME_END for ever (protocol.md 11.1, "A node already past the step").
GAPS = [113, 622, 757, 920, 1113, 1166, 1524]


def seeds() -> list[tuple[int, bool]]:
    """(seed, pull): SEEDS and GAPS, or the seeds asked for in P2PNIMMT_CHAOS_SEEDS (pulling unless
    P2PNIMMT_CHAOS_PULL=0)."""
    asked = os.environ.get("P2PNIMMT_CHAOS_SEEDS")
    if not asked:
        return [(seed, True) for seed in SEEDS] + [(seed, False) for seed in GAPS]
    pull = os.environ.get("P2PNIMMT_CHAOS_PULL", "1") != "0"
    found: list[tuple[int, bool]] = []
    for part in asked.split(","):
        low, _, high = part.partition("-")
        found.extend((seed, pull) for seed in range(int(low), int(high or low) + 1))
    return found


@pytest.mark.parametrize(("seed", "pull"), seeds(), ids=lambda v: ("pull" if v else "gaps") if isinstance(v, bool)
                         else str(v))
def test_a_table_in_chaos_plays_as_a_python_one(seed: int, pull: bool, child: NodeSeats, tmp_path: Path) -> None:
    p = plan(seed, pull)
    table = play(p, child)
    try:
        outcomes = node_by_node(table, tmp_path)
        # and every node that nothing excuses ends its game (chaos.still_playing): the two tables agreeing that the
        # game stopped for good is no pass (seeds 155, 170, 189: one rule breaker and one absence stopped the table)
        still = still_playing(p, outcomes, started=True)
        assert not still, f"stopped with a seat still playing: {still} {[o['phase'] for o in outcomes]}"
    except AssertionError as e:
        raise AssertionError(f"{p.describe()}\n{e}") from e


def test_a_message_that_reached_some_nodes_before_its_sender_was_cut_off_reaches_the_rest(
        child: NodeSeats, tmp_path: Path) -> None:
    """Seed 14: three seats; seat 2's commit of turn 3 reached seat 1, then seat 2 was cut off for good while its
    copy to seat 0 (its relayer, section 8) was on its way. Seat 0 waited on that commit, seat 1 (past it) on the
    reveals: their votes were at two positions and never completed, and before the harness's nodes asked each other
    for what they lacked (as the reference's node does while a step waits: its `heads`, p2pnimmt/net/waiting.py)
    the table stopped for good. Now seat 0 takes the commit from seat 1, both vote seat 2 out at the reveal step, and
    every node but seat 2's ends the game, at both tables, the same (node_by_node)."""
    p = plan(14)
    assert p.cut == (2, 220, False) and p.players == 3
    table = play(p, child)
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for i, o in enumerate(outcomes) if i != 2] == ["over"] * 4
    assert all(o["dropped"] == [[2, [0, 9, 0]]] for i, o in enumerate(outcomes) if i != 2)
