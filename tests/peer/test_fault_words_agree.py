"""The words of the faults a seat's own signed messages prove in play (protocol.md 8, "The words of a refusal",
informative; issue 25): a Python seat that cheats in one way, at a table where the other seats and a spectator are
TypeScript nodes, and the same table all in Python. Every node records the fault in the same bytes as the Python
node in its place: its code, its detail ("seat s (name) sent ...", the reference's words) and its evidence, so the
transcripts agree byte for byte. (Before, a TypeScript node wrote "KIND seq N: ..." for these, with the second
message alone as a duplicate's evidence and the reveal alone as a broken commitment's.)
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

import pytest
from mixed import NodeSeats
from test_mixed_tables import (
    Table,
    check,
    child as child,  # noqa: F401 (the node process of test_mixed_tables, a fixture)
    node_by_node,
)

from p2pnimmt.protocol.commitments import NONCE_SIZE, commitment
from p2pnimmt.protocol.phase import Step
from p2pnimmt.protocol.transcript import records

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from adversary import Adversary  # noqa: E402

CHEAT = 2


def duplicate(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """A second PLAY_COMMIT for turn 2, with the next seq and another commitment."""
    if env.kind == "PLAY_COMMIT" and body["turn"] == 1:
        a = adv.chain(env.kind, body, env)
        b = adv.chain(env.kind, dict(body, commit=hashlib.sha256(b"another").digest()))
        adv.fired = True
        return adv.to(a.wire) + adv.to(b.wire)
    return None


def broken_commitment(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """The reveal of turn 2 names another card of its hand than the one it committed to."""
    if env.kind == "PLAY_REVEAL" and body["turn"] == 1:
        hand = adv.session.table.game.round.hands[adv.seat]
        body["card"] = next(c for c in sorted(hand) if c != body["card"])
        adv.fired = True
    return None


def not_in_hand(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """Turn 2's commitment and reveal are of a card that is not in its hand (it opens its commitment)."""
    if env.kind in ("PLAY_COMMIT", "PLAY_REVEAL") and body["turn"] == 1:
        table = adv.session.table
        if env.kind == "PLAY_COMMIT":
            hand = table.game.round.hands[adv.seat]
            seen = {c for row in table.game.round.rows for c in row}
            card = next(c for c in range(1, 105) if c not in hand and c not in seen)
            nonce = hashlib.sha256(b"a nonce").digest()[:NONCE_SIZE]
            adv.state["play"] = (card, nonce)
            body["commit"] = commitment("play", adv.net.game_id, body["round"], 1, adv.seat, bytes([card]), nonce)
        else:
            body["card"], body["nonce"] = adv.state["play"]
            adv.fired = True
    return None


def other_state(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """Turn 2's PLAY_COMMIT names another game state."""
    if env.kind == "PLAY_COMMIT" and body["turn"] == 1:
        body["state"] = hashlib.sha256(b"another state").digest()
        adv.fired = True
    return None


def out_of_turn(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """Its first DRAFT_PICK names the pick after its own (the next seat's)."""
    if env.kind == "DRAFT_PICK" and not adv.fired:
        body["pick"] += 1
        adv.fired = True
    return None


def other_start(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """Its START_ACK acknowledges another START (fatal: it aborts the game on every node)."""
    if env.kind == "START_ACK":
        body["start"] = hashlib.sha256(b"another START").digest()
        adv.fired = True
    return None


def ahead(turn: int) -> Any:
    """Its PLAY_COMMIT of turn 2 names turn `turn` + 1 instead."""
    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
        if env.kind == "PLAY_COMMIT" and body["turn"] == 1:
            body["turn"] = turn
            adv.fired = True
        return None
    return rule


def standin_for_itself(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """After its PLAY_COMMIT of turn 2, a STANDIN asking the stand-in to play its own seat."""
    if env.kind == "PLAY_COMMIT" and body["turn"] == 1:
        a = adv.chain(env.kind, body, env)
        b = adv.chain("STANDIN", {"round": body["round"], "turn": 1, "seat": adv.seat})
        adv.fired = True
        return adv.to(a.wire) + adv.to(b.wire)
    return None


def drop_with_a_place(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
    """After its PLAY_COMMIT of turn 2, a DROP of seat 0 at that step naming a place, which the step does not have."""
    if env.kind == "PLAY_COMMIT" and body["turn"] == 1:
        a = adv.chain(env.kind, body, env)
        at = Step.of_message(body["round"], env.kind, body, adv.seat)
        b = adv.chain("DROP", {"round": body["round"], "step": at.number, "seat": 0, "place": 1})
        adv.fired = True
        return adv.to(a.wire) + adv.to(b.wire)
    return None


CASES = [("duplicate", "open", duplicate, "duplicate", "seat 2 (p2) sent two PLAY_COMMIT messages for the same step"),
         ("bad-reveal", "open", broken_commitment, "bad-reveal", "which does not match its commitment"),
         ("not-in-hand", "open", not_in_hand, "not-in-hand", "which is not in its hand"),
         ("state-mismatch", "open", other_state, "state-mismatch",
          "seat 2 (p2) committed on a different game state (round 1, turn 2)"),
         ("out-of-turn", "draft", out_of_turn, "out-of-turn", "seat 2 (p2) sent pick "),
         ("skipping-ahead", "open", ahead(3), "unexpected",
          "seat 2 (p2) sent PLAY_COMMIT for round 1, turn 4, skipping ahead of its message for round 1, turn 1"),
         ("no-such-turn", "open", ahead(10), "unexpected", "seat 2 (p2) sent PLAY_COMMIT for turn 11: a round has 10 turns"),
         ("standin-for-itself", "open", standin_for_itself, "unexpected",
          "seat 2 (p2) sent STANDIN to ask the stand-in for seat 2, which is itself or no seat"),
         ("drop-with-a-place", "open", drop_with_a_place, "unexpected",
          "seat 2 (p2) sent DROP with a place, which only step 32, step 0 of a draft and steps 0 and 1 of a sealed "
          "game have"),
         ("start-mismatch", "open", other_start, "start-mismatch", "seat 2 (p2) acknowledged a different START")]


@pytest.mark.parametrize("deal, rule, code, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_cheat_is_recorded_in_the_same_words_by_both(deal: str, rule: Any, code: str, words: str,
                                                      request: pytest.FixtureRequest, tmp_path: Path) -> None:
    process: NodeSeats = request.getfixturevalue("child")
    table = Table(process, deal, 4, [1, 3, 5], seed=11, rounds=1)
    for net in table.nets:
        net.shuffle_delivery = False
        adv = Adversary(net, CHEAT, rule)
        net.start()
        net.run()
        assert adv.fired
    mixed = table.mixed
    cheat = mixed.identities[CHEAT].peer
    for peer in mixed.peers:
        mixed.outcome(peer)  # a TypeScript node's transcript is read with its outcome
    for peer in mixed.peers:  # every node but the cheat's records it, TypeScript or Python
        if peer == cheat:
            continue
        faults = [body for what, body in records(bytes(mixed.transcripts[peer])) if what == "fault"]
        assert [(f["code"], f["peer"]) for f in faults] == [(code, cheat)], faults
        assert words in faults[0]["detail"], faults[0]["detail"]
    if code == "start-mismatch":  # fatal: the game stops on every node, alike
        outcomes = node_by_node(table, tmp_path)
        phases = [o["phase"] for p, o in zip(mixed.peers, outcomes) if p != cheat]  # the cheat never sees its lie
        assert phases == ["aborted"] * (len(mixed.peers) - 1), phases
    else:  # the cheat loses its seat; the others finish the game alike (every byte sent, every transcript)
        check(table, tmp_path, gone=CHEAT)


